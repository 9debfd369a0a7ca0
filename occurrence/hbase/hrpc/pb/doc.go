// Package pb holds the Go code generated from the project's trimmed copies of
// HBase's protobuf messages (*.proto in this folder). Regenerate with
// `go generate ./occurrence/hbase/hrpc/...` (needs protoc and
// protoc-gen-go v1.36.12 on PATH).
package pb

//go:generate protoc --proto_path=. --go_out=. --go_opt=paths=source_relative hbase.proto rpc.proto filter.proto client.proto master.proto
