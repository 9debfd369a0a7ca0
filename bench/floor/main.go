// Command floor measures the compression floor of an export: the time
// klauspost/compress flate at a given level takes on N goroutines to deflate
// the same uncompressed bytes the export wrote (each goroutine streams its
// own contiguous part of the file). It prints seconds, MB/s and the
// compressed size.
//
//	go run ./bench/floor -level 5 -workers 2 FILE
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/klauspost/compress/flate"
)

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func main() {
	level := flag.Int("level", 5, "flate level")
	workers := flag.Int("workers", 2, "goroutines")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: floor [-level 5] [-workers 2] FILE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	size := st.Size()
	part := (size + int64(*workers) - 1) / int64(*workers)
	start := time.Now()
	var wg sync.WaitGroup
	out := make([]countWriter, *workers)
	errs := make([]error, *workers)
	for i := range *workers {
		wg.Go(func() {
			r := bufio.NewReaderSize(io.NewSectionReader(f, int64(i)*part, part), 1<<20)
			fw, _ := flate.NewWriter(&out[i], *level)
			if _, err := io.Copy(fw, r); err != nil {
				errs[i] = err
				return
			}
			errs[i] = fw.Close()
		})
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	var comp int64
	for i := range out {
		if errs[i] != nil {
			fmt.Fprintln(os.Stderr, errs[i])
			os.Exit(1)
		}
		comp += out[i].n
	}
	fmt.Printf("floor: %d bytes -> %d in %.3fs (%.1f MB/s, level %d, %d goroutines)\n",
		size, comp, secs, float64(size)/secs/1e6, *level, *workers)
}
