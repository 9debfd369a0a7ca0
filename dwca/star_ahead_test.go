package dwca

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// aheadArchive is an archive whose core has n rows, some broken (invalid
// UTF-8) and some long enough (1.1 MB) to end a batch by bytes alone.
func aheadArchive(t *testing.T, n int) *Archive {
	t.Helper()
	var b strings.Builder
	b.WriteString("id\tlocality\n")
	for i := range n {
		switch {
		case i%301 == 7:
			fmt.Fprintf(&b, "r%d\tbad \xff\n", i)
		case i%997 == 11:
			fmt.Fprintf(&b, "r%d\t%s\n", i, strings.Repeat("long locality ", 80000))
		default:
			fmt.Fprintf(&b, "r%d\tplace %d\n", i, i)
		}
	}
	meta := `<archive><core encoding="UTF-8" fieldsTerminatedBy="\t" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
<files><location>occ.txt</location></files><id index="0"/>
<field index="1" term="http://rs.tdwg.org/dwc/terms/locality"/></core></archive>`
	a, err := Open(context.Background(), writeDir(t, map[string]string{"meta.xml": meta, "occ.txt": b.String()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestRowsAheadAsNext: rows read ahead come out as RowReader.Next gives
// them, broken rows in their places, over batches ended by rows and by
// bytes, and the end repeats.
func TestRowsAheadAsNext(t *testing.T) {
	a := aheadArchive(t, 3000)
	direct, err := a.Rows(context.Background(), a.Meta.Core)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	rr, err := a.Rows(context.Background(), a.Meta.Core)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	prepared := 0
	ahead := readAhead(rr, func(x *rowOrErr) { x.size = int64(len(x.row.Cells())); x.prepared = true })
	defer ahead.close()
	rows, broken := 0, 0
	for {
		want, werr := direct.Next()
		x := ahead.next()
		got, gerr := x.row, x.err
		if x.prepared {
			prepared++
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("row %d: error %v, want %v", rows, gerr, werr)
		}
		if !reflect.DeepEqual(got.Cells(), want.Cells()) || got.Line() != want.Line() || got.File() != want.File() {
			t.Fatalf("row %d: %q line %d, want %q line %d", rows, got.Cells(), got.Line(), want.Cells(), want.Line())
		}
		if werr == io.EOF {
			break
		}
		var re *RowError
		if errors.As(werr, &re) {
			broken++
		} else if werr != nil {
			t.Fatal(werr)
		}
		rows++
	}
	if rows != 3000 || broken != 10 || prepared != rows-broken {
		t.Fatalf("%d rows, %d broken, %d prepared; want 3000, 10 and 2990", rows, broken, prepared)
	}
	if x := ahead.next(); x.err != io.EOF {
		t.Fatalf("after the end: %v", x.err)
	}
}

// TestRowsAheadClosedEarly: closing before the end stops the goroutine
// (close returns) and later reads say so.
func TestRowsAheadClosedEarly(t *testing.T) {
	a := aheadArchive(t, 5000)
	rr, err := a.Rows(context.Background(), a.Meta.Core)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	ahead := readAhead(rr, nil)
	if x := ahead.next(); x.err != nil {
		t.Fatal(x.err)
	}
	ahead.close()
	if x := ahead.next(); !errors.Is(x.err, errAheadClosed) {
		t.Fatalf("after close: %v", x.err)
	}
}
