package occurrence

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// BenchmarkEvalArrowCompute runs the same filters with Apache Arrow's own
// compute kernels (is_in, greater_equal/less_equal/and, or) on the same
// batches as BenchmarkEval: the peer for Eval's ns/row. The results are
// checked against Eval first.
func BenchmarkEvalArrowCompute(b *testing.B) {
	ctx := context.Background()
	rows := benchRows(DefaultBatchSize)
	mem := memory.NewGoAllocator()
	col := func(batch arrow.RecordBatch, name string) compute.Datum {
		return compute.NewDatum(batch.Column(batch.Schema().FieldIndices(name)[0]))
	}
	strSet := func(vals ...string) compute.Datum {
		bl := array.NewStringBuilder(mem)
		bl.AppendValues(vals, nil)
		return compute.NewDatum(bl.NewArray())
	}
	keys := make([]int64, 1000)
	for i := range keys {
		keys[i] = int64(1000 + i*37)
	}
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(keys, nil)
	keySet := compute.NewDatum(ib.NewArray())

	cases := []struct {
		name string
		js   string
		run  func(batch arrow.RecordBatch) (compute.Datum, error)
	}{
		{"country_in", benchPredicates[0].js, func(batch arrow.RecordBatch) (compute.Datum, error) {
			return compute.IsIn(ctx, compute.SetOptions{ValueSet: strSet("DK", "SE", "NO")}, col(batch, ColCountryCode))
		}},
		{"year_range", benchPredicates[1].js, func(batch arrow.RecordBatch) (compute.Datum, error) {
			y := col(batch, ColYear)
			ge, err := compute.CallFunction(ctx, "greater_equal", nil, y, compute.NewDatum(scalar.NewInt32Scalar(2000)))
			if err != nil {
				return nil, err
			}
			le, err := compute.CallFunction(ctx, "less_equal", nil, y, compute.NewDatum(scalar.NewInt32Scalar(2010)))
			if err != nil {
				return nil, err
			}
			return compute.CallFunction(ctx, "and", nil, ge, le)
		}},
		{"taxon_keys_1000", benchPredicates[3].js, func(batch arrow.RecordBatch) (compute.Datum, error) {
			var acc compute.Datum
			for _, c := range taxonKeyColumns {
				in, err := compute.IsIn(ctx, compute.SetOptions{ValueSet: keySet}, col(batch, c))
				if err != nil {
					return nil, err
				}
				if acc == nil {
					acc = in
					continue
				}
				if acc, err = compute.CallFunction(ctx, "or", nil, acc, in); err != nil {
					return nil, err
				}
			}
			return acc, nil
		}},
	}
	for _, c := range cases {
		p := mustParse(b, c.js)
		batch := buildBatch(b, p.Columns(), rows)
		sel := make([]bool, batch.NumRows())
		p.Eval(batch, sel)
		res, err := c.run(batch)
		if err != nil {
			b.Fatal(err)
		}
		got := res.(*compute.ArrayDatum).MakeArray().(*array.Boolean)
		for i := range sel {
			if (got.IsValid(i) && got.Value(i)) != sel[i] {
				b.Fatalf("%s: arrow compute and Eval disagree on row %d", c.name, i)
			}
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				d, err := c.run(batch)
				if err != nil {
					b.Fatal(err)
				}
				d.Release()
			}
			reportPerRow(b, batch)
		})
		batch.Release()
	}
}
