package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// progressBar draws one status line on a terminal: records scanned and
// matched, archive bytes, rate and ETA. It draws nothing when disabled.
type progressBar struct {
	w         io.Writer
	on        bool
	total     int64
	start     time.Time
	last      time.Time
	scan      occurrence.ScanStats
	matched   int64
	bytes     int64
	drawnOnce bool
}

func newProgressBar(w io.Writer, mode string, snap occurrence.Snapshot) *progressBar {
	p := &progressBar{w: w, start: time.Now()}
	for _, s := range snap.Splits {
		p.total += s.Rows
	}
	switch mode {
	case "always":
		p.on = true
	case "auto":
		p.on = isTerminal(w)
	}
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progressBar) progress(s download.ScanProgress) {
	p.scan, p.matched, p.bytes = s.Scan, s.Written, s.Bytes
	p.draw(false)
}

func (p *progressBar) done() {
	if p.drawnOnce {
		p.draw(true)
		fmt.Fprintln(p.w)
	}
}

func (p *progressBar) draw(force bool) {
	if !p.on {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	p.drawnOnce = true
	el := now.Sub(p.start).Seconds()
	// Splits report when done; pruned splits count as scanned for the ETA.
	done := p.scan.RowsScanned
	eta := "?"
	if done > 0 && p.total > done {
		eta = (time.Duration(el*float64(p.total-done)/float64(done)) * time.Second).Round(time.Second).String()
	} else if p.total > 0 && done >= p.total {
		eta = "0s"
	}
	pct := 0.0
	if p.total > 0 {
		pct = 100 * float64(min(done, p.total)) / float64(p.total)
	}
	fmt.Fprintf(p.w, "\r%5.1f%% scanned %d/%d, matched %d, %s written, %.0f records/s, ETA %s   ",
		pct, done, p.total, p.matched, humanBytes(p.bytes), float64(p.matched)/max(el, 1e-3), eta)
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
