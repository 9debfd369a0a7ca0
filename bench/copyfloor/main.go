// Command copyfloor measures what an export could at best cost if the table
// stored every record's archive line already formatted: the lines of the text
// an export wrote are cut into pages and Snappy-encoded as the table's pages
// are (untimed, that would be ingest's work), then, timed, every page is
// decoded (with as many more again as the predicate's unmatched records
// would add), its lines are written one by one into the archive writer the
// exports use (pzip, flate level 5, 2 workers) and SHA-256 is taken of the
// archive, as an export does. No column is decoded, no value formatted.
//
//	go run ./bench/copyfloor -unmatched 0.15 FILE
//
// It prints the wall and CPU seconds (user + system of the timed part), the
// archive's size and the stored pages' size.
package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/pzip"
	"github.com/klauspost/compress/snappy"
)

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// pages reads r and cuts it into Snappy-encoded pages of whole lines of
// about size bytes; only the encoded pages are held.
func pages(r io.Reader, size int) ([][]byte, error) {
	var out [][]byte
	buf := make([]byte, 0, 2*size)
	for {
		n, err := io.ReadFull(r, buf[len(buf):size])
		buf = buf[:len(buf)+n]
		end := len(buf)
		if err == nil {
			if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
				end = i + 1
			}
		}
		if end > 0 {
			out = append(out, snappy.Encode(nil, buf[:end]))
		}
		buf = append(buf[:0], buf[end:]...)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// copyLines decodes every page and writes its lines into one archive entry;
// extra more pages are decoded and dropped, as a scan drops unmatched records.
func copyLines(stored [][]byte, extra, workers int) (int64, error) {
	var out countWriter
	zw, err := pzip.NewWriter(io.MultiWriter(&out, sha256.New()), pzip.Options{Level: 5, Workers: workers})
	if err != nil {
		return 0, err
	}
	w, err := zw.Create("occurrence.txt")
	if err != nil {
		return 0, err
	}
	var page []byte
	for i := range len(stored) + extra {
		n, err := snappy.DecodedLen(stored[i%len(stored)])
		if err != nil {
			return 0, err
		}
		if cap(page) < n {
			page = make([]byte, n)
		}
		buf, err := snappy.Decode(page[:n], stored[i%len(stored)])
		if err != nil {
			return 0, err
		}
		if i >= len(stored) {
			continue
		}
		for len(buf) > 0 {
			j := bytes.IndexByte(buf, '\n') + 1
			if j == 0 {
				j = len(buf)
			}
			if _, err := w.Write(buf[:j]); err != nil {
				return 0, err
			}
			buf = buf[j:]
		}
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return out.n, nil
}

func main() {
	pageSize := flag.Int("page", 1<<20, "bytes of text a page holds")
	unmatched := flag.Float64("unmatched", 0.15, "fraction of the scanned records the predicate drops")
	workers := flag.Int("workers", 2, "deflating goroutines")
	flag.Parse()
	if flag.NArg() != 1 || *unmatched < 0 || *unmatched >= 1 {
		fmt.Fprintln(os.Stderr, "usage: copyfloor [-page BYTES] [-unmatched 0.15] [-workers 2] FILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stored, err := pages(f, *pageSize)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if len(stored) == 0 {
		fmt.Fprintln(os.Stderr, "copyfloor: empty file")
		os.Exit(1)
	}
	var storedBytes int
	for _, p := range stored {
		storedBytes += len(p)
	}
	extra := int(float64(len(stored)) * *unmatched / (1 - *unmatched))
	c0, t0 := cpuSeconds(), time.Now()
	archive, err := copyLines(stored, extra, *workers)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("copyfloor: %.3f s wall %.3f s CPU, %d pages (+%d unmatched) of %d stored bytes -> %d archive bytes\n",
		time.Since(t0).Seconds(), cpuSeconds()-c0, len(stored), extra, storedBytes, archive)
}
