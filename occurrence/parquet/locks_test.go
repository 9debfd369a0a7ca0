package parquet

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The writing marker: cleanup leaves a directory alone while its writer
// holds the marker's lock, and takes it for abandoned when the marker is
// gone or held by nobody (a crashed writer's).
func TestWriterMarker(t *testing.T) {
	dir := t.TempDir()
	if writerAlive(dir) {
		t.Fatal("a directory without a marker counts as being written")
	}
	m, err := markWriting(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !writerAlive(dir) {
		t.Fatal("a locked marker does not count as a live writer")
	}
	unmarkWriting(dir, m)
	if _, err := os.Stat(filepath.Join(dir, writingMarker)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("marker left after unmarkWriting: %v", err)
	}
	if writerAlive(dir) {
		t.Fatal("a finished writer still counts as alive")
	}
	if err := os.WriteFile(filepath.Join(dir, writingMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if writerAlive(dir) {
		t.Fatal("a crashed writer's marker (no lock held) counts as alive")
	}
}

func TestRolloverLockExcludes(t *testing.T) {
	s, err := Open(t.TempDir(), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := s.rolloverLock()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.rolloverLock(); !errors.Is(err, ErrRolloverRunning) {
		t.Fatalf("second rollover lock: %v, want ErrRolloverRunning", err)
	}
	unlock()
	again, err := s.rolloverLock()
	if err != nil {
		t.Fatalf("rollover lock after release: %v", err)
	}
	again()
}

func TestWriterLockWaits(t *testing.T) {
	s, err := Open(t.TempDir(), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := s.lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	if _, err := s.lock(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("lock held elsewhere: %v, want the context's deadline", err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		close(released)
		unlock()
	}()
	second, err := s.lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-released:
	default:
		t.Fatal("the lock was taken while another holder had it")
	}
	second()
}
