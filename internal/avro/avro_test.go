package avro

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/twmb/avro/ocf"
)

const testSchema = `{"type":"record","name":"R","namespace":"t","fields":[
{"name":"id","type":"string"},
{"name":"n","type":["long","null"]},
{"name":"x","type":["double","null"]},
{"name":"ok","type":["boolean","null"]},
{"name":"tags","type":[{"type":"array","items":["string","null"]},"null"]}]}`

type testRecord struct {
	ID   string   `avro:"id"`
	N    *int64   `avro:"n"`
	X    *float64 `avro:"x"`
	OK   *bool    `avro:"ok"`
	Tags []string `avro:"tags"`
}

// encode appends r in testSchema's binary form, as a download's encoders do.
func encode(dst []byte, r testRecord) []byte {
	dst = AppendString(dst, r.ID)
	if r.N == nil {
		dst = AppendLong(dst, 1)
	} else {
		dst = AppendLong(AppendLong(dst, 0), *r.N)
	}
	if r.X == nil {
		dst = AppendLong(dst, 1)
	} else {
		dst = AppendDouble(AppendLong(dst, 0), *r.X)
	}
	if r.OK == nil {
		dst = AppendLong(dst, 1)
	} else {
		dst = AppendBool(AppendLong(dst, 0), *r.OK)
	}
	if r.Tags == nil {
		return AppendLong(dst, 1)
	}
	dst = AppendLong(dst, 0)
	if len(r.Tags) > 0 {
		dst = AppendLong(dst, int64(len(r.Tags)))
		for _, t := range r.Tags {
			dst = AppendString(AppendLong(dst, 0), t)
		}
	}
	return AppendLong(dst, 0)
}

func records(n int) []testRecord {
	out := make([]testRecord, n)
	for i := range out {
		r := testRecord{ID: fmt.Sprintf("rec-%d-ñ", i)}
		if i%3 != 0 {
			v := int64(i*i) - 5000
			if i%7 == 0 {
				v = math.MinInt64 + int64(i)
			}
			r.N = &v
		}
		if i%4 != 0 {
			x := float64(i) / 3
			r.X = &x
		}
		if i%5 != 0 {
			b := i%2 == 0
			r.OK = &b
		}
		switch i % 3 {
		case 1:
			r.Tags = []string{}
		case 2:
			r.Tags = []string{"a", fmt.Sprint(i), ""}
		}
		out[i] = r
	}
	return out
}

func write(t *testing.T, recs []testRecord, opts Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	aw, err := NewWriter(&buf, testSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := aw.Commit(encode(aw.Buffer(), r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// read decodes a container with twmb/avro's reader, an implementation of
// its own.
func read(t *testing.T, data []byte) []testRecord {
	t.Helper()
	rd, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if c := string(rd.Metadata()["avro.codec"]); c != "deflate" {
		t.Errorf("codec %q", c)
	}
	var out []testRecord
	for {
		var r testRecord
		err := rd.Decode(&r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(out), err)
		}
		out = append(out, r)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	recs := records(5000)
	for _, opts := range []Options{
		{Workers: 1, BlockBytes: 1},       // a block per record
		{Workers: 3, BlockBytes: 4 << 10}, // blocks in flight out of order
		{},                                // defaults: one block
	} {
		t.Run(fmt.Sprintf("workers%d-block%d", opts.Workers, opts.BlockBytes), func(t *testing.T) {
			got := read(t, write(t, recs, opts))
			if len(got) != len(recs) {
				t.Fatalf("read %d records, wrote %d", len(got), len(recs))
			}
			for i := range recs {
				if !same(got[i], recs[i]) {
					t.Fatalf("record %d: read %s, wrote %s", i, show(got[i]), show(recs[i]))
				}
			}
		})
	}
}

func TestWriterWithoutRecords(t *testing.T) {
	data := write(t, nil, Options{})
	if got := read(t, data); len(got) != 0 {
		t.Fatalf("read %d records from an empty container", len(got))
	}
	if !bytes.HasPrefix(data, []byte("Obj\x01")) {
		t.Fatalf("no magic: %q", data[:4])
	}
}

func TestWriterAfterCloseAndAbort(t *testing.T) {
	aw, err := NewWriter(io.Discard, testSchema, Options{Workers: 2, BlockBytes: 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records(100) {
		if err := aw.Commit(encode(aw.Buffer(), r)); err != nil {
			t.Fatal(err)
		}
	}
	aw.Abort()
	if err := aw.Commit(encode(aw.Buffer(), records(1)[0])); !errors.Is(err, ErrClosed) {
		t.Fatalf("Commit after Abort: %v", err)
	}
	if err := aw.Close(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Close after Abort: %v", err)
	}
	if _, err := NewWriter(io.Discard, testSchema, Options{Level: 12}); err == nil {
		t.Fatal("level 12 accepted")
	}
}

// failAfter fails every write after the first n bytes.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriterReportsTheFailedWrite(t *testing.T) {
	aw, err := NewWriter(&failAfter{n: 2000}, testSchema, Options{Workers: 2, BlockBytes: 256})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for _, r := range records(2000) {
		if werr = aw.Commit(encode(aw.Buffer(), r)); werr != nil {
			break
		}
	}
	if werr == nil {
		werr = aw.Close()
	} else {
		aw.Abort()
	}
	if werr == nil || !bytes.Contains([]byte(werr.Error()), []byte("disk full")) {
		t.Fatalf("got %v, want the writer's error", werr)
	}
}

func TestAppendLong(t *testing.T) {
	// The Avro specification's examples of the zig-zag varint.
	for v, want := range map[int64]string{0: "\x00", -1: "\x01", 1: "\x02", -2: "\x03", 2: "\x04", -64: "\x7f", 64: "\x80\x01"} {
		if got := string(AppendLong(nil, v)); got != want {
			t.Errorf("AppendLong(%d) = %q, want %q", v, got, want)
		}
	}
}

func same(a, b testRecord) bool { return show(a) == show(b) }

func show(r testRecord) string {
	s := r.ID
	for _, p := range []any{r.N, r.X, r.OK} {
		switch v := p.(type) {
		case *int64:
			s += ptr(v)
		case *float64:
			s += ptr(v)
		case *bool:
			s += ptr(v)
		}
	}
	if r.Tags == nil {
		return s + " tags:null"
	}
	return s + fmt.Sprintf(" tags:%q", r.Tags)
}

func ptr[T any](p *T) string {
	if p == nil {
		return " null"
	}
	return fmt.Sprint(" ", *p)
}

// FuzzRoundTrip writes records of any values through a container (blocks
// of a few records on two workers) and reads them back with twmb/avro:
// every value must come back as it went in.
func FuzzRoundTrip(f *testing.F) {
	f.Add("rec", int64(0), 0.5, true, "a;b", uint8(3))
	f.Add("", int64(math.MinInt64), math.Inf(-1), false, "", uint8(0))
	f.Add("🦉\x00\xff", int64(math.MaxInt64), math.Copysign(0, -1), true, "x", uint8(200))
	f.Fuzz(func(t *testing.T, id string, n int64, x float64, ok bool, tag string, count uint8) {
		if math.IsNaN(x) {
			x = 0 // NaN is not equal to itself; its bits are not the point here
		}
		var recs []testRecord
		for i := range int(count)%40 + 1 {
			r := testRecord{ID: id + fmt.Sprint(i)}
			if i%2 == 0 {
				v, y, b := n+int64(i), x, ok != (i%3 == 0)
				r.N, r.X, r.OK = &v, &y, &b
			}
			if i%4 != 3 {
				r.Tags = make([]string, i%5)
				for k := range r.Tags {
					r.Tags[k] = tag
				}
			}
			recs = append(recs, r)
		}
		got := read(t, write(t, recs, Options{Workers: 2, BlockBytes: 64}))
		if len(got) != len(recs) {
			t.Fatalf("read %d records, wrote %d", len(got), len(recs))
		}
		for i := range recs {
			if !same(got[i], recs[i]) {
				t.Fatalf("record %d: read %s, wrote %s", i, show(got[i]), show(recs[i]))
			}
		}
	})
}
