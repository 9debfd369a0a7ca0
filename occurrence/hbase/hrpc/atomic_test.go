package hrpc

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"testing"
)

func TestIncrement(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, nil)
	row, fam, q := []byte("counter"), []byte("f"), []byte("n")
	if v, err := c.Increment(ctx, table, row, fam, q, 1000); err != nil || v != 1000 {
		t.Fatalf("first increment = %d, %v; want 1000 (a missing counter is 0)", v, err)
	}
	// Concurrent increments never return the same value.
	const workers, each = 4, 25
	seen := make(chan int64, workers*each)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				v, err := c.Increment(ctx, table, row, fam, q, 10)
				if err != nil {
					t.Error(err)
					return
				}
				seen <- v
			}
		}()
	}
	wg.Wait()
	close(seen)
	got := map[int64]bool{}
	for v := range seen {
		if got[v] || v <= 1000 || v > 1000+10*workers*each || v%10 != 0 {
			t.Fatalf("increment returned %d (repeated or out of range)", v)
		}
		got[v] = true
	}
	r, err := c.Get(ctx, table, row)
	if err != nil || r == nil || binary.BigEndian.Uint64(r.Cells[0].Value) != 1000+10*workers*each {
		t.Fatalf("counter cell after the increments: %+v, %v", r, err)
	}
}

func TestGetRowsAcrossRegions(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, [][]byte{rowKey(100), rowKey(200)})
	fill(t, c, table, 300)
	keys := [][]byte{rowKey(250), []byte("missing"), rowKey(5), rowKey(150), rowKey(5), rowKey(299)}
	rows, err := c.GetRows(ctx, table, keys, Column{Family: []byte("f"), Qualifiers: [][]byte{[]byte("v")}})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if string(k) == "missing" {
			if rows[i] != nil {
				t.Errorf("missing row read as %+v", rows[i])
			}
			continue
		}
		var n int
		fmt.Sscanf(string(k), "r%d", &n)
		if rows[i] == nil || len(rows[i].Cells) != 1 || string(rows[i].Cells[0].Value) != fmt.Sprintf("value-%d", n) {
			t.Errorf("row %q = %+v", k, rows[i])
		}
	}
}

// TestCheckAndPutAll: a put conditioned on an absent cell happens once per
// row however many writers race for it, and one conditioned on a value
// only when the cell holds it.
func TestCheckAndPutAll(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	table := testTable(t, c, [][]byte{rowKey(50)})
	fam, q := []byte("f"), []byte("id")
	const rows, writers = 100, 3
	won := make([][]bool, writers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			puts := make([]CheckAndPut, rows)
			for i := range puts {
				puts[i] = CheckAndPut{Family: fam, Qualifier: q, Put: &Mutation{Row: rowKey(i),
					Cells: []Cell{{Family: fam, Qualifier: q, Value: []byte{byte(w)}}}}}
			}
			var err error
			if won[w], err = c.CheckAndPutAll(ctx, table, puts); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	keys := make([][]byte, rows)
	for i := range keys {
		keys[i] = rowKey(i)
	}
	stored, err := c.GetRows(ctx, table, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		winners := 0
		for w := 0; w < writers; w++ {
			if won[w][i] {
				winners++
				if v := stored[i].Cells[0].Value; len(v) != 1 || int(v[0]) != w {
					t.Fatalf("row %d: writer %d won but the row holds %v", i, w, v)
				}
			}
		}
		if winners != 1 {
			t.Fatalf("row %d: %d writers' puts-if-absent happened, want 1", i, winners)
		}
	}
	// A put conditioned on a value: only where the cell holds it.
	v := stored[0].Cells[0].Value
	other := []byte{v[0] + 1}
	res, err := c.CheckAndPutAll(ctx, table, []CheckAndPut{
		{Family: fam, Qualifier: q, Value: v, Put: &Mutation{Row: rowKey(0), Cells: []Cell{{Family: fam, Qualifier: q, Value: []byte("x")}}}},
		{Family: fam, Qualifier: q, Value: other, Put: &Mutation{Row: rowKey(0), Cells: []Cell{{Family: fam, Qualifier: q, Value: []byte("y")}}}},
	})
	if err != nil || !res[0] || res[1] {
		t.Fatalf("conditional puts on a value = %v, %v; want [true false]", res, err)
	}
	if r, err := c.Get(ctx, table, rowKey(0)); err != nil || string(r.Cells[0].Value) != "x" {
		t.Fatalf("row 0 after the conditional puts: %+v, %v", r, err)
	}
}
