package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/biodiversity-downloads/downloader/download"
)

// CountLimit bounds the record counts of one class of callers.
type CountLimit struct {
	// Concurrent is how many counts of the class run at once; one more is
	// refused with ErrTooManyCounts.
	Concurrent int
	// Timeout is how long a count may run; it is then stopped (the scan is
	// cancelled) and answered with ErrCountTimeout.
	Timeout time.Duration
}

func (l CountLimit) withDefaults(concurrent int, timeout time.Duration) CountLimit {
	if l.Concurrent <= 0 {
		l.Concurrent = concurrent
	}
	if l.Timeout <= 0 {
		l.Timeout = timeout
	}
	return l
}

// Estimate is a count with the archive size it would make.
type Estimate struct {
	Count                     int64  `json:"count"`
	EstimatedUncompressedSize int64  `json:"estimatedUncompressedSize"`
	EstimatedCompressedSize   int64  `json:"estimatedCompressedSize"`
	Format                    string `json:"format"`
}

// Count counts the records of a predicate the format's export reads (for
// FASTA_ARCHIVE, those that may have a sequence) and estimates the
// archive size:
// the average bytes per record of the format's succeeded downloads, else
// the format's own estimate (download.FormatInfo), and its compression
// ratio. The predicate's cost is checked before anything runs (as a
// download's is); the count then runs in one of the caller's class's slots
// (anonymous callers, caller nil, have fewer and shorter ones than
// signed-in users): with every slot taken it fails with ErrTooManyCounts,
// and past the class's timeout its scan is cancelled and it fails with
// ErrCountTimeout.
func (s *Service) Count(ctx context.Context, caller *User, format string, predicate json.RawMessage) (Estimate, error) {
	if s.engine == nil {
		return Estimate{}, ErrEngineUnavailable
	}
	if format == "" {
		format = string(download.FormatDWCA)
	}
	info, err := download.LookupFormat(format)
	if err != nil {
		return Estimate{}, fmt.Errorf("%w: format %q", ErrUnknownFormat, format)
	}
	pred, err := s.engine.CheckPredicate(predicate)
	if err != nil {
		return Estimate{}, err
	}
	// The records the format's export reads (a FASTA archive's: those that
	// may have a sequence).
	if pred, err = download.NarrowPredicateJSON(info.Name, pred); err != nil {
		return Estimate{}, err
	}
	n, err := s.countLimited(ctx, caller, pred)
	if err != nil {
		return Estimate{}, err
	}
	per, err := s.db.averageBytesPerRecord(ctx, format)
	if err != nil || per == 0 {
		per = info.BytesPerRecord
	}
	comp := int64(per * float64(n))
	return Estimate{Count: n, EstimatedCompressedSize: comp, Format: format,
		EstimatedUncompressedSize: int64(float64(comp) * info.CompressionRatio)}, nil
}

// countLimited runs the engine's count in a slot of the caller's class,
// under the class's deadline (Admit).
func (s *Service) countLimited(ctx context.Context, caller *User, pred json.RawMessage) (int64, error) {
	var n int64
	err := s.Admit(ctx, caller, "count", func(ctx context.Context) error {
		var err error
		n, err = s.engine.Count(ctx, pred)
		return err
	})
	return n, err
}

// Admit runs scan, work that reads the table for an API request (a count,
// a search page with its count and facets), in a slot of the caller's
// class under the class's deadline: anonymous callers (caller nil) have
// fewer and shorter ones than signed-in users. With every slot taken it
// waits up to Config.CountWait for one, then fails with ErrTooManyCounts;
// past the deadline scan's context is
// cancelled and it fails with ErrCountTimeout. what names the work in
// errors ("count", "search").
func (s *Service) Admit(ctx context.Context, caller *User, what string, scan func(context.Context) error) error {
	lim, slots, who := s.cfg.AnonymousCounts, s.anonCounts, "anonymous callers"
	if caller != nil {
		lim, slots, who = s.cfg.UserCounts, s.userCounts, "signed-in users"
	}
	if err := s.takeSlot(ctx, slots); errors.Is(err, ErrTooManyCounts) {
		return fmt.Errorf("%w: %d counts and searches of %s are running, the limit; retry later", ErrTooManyCounts, lim.Concurrent, who)
	} else if err != nil {
		return err
	}
	defer func() { <-slots }()
	cctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	err := scan(cctx)
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		hint := "narrow the predicate"
		if caller == nil && s.cfg.UserCounts.Timeout > lim.Timeout {
			hint += fmt.Sprintf(", or sign in (signed-in users' counts may run %s)", s.cfg.UserCounts.Timeout)
		}
		return fmt.Errorf("%w: the %s ran longer than %s, the limit for %s, and was stopped; %s", ErrCountTimeout, what, lim.Timeout, who, hint)
	}
	return err
}

// takeSlot takes a slot of slots, waiting up to Config.CountWait (not at
// all when it is not positive; WithDefaults turns 0 into 2 s) or
// until ctx ends.
func (s *Service) takeSlot(ctx context.Context, slots chan struct{}) error {
	select {
	case slots <- struct{}{}:
		return nil
	default:
	}
	if s.cfg.CountWait <= 0 {
		return ErrTooManyCounts
	}
	t := time.NewTimer(s.cfg.CountWait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return nil
	case <-t.C:
		return ErrTooManyCounts
	case <-ctx.Done():
		return ctx.Err()
	}
}
