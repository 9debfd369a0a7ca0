package occurrence

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestSetOwned: a value set from the record's own buffer reads as the bytes
// given, empty is null, and a batch built before the buffer is reused keeps
// the first value (the builder copies it).
func TestSetOwned(t *testing.T) {
	i := ColumnIndex(ColVerbatim)
	r := NewRecord()
	buf := []byte(`{"a":"1"}`)
	r.SetOwned(i, buf)
	buf[2] = 'x' // the record holds a copy
	if v := r.Get(i); !v.Valid || v.S != `{"a":"1"}` {
		t.Fatalf("got %+v", v)
	}
	b := NewBuilder()
	defer b.Release()
	b.Append(r)
	batch := b.NewBatch()
	defer batch.Release()
	r.SetOwned(i, []byte(`{"b":"2"}`))
	if got := batch.Column(i).(*array.String).Value(0); got != `{"a":"1"}` {
		t.Errorf("batch holds %q after the record's buffer was reused", got)
	}
	if v := r.Get(i); v.S != `{"b":"2"}` {
		t.Errorf("second value %q", v.S)
	}
	r.SetOwned(i, nil)
	if r.Get(i).Valid {
		t.Errorf("empty bytes set a value")
	}
}
