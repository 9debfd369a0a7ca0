package hrpc

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// MetaTable is the catalog table listing every region.
const MetaTable = "hbase:meta"

// Region is one region of a table as hbase:meta describes it.
type Region struct {
	Table  string // "name" (default namespace) or "namespace:name"
	Name   []byte // full region name, the region's row key in hbase:meta
	Start  []byte // inclusive; empty for the first region
	End    []byte // exclusive; empty for the last region
	Server string // host:port of the hosting region server; "" if unassigned
	info   *pb.RegionInfo
}

// EncodedName returns the region's encoded name (the MD5 hex in the region
// name, or the hash of the old format meta region).
func (r *Region) EncodedName() string {
	n := r.Name
	if len(n) > 1 && n[len(n)-1] == '.' {
		if i := bytes.LastIndexByte(n[:len(n)-1], '.'); i >= 0 {
			return string(n[i+1 : len(n)-1])
		}
	}
	if r.Table == MetaTable {
		return "1588230740"
	}
	return string(n)
}

// Contains reports whether key falls in the region's key range.
func (r *Region) Contains(key []byte) bool {
	return bytes.Compare(key, r.Start) >= 0 && (len(r.End) == 0 || bytes.Compare(key, r.End) < 0)
}

func (r *Region) String() string {
	return fmt.Sprintf("%s[%q,%q)@%s", r.Table, r.Start, r.End, r.Server)
}

func (r *Region) spec() *pb.RegionSpecifier {
	return &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: r.Name}
}

// tableNamePB splits "ns:name" into the protobuf TableName.
func tableNamePB(table string) *pb.TableName {
	ns, name := "default", table
	if i := strings.IndexByte(table, ':'); i >= 0 {
		ns, name = table[:i], table[i+1:]
	}
	return &pb.TableName{Namespace: []byte(ns), Qualifier: []byte(name)}
}

func tableString(t *pb.TableName) string {
	if ns := string(t.GetNamespace()); ns != "default" && ns != "" {
		return ns + ":" + string(t.GetQualifier())
	}
	return string(t.GetQualifier())
}

// pbufMagic prefixes protobuf-serialized values stored in HBase.
var pbufMagic = []byte("PBUF")

// regionFromMetaRow decodes one hbase:meta row. It returns nil for rows that
// do not describe a live primary region of table (split parents, offline
// regions, replicas, other tables).
func regionFromMetaRow(table string, row Row) (*Region, error) {
	var info, server []byte
	for _, c := range row.Cells {
		if string(c.Family) != "info" {
			continue
		}
		switch string(c.Qualifier) {
		case "regioninfo":
			info = c.Value
		case "server":
			server = c.Value
		}
	}
	if info == nil {
		return nil, nil
	}
	if !bytes.HasPrefix(info, pbufMagic) {
		return nil, fmt.Errorf("%w: meta row %q: regioninfo without PBUF magic", ErrProtocol, row.Key)
	}
	var ri pb.RegionInfo
	if err := proto.Unmarshal(info[len(pbufMagic):], &ri); err != nil {
		return nil, fmt.Errorf("%w: meta row %q: regioninfo: %v", ErrProtocol, row.Key, err)
	}
	if tableString(ri.GetTableName()) != table || ri.GetOffline() || ri.GetSplit() || ri.GetReplicaId() != 0 {
		return nil, nil
	}
	return &Region{Table: table, Name: append([]byte(nil), row.Key...), Start: ri.GetStartKey(),
		End: ri.GetEndKey(), Server: string(server), info: &ri}, nil
}

// checkCoverage verifies that sorted regions cover the whole key space with
// neither holes nor overlaps, and that each is assigned.
func checkCoverage(table string, regions []*Region) error {
	if len(regions) == 0 {
		return fmt.Errorf("%w: table %s: no regions in hbase:meta", ErrTableNotFound, table)
	}
	sort.Slice(regions, func(i, j int) bool { return bytes.Compare(regions[i].Start, regions[j].Start) < 0 })
	if len(regions[0].Start) != 0 {
		return fmt.Errorf("%w: table %s: first region starts at %q", ErrRegionsInTransition, table, regions[0].Start)
	}
	for i, r := range regions {
		if r.Server == "" {
			return fmt.Errorf("%w: table %s: region %s unassigned", ErrRegionsInTransition, table, r.EncodedName())
		}
		if i+1 < len(regions) && !bytes.Equal(r.End, regions[i+1].Start) {
			return fmt.Errorf("%w: table %s: region ends at %q, next starts at %q", ErrRegionsInTransition, table, r.End, regions[i+1].Start)
		}
	}
	if last := regions[len(regions)-1]; len(last.End) != 0 {
		return fmt.Errorf("%w: table %s: last region ends at %q", ErrRegionsInTransition, table, last.End)
	}
	return nil
}

// findRegion returns the region of sorted regions containing key.
func findRegion(regions []*Region, key []byte) *Region {
	i := sort.Search(len(regions), func(i int) bool { return bytes.Compare(regions[i].Start, key) > 0 })
	if i == 0 {
		return nil
	}
	if r := regions[i-1]; r.Contains(key) {
		return r
	}
	return nil
}
