// Package faultinject makes exports slow on demand for tests and drills:
// killing or cancelling a worker mid-export needs an export that lasts, and
// a real table cannot be made slow at will. Only tests import it, and the
// downloader binary built with the faultinject tag (its
// --test-export-throttle flag); production builds do not contain it.
package faultinject

import (
	"context"
	"io"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

// Throttle returns an Engine whose exports write the archive at no more than
// bytesPerSecond; bytesPerSecond <= 0 returns e itself.
func Throttle(e jobs.Engine, bytesPerSecond int64) jobs.Engine {
	if bytesPerSecond <= 0 {
		return e
	}
	return throttled{Engine: e, rate: bytesPerSecond}
}

type throttled struct {
	jobs.Engine
	rate int64
}

// Unwrap returns the throttled engine (the job service finds its TableInfo
// through it).
func (t throttled) Unwrap() jobs.Engine { return t.Engine }

func (t throttled) Export(ctx context.Context, req jobs.ExportRequest, w io.Writer, progress func(jobs.Progress)) (jobs.ExportResult, error) {
	return t.Engine.Export(ctx, req, &slowWriter{ctx: ctx, w: w, rate: t.rate}, progress)
}

type slowWriter struct {
	ctx  context.Context
	w    io.Writer
	rate int64
}

// Write passes p on in 4 KiB pieces, sleeping as long as each takes at rate.
func (s *slowWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(len(p), 4096)
		select {
		case <-s.ctx.Done():
			return n, s.ctx.Err()
		case <-time.After(time.Duration(int64(k) * int64(time.Second) / s.rate)):
		}
		m, err := s.w.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}
