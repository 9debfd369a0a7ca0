// Package hrpc is a native client for the HBase 2.x RPC protocol.
//
// A Conn speaks the protocol on one TCP connection: the preamble ("HBas",
// version 0, SIMPLE auth), a ConnectionHeader naming the service and the
// KeyValue cell block codec, then length-framed calls, each a delimited
// RequestHeader plus request message, multiplexed by call id. Responses are
// a delimited ResponseHeader (carrying any server exception), the response
// message and an optional cell block of KeyValues.
//
// A Client finds hbase:meta through the master's ClientMetaService, caches
// each table's regions from hbase:meta, and offers Get, Put, batched Apply
// and GetRows (Multi grouped per region server), atomic Increment and
// batched CheckAndPutAll (conditional region actions, HBase 2.4+),
// region-by-region Scan with server-side
// filters that survives region moves, splits and expired scanners, and table
// administration through the master (create with split keys, disable,
// delete, split and move regions).
//
// The protobuf messages are the project's own trimmed copies of HBase's,
// generated into package pb.
package hrpc
