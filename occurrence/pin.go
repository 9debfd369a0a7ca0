package occurrence

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// ErrSnapshotGone is returned by Pin for a snapshot whose data the backend
// has already retired: the caller takes a new snapshot and pins that.
var ErrSnapshotGone = errors.New("snapshot retired")

// Pinner keeps a snapshot's data readable while a long scan (a download, a
// rollover) reads it. Backends retire the data of replaced snapshots (files,
// rows of replaced generations) once no pin and no retention rule needs it.
// Pins are visible to every process using the table (the API, the workers,
// `downloader rollover`), and a pin whose holder died expires: it lives for
// ttl after its last Refresh.
type Pinner interface {
	// Pin keeps snap's data until Release, or until ttl passes without a
	// Refresh. holder says who pins (a download key), for operators. A
	// snapshot whose data is already retired gives ErrSnapshotGone.
	Pin(ctx context.Context, snap Snapshot, holder string, ttl time.Duration) (Pin, error)
}

// Pin is one holder's claim on a snapshot.
type Pin interface {
	// Refresh extends the pin by its ttl from now.
	Refresh(ctx context.Context) error
	// Release drops the pin; the snapshot's data may be retired at the
	// backend's next cleanup. Releasing twice is not an error.
	Release(ctx context.Context) error
}

// PinSnapshot takes t's current snapshot and pins it for holder, taking a
// new snapshot when the one taken was retired before the pin was in place,
// and keeps the pin refreshed (KeepRefreshed) until the returned release is
// called, which also releases the pin.
func PinSnapshot(ctx context.Context, t interface {
	Table
	Pinner
}, holder string, ttl time.Duration, logger *slog.Logger) (Snapshot, func(), error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var snap Snapshot
	var pin Pin
	var err error
	for range 5 {
		if snap, err = t.Snapshot(ctx); err != nil {
			return Snapshot{}, nil, err
		}
		pin, err = t.Pin(ctx, snap, holder, ttl)
		if !errors.Is(err, ErrSnapshotGone) {
			break
		}
	}
	if err != nil {
		return Snapshot{}, nil, err
	}
	stop := KeepRefreshed(ctx, pin, ttl, logger.With("snapshot", snap.ID, "holder", holder))
	release := func() {
		stop()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := pin.Release(rctx); err != nil {
			logger.Warn("release snapshot pin", "snapshot", snap.ID, "holder", holder, "err", err)
		}
	}
	return snap, release, nil
}

// KeepRefreshed refreshes pin every ttl/3 until the returned stop is
// called (stop returns once refreshing has stopped; it does not release
// the pin). A failed refresh is logged: the pin lasts ttl from the last
// success.
func KeepRefreshed(ctx context.Context, pin Pin, ttl time.Duration, logger *slog.Logger) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(max(ttl/3, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ttl/2+time.Second)
				if err := pin.Refresh(rctx); err != nil {
					logger.Warn("refresh snapshot pin", "err", err)
				}
				cancel()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
