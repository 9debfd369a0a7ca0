package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// writebackStep is how much archive data accumulates before its writeback
// is started.
const writebackStep = 8 << 20

// writeback starts the kernel writing the archive's data to disk while the
// archive is still being produced (sync_file_range with
// SYNC_FILE_RANGE_WRITE returns at once), so that the fsync that makes the
// archive durable before it is renamed into place has little left to wait
// for. Durability itself still rests on that fsync.
type writeback struct {
	f                *os.File
	written, started int64
}

func newWriteback(f *os.File) *writeback { return &writeback{f: f} }

func (w *writeback) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	w.written += int64(n)
	if w.written-w.started >= writebackStep {
		if rc, err := w.f.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) {
				// Advisory: an error only means the final fsync does all
				// the work.
				_ = unix.SyncFileRange(int(fd), w.started, w.written-w.started, unix.SYNC_FILE_RANGE_WRITE)
			})
		}
		w.started = w.written
	}
	return n, err
}
