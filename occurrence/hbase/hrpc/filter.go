package hrpc

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/biodiversity-downloads/downloader/occurrence/hbase/hrpc/pb"
)

// Filter is a server-side scan filter. The server instantiates the Java
// filter class named in the message and applies it next to the data.
type Filter interface {
	filterPB() (*pb.Filter, error)
}

// Comparator compares a cell value (or row key) on the server.
type Comparator interface {
	comparatorPB() (*pb.Comparator, error)
}

// CompareOp is the operator of a comparison filter: the *cell value* is
// compared to the comparator's operand (value OP operand).
type CompareOp int32

// Compare operators.
const (
	Less           CompareOp = CompareOp(pb.CompareType_LESS)
	LessOrEqual    CompareOp = CompareOp(pb.CompareType_LESS_OR_EQUAL)
	Equal          CompareOp = CompareOp(pb.CompareType_EQUAL)
	NotEqual       CompareOp = CompareOp(pb.CompareType_NOT_EQUAL)
	GreaterOrEqual CompareOp = CompareOp(pb.CompareType_GREATER_OR_EQUAL)
	Greater        CompareOp = CompareOp(pb.CompareType_GREATER)
)

const filterPkg = "org.apache.hadoop.hbase.filter."

func wrapFilter(class string, m proto.Message) (*pb.Filter, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("hbase: encode %s: %w", class, err)
	}
	return &pb.Filter{Name: proto.String(filterPkg + class), SerializedFilter: b}, nil
}

func wrapComparator(class string, m proto.Message) (*pb.Comparator, error) {
	b, err := proto.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("hbase: encode %s: %w", class, err)
	}
	return &pb.Comparator{Name: proto.String(filterPkg + class), SerializedComparator: b}, nil
}

// FilterList combines filters: all must pass (And) or one must (Or).
type FilterList struct {
	Or      bool
	Filters []Filter
}

func (f FilterList) filterPB() (*pb.Filter, error) {
	op := pb.FilterList_MUST_PASS_ALL
	if f.Or {
		op = pb.FilterList_MUST_PASS_ONE
	}
	m := &pb.FilterList{Operator: op.Enum()}
	for _, sub := range f.Filters {
		p, err := sub.filterPB()
		if err != nil {
			return nil, err
		}
		m.Filters = append(m.Filters, p)
	}
	return wrapFilter("FilterList", m)
}

// SingleColumnValueFilter keeps rows whose latest value of Family:Qualifier
// satisfies value Op Comparator. Rows lacking the column pass unless
// FilterIfMissing.
type SingleColumnValueFilter struct {
	Family, Qualifier []byte
	Op                CompareOp
	Comparator        Comparator
	FilterIfMissing   bool
}

func (f SingleColumnValueFilter) filterPB() (*pb.Filter, error) {
	c, err := f.Comparator.comparatorPB()
	if err != nil {
		return nil, err
	}
	return wrapFilter("SingleColumnValueFilter", &pb.SingleColumnValueFilter{
		ColumnFamily: f.Family, ColumnQualifier: f.Qualifier,
		CompareOp: pb.CompareType(f.Op).Enum(), Comparator: c,
		FilterIfMissing: proto.Bool(f.FilterIfMissing), LatestVersionOnly: proto.Bool(true),
	})
}

// FirstKeyOnlyFilter returns only the first cell of each row (for counts).
type FirstKeyOnlyFilter struct{}

func (FirstKeyOnlyFilter) filterPB() (*pb.Filter, error) {
	return wrapFilter("FirstKeyOnlyFilter", &pb.FirstKeyOnlyFilter{})
}

// KeyOnlyFilter strips values (or replaces them by their length).
type KeyOnlyFilter struct{ LenAsVal bool }

func (f KeyOnlyFilter) filterPB() (*pb.Filter, error) {
	return wrapFilter("KeyOnlyFilter", &pb.KeyOnlyFilter{LenAsVal: proto.Bool(f.LenAsVal)})
}

// PrefixFilter keeps rows whose key starts with Prefix.
type PrefixFilter struct{ Prefix []byte }

func (f PrefixFilter) filterPB() (*pb.Filter, error) {
	return wrapFilter("PrefixFilter", &pb.PrefixFilter{Prefix: f.Prefix})
}

// RowFilter keeps rows whose key satisfies key Op Comparator.
type RowFilter struct {
	Op         CompareOp
	Comparator Comparator
}

func (f RowFilter) filterPB() (*pb.Filter, error) {
	c, err := f.Comparator.comparatorPB()
	if err != nil {
		return nil, err
	}
	return wrapFilter("RowFilter", &pb.RowFilter{CompareFilter: &pb.CompareFilter{
		CompareOp: pb.CompareType(f.Op).Enum(), Comparator: c}})
}

// BinaryComparator compares bytes lexicographically (unsigned).
type BinaryComparator []byte

func (b BinaryComparator) comparatorPB() (*pb.Comparator, error) {
	return wrapComparator("BinaryComparator", &pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: b}})
}

// BinaryPrefixComparator compares only the first len(b) bytes.
type BinaryPrefixComparator []byte

func (b BinaryPrefixComparator) comparatorPB() (*pb.Comparator, error) {
	return wrapComparator("BinaryPrefixComparator", &pb.BinaryPrefixComparator{Comparable: &pb.ByteArrayComparable{Value: b}})
}

// BinaryComponentComparator compares the len(Value) bytes at Offset of the
// cell value with Value, lexicographically (the value must be long enough).
type BinaryComponentComparator struct {
	Value  []byte
	Offset uint32
}

func (b BinaryComponentComparator) comparatorPB() (*pb.Comparator, error) {
	return wrapComparator("BinaryComponentComparator", &pb.BinaryComponentComparator{Value: b.Value, Offset: proto.Uint32(b.Offset)})
}

// NullComparator matches empty values (with Equal).
type NullComparator struct{}

func (NullComparator) comparatorPB() (*pb.Comparator, error) {
	return wrapComparator("NullComparator", &pb.NullComparator{})
}

// RegexStringComparator matches values against a Java regular expression
// (with Equal). Flags are java.util.regex.Pattern flags (2 = case-insensitive).
type RegexStringComparator struct {
	Pattern string
	Flags   int32
}

func (r RegexStringComparator) comparatorPB() (*pb.Comparator, error) {
	return wrapComparator("RegexStringComparator", &pb.RegexStringComparator{
		Pattern: proto.String(r.Pattern), PatternFlags: proto.Int32(r.Flags), Charset: proto.String("UTF-8")})
}

// SubstringComparator matches values containing a substring, ignoring case
// (with Equal).
type SubstringComparator string

func (s SubstringComparator) comparatorPB() (*pb.Comparator, error) {
	return wrapComparator("SubstringComparator", &pb.SubstringComparator{Substr: proto.String(string(s))})
}
