// Command taxonomy generates a large checklist from the structure of the
// GBIF backbone cut in taxonomy/testdata and measures name matching on it
// (bench/taxonomy.sh runs it; figures in BENCHMARKS.md).
//
//	taxonomy gen -n 2000000 -o checklist.zip
//	taxonomy match -dir TAXONOMY_DIR -archive checklist.zip -records 1000000 -workers 2
package main

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/biodiversity-downloads/downloader/taxonomy"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: taxonomy gen|match [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "match":
		err = match(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "taxonomy:", err)
		os.Exit(1)
	}
}

// cutRow is a row of the backbone cut's taxon.txt.
type cutRow struct {
	id, parent, accepted, name, rank, status string
	cls                                      [6]string
}

// eachRow calls fn with the cells of every row of an archive's taxon.txt
// with the 12 columns gen writes (the cut has the same).
func eachRow(path string, fn func(v []string)) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.Name != "taxon.txt" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		sc := bufio.NewScanner(rc)
		sc.Scan() // header
		for sc.Scan() {
			if v := strings.Split(sc.Text(), "\t"); len(v) == 12 {
				fn(v)
			}
		}
		return sc.Err()
	}
	return errors.New("no taxon.txt in " + path)
}

func readCut(path string) ([]cutRow, error) {
	var rows []cutRow
	err := eachRow(path, func(v []string) {
		r := cutRow{id: v[0], parent: v[1], accepted: v[2], name: v[3], rank: v[4], status: v[5]}
		copy(r.cls[:], v[6:12])
		rows = append(rows, r)
	})
	return rows, err
}

var syllables = strings.Fields("ab ac ad al am an ar as at ba be bi bo bu ca ce ch ci co cu da de di do du el em en er es eu fa fe fi fo ga ge gi go gu ha he hi ho hy ia il in ir is la le li lo lu ly ma me mi mo mu my na ne ni no nu ob oc od ol om on or os pa pe ph pi po pr pu py ra re rh ri ro ru sa sc se si so st su ta te th ti to tr tu ty ul um un ur us va ve vi vo xa xe za ze zo")
var genusEnds = strings.Fields("us a ia ella opsis ites odes ium ina ura ax on ops is")
var epithetEnds = strings.Fields("ensis ii ata us a um oides ica ifolia iformis ana ella ina osa ula is")

func word(r *rand.Rand, n int, ends []string) string {
	var b strings.Builder
	for range n {
		b.WriteString(syllables[r.IntN(len(syllables))])
	}
	b.WriteString(ends[r.IntN(len(ends))])
	return b.String()
}

// gen writes a checklist of about n usages: the cut's higher taxa down to
// families, then generated genera (Zipf-distributed over the families),
// species (geometric, mean 7 a genus), synonyms (~15%) and infraspecific
// taxa (~5%), with authorships taken from the cut.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	n := fs.Int("n", 2_000_000, "usages to write")
	out := fs.String("o", "checklist.zip", "archive to write")
	from := fs.String("from", "taxonomy/testdata/gbif-backbone-cut.zip", "the backbone cut")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rows, err := readCut(*from)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(*seed, 2))
	higher := map[string]bool{"KINGDOM": true, "PHYLUM": true, "CLASS": true, "ORDER": true, "FAMILY": true}
	ids := map[string]bool{}
	var keep, families []cutRow
	var authors []string
	for _, row := range rows {
		if higher[row.rank] && row.status == "ACCEPTED" {
			keep = append(keep, row)
			ids[row.id] = true
			if row.rank == "FAMILY" {
				families = append(families, row)
			}
		}
		if row.rank == "SPECIES" {
			pn := taxonomy.Parse(row.name, taxonomy.RankSpecies, taxonomy.CodeUnknown)
			if a := pn.AuthorshipString(); a != "" {
				authors = append(authors, a)
			}
		}
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	w, err := zw.Create("taxon.txt")
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintln(bw, "taxonID\tparentNameUsageID\tacceptedNameUsageID\tscientificName\ttaxonRank\ttaxonomicStatus\tkingdom\tphylum\tclass\torder\tfamily\tgenus")
	count := 0
	emit := func(id, parent, acc, name, rank, status string, cls [6]string) {
		fmt.Fprintf(bw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", id, parent, acc, name, rank, status, strings.Join(cls[:], "\t"))
		count++
	}
	for _, row := range keep {
		p := row.parent
		if !ids[p] {
			p = ""
		}
		emit(row.id, p, "", row.name, row.rank, "ACCEPTED", row.cls)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(families)-1))
	next := 100_000_000
	id := func() string { next++; return fmt.Sprint(next) }
	author := func() string { return authors[r.IntN(len(authors))] }
	genera := map[string]bool{}
	for count < *n {
		fam := families[zipf.Uint64()]
		g := ""
		for g == "" || genera[g] {
			g = word(r, 1+r.IntN(3), genusEnds)
			g = strings.ToUpper(g[:1]) + g[1:]
		}
		genera[g] = true
		cls := fam.cls
		cls[4], cls[5] = strings.Fields(fam.name)[0], g
		gid := id()
		emit(gid, fam.id, "", g+" "+author(), "GENUS", "ACCEPTED", cls)
		species := 1 + int(r.ExpFloat64()*6)
		epithets := map[string]bool{}
		for range species {
			e := ""
			for e == "" || epithets[e] {
				e = word(r, 1+r.IntN(3), epithetEnds)
			}
			epithets[e] = true
			sid := id()
			emit(sid, gid, "", g+" "+e+" "+author(), "SPECIES", "ACCEPTED", cls)
			for r.Float64() < 0.15 {
				se := word(r, 1+r.IntN(3), epithetEnds)
				emit(id(), "", sid, g+" "+se+" "+author(), "SPECIES", "SYNONYM", cls)
			}
			if r.Float64() < 0.05 {
				for range 1 + r.IntN(3) {
					emit(id(), sid, "", g+" "+e+" subsp. "+word(r, 1+r.IntN(2), epithetEnds)+" "+author(), "SUBSPECIES", "ACCEPTED", cls)
				}
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	m, err := zw.Create("meta.xml")
	if err != nil {
		return err
	}
	io.WriteString(m, `<archive xmlns="http://rs.tdwg.org/dwc/text/"><core encoding="UTF-8" fieldsTerminatedBy="\t" linesTerminatedBy="\n" fieldsEnclosedBy="" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Taxon"><files><location>taxon.txt</location></files><id index="0"/>`)
	for i, t := range strings.Fields("taxonID parentNameUsageID acceptedNameUsageID scientificName taxonRank taxonomicStatus kingdom phylum class order family genus") {
		fmt.Fprintf(m, `<field index="%d" term="http://rs.tdwg.org/dwc/terms/%s"/>`, i, t)
	}
	io.WriteString(m, `</core></archive>`)
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d usages, %d genera\n", *out, count, len(genera))
	return nil
}

// sample is a name of the generated checklist used to build queries.
type sample struct{ name, kingdom, family string }

// samples reads d species and infraspecific names (accepted and synonyms)
// of the archive at random.
func samples(path string, d int, r *rand.Rand) ([]sample, error) {
	var out []sample
	seen := 0
	err := eachRow(path, func(v []string) {
		if v[4] != "SPECIES" && v[4] != "SUBSPECIES" {
			return
		}
		seen++
		s := sample{name: v[3], kingdom: v[6], family: v[10]}
		if len(out) < d {
			out = append(out, s)
		} else if j := r.IntN(seen); j < d {
			out[j] = s
		}
	})
	return out, err
}

// queries turns samples into record queries: classifications on 70%, the
// authorship dropped from 60%, 5% misspelt and 3% unknown species of a
// known genus.
func queries(ss []sample, r *rand.Rand) (qs []taxonomy.Query, misspelt int) {
	for _, s := range ss {
		pn := taxonomy.Parse(s.name, taxonomy.RankUnknown, taxonomy.CodeUnknown)
		name := s.name
		if r.Float64() < 0.6 {
			name = pn.CanonicalName()
		}
		switch x := r.Float64(); {
		case x < 0.05:
			w := strings.Fields(name)
			e := []byte(w[1])
			i := 1 + r.IntN(len(e)-1)
			e[i] = "aeioulnrst"[r.IntN(10)]
			w[1] = string(e)
			name = strings.Join(w, " ")
			misspelt++
		case x < 0.08:
			name = pn.Genus + " " + word(r, 2, epithetEnds)
		}
		q := taxonomy.Query{ScientificName: name, Occurrence: true}
		if r.Float64() < 0.7 {
			q.Kingdom, q.Family = s.kingdom, s.family
		}
		qs = append(qs, q)
	}
	return qs, misspelt
}

func match(args []string) error {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	dir := fs.String("dir", "", "taxonomy directory with the loaded checklist")
	archive := fs.String("archive", "", "the checklist archive (to sample names)")
	distinct := fs.Int("distinct", 50_000, "distinct names among the records")
	records := fs.Int("records", 1_000_000, "records to match")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "matching goroutines")
	cacheSize := fs.Int("cache", 100_000, "match cache size")
	uncached := fs.Bool("uncached", false, "also match every distinct name once without the cache")
	seed := fs.Uint64("seed", 7, "random seed")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the matching")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	r := rand.New(rand.NewPCG(*seed, 3))
	ss, err := samples(*archive, *distinct, r)
	if err != nil {
		return err
	}
	qs, misspelt := queries(ss, r)
	c, err := taxonomy.Open(*dir)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	// records: Zipf-distributed over the distinct names
	order := make([]int32, *records)
	z := rand.NewZipf(r, 1.1, 2, uint64(len(qs)-1))
	for i := range order {
		order[i] = int32(z.Uint64())
	}
	cache := taxonomy.NewCache(c, *cacheSize)
	cpu0 := cpuSeconds()
	var next atomic.Int64
	var types [4]atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(len(order)) {
					return
				}
				m, err := cache.Match(ctx, qs[order[i]])
				if err != nil {
					panic(err)
				}
				types[m.Type].Add(1)
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	cpu := cpuSeconds() - cpu0
	hits, misses := cache.Stats()
	fmt.Printf("records: %d in %.2fs (%.2f CPU s) = %.0f records/s, %.0f records/CPU-s with %d workers; cache hit rate %.1f%% (%d distinct queries, %d misspelt); EXACT %d FUZZY %d HIGHERRANK %d NONE %d\n",
		*records, el.Seconds(), cpu, float64(*records)/el.Seconds(), float64(*records)/cpu, *workers, 100*float64(hits)/float64(hits+misses),
		len(qs), misspelt, types[taxonomy.MatchExact].Load(), types[taxonomy.MatchFuzzy].Load(),
		types[taxonomy.MatchHigherRank].Load(), types[taxonomy.MatchNone].Load())
	if *uncached {
		start, cpu0 = time.Now(), cpuSeconds()
		for _, q := range qs {
			if _, err := c.Match(ctx, q); err != nil {
				return err
			}
		}
		el, cpu = time.Since(start), cpuSeconds()-cpu0
		fmt.Printf("uncached: %d distinct queries in %.2fs (%.2f CPU s) = %.0f names/s, %.0f names/CPU-s (1 goroutine)\n",
			len(qs), el.Seconds(), cpu, float64(len(qs))/el.Seconds(), float64(len(qs))/cpu)
	}
	return nil
}
