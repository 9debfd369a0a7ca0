package jobs

import (
	"context"
	"io"
	"time"
)

// Throttle returns an Engine whose exports write the archive at no more than
// bytesPerSecond. It is fault injection for tests and drills (killing or
// cancelling a worker mid-export needs an export that lasts, and a real table
// cannot be made slow on demand); it is not meant for production.
func Throttle(e Engine, bytesPerSecond int64) Engine {
	if bytesPerSecond <= 0 {
		return e
	}
	return throttled{Engine: e, rate: bytesPerSecond}
}

type throttled struct {
	Engine
	rate int64
}

func (t throttled) Export(ctx context.Context, req ExportRequest, w io.Writer, progress func(Progress)) (ExportResult, error) {
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
