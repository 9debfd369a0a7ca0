package main

import (
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"strings"

	"github.com/biodiversity-downloads/downloader/occurrence"
)

// markers are target_gene values as eDNA datasets publish them, with the
// length of their reads.
var markers = []struct {
	gene   string
	length int
}{{"COI", 313}, {"12S rRNA", 170}, {"18S", 400}, {"ITS2", 330}, {"rbcL", 550}, {"MiFish-U 12S", 170}, {"16S", 250}}

// addDNA gives a share of the records DNA-derived data rows, as ingest
// stores them (the extensions JSON, isSequenced and the DNA columns):
// one to three reads of a marker each, some in lower case, with gaps or
// runs of N, a few not sequences at all. The others get isSequenced
// false, as ingest sets it.
func addDNA(rec *occurrence.Record, dataset string, j int, share float64) {
	h := fnv.New64a()
	h.Write([]byte(dataset))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(j)))
	idx := occurrence.ColumnIndex
	if r.Float64() >= share {
		rec.SetBool(idx("isSequenced"), false)
		return
	}
	var rows []map[string]string
	for range 1 + r.IntN(3) {
		m := markers[r.IntN(len(markers))]
		rows = append(rows, map[string]string{
			"http://rs.gbif.org/terms/dna_sequence": read(r, m.length),
			"https://w3id.org/mixs/0000044":         m.gene,
		})
	}
	js, _ := json.Marshal(map[string]any{occurrence.RowTypeDNADerivedData: rows})
	rec.SetString(idx(occurrence.ColExtensions), string(js))
	rec.SetBool(idx("isSequenced"), true)
}

// read is a read of about n bases.
func read(r *rand.Rand, n int) string {
	var b strings.Builder
	n += r.IntN(40) - 20
	for i := 0; i < n; i++ {
		b.WriteByte("ACGT"[r.IntN(4)])
	}
	s := b.String()
	switch r.IntN(20) {
	case 0:
		s = strings.ToLower(s)
	case 1:
		s = s[:n/2] + "--" + s[n/2:]
	case 2:
		s = s[:n/3] + "NNNNNNNNNN" + s[n/3:]
	case 3:
		s = "UNMERGED"
	}
	return s
}
