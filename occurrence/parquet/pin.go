package parquet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
	"github.com/biodiversity-downloads/downloader/occurrence"
)

// Pins. A scan that must outlive the retention rules (a download, a
// rollover's input) pins its snapshot with a file under pins/:
//
//	pins/<snapshot>-<random>.pin     {"snapshot":N,"holder":...,"ttlMs":...}
//
// The file's modification time is the holder's last heartbeat: Refresh
// touches it, and a pin whose mtime is older than its ttl (plus
// pinClockSkew, for processes on other machines sharing the directory) has
// expired, its holder gone. Files rather than a database because the table
// directory is the one thing every process using the table shares (the
// API, the workers, `downloader rollover`), and a file per pin needs no
// locking to refresh or release. Cleanup (collect, under the writer lock)
// keeps every snapshot with a live pin and removes expired pin files. A pin
// is written under the writer lock after checking that the snapshot is
// still retained, so no cleanup can retire it between the check and the
// pin.
const (
	pinsDir      = "pins"
	pinExt       = ".pin"
	pinClockSkew = time.Minute
)

var _ occurrence.Pinner = (*Store)(nil)

// pinFile is a pin's content (its mtime is its heartbeat).
type pinFile struct {
	Snapshot int64     `json:"snapshot"`
	Holder   string    `json:"holder,omitempty"`
	Host     string    `json:"host,omitempty"`
	PID      int       `json:"pid"`
	TTLMs    int64     `json:"ttlMs"`
	Created  time.Time `json:"created"`
}

// PinInfo describes a pin on a snapshot (RolloverReport lists them).
type PinInfo struct {
	Snapshot  int64     `json:"snapshot"`
	Holder    string    `json:"holder,omitempty"`
	Host      string    `json:"host,omitempty"`
	PID       int       `json:"pid"`
	Refreshed time.Time `json:"refreshed"`
	Expires   time.Time `json:"expires"`
}

// filePin is a Pin held through a pin file.
type filePin struct {
	path string
}

// Pin keeps the files of snap until Release or until ttl passes without
// Refresh (see the pins section above).
func (s *Store) Pin(ctx context.Context, snap occurrence.Snapshot, holder string, ttl time.Duration) (occurrence.Pin, error) {
	n, err := snapshotNumber(snap.ID)
	if err != nil {
		return nil, err
	}
	if ttl <= 0 {
		return nil, fmt.Errorf("pin snapshot %s: ttl %s", snap.ID, ttl)
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, err)
	}
	defer unlock()
	if ok, err := s.retained(n); err != nil {
		return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, err)
	} else if !ok {
		return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, occurrence.ErrSnapshotGone)
	}
	host, _ := os.Hostname()
	data, err := json.Marshal(pinFile{Snapshot: n, Holder: holder, Host: host, PID: os.Getpid(),
		TTLMs: ttl.Milliseconds(), Created: time.Now().UTC()})
	if err != nil {
		return nil, err
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	dir := filepath.Join(s.dir, pinsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%012d-%s%s", n, hex.EncodeToString(rnd[:]), pinExt))
	if err := writeFile(path, data); err != nil {
		return nil, fmt.Errorf("pin snapshot %s: %w", snap.ID, err)
	}
	return &filePin{path: path}, nil
}

// errPinLost is returned by Refresh when the pin file is gone: it expired
// (its holder missed ttl of heartbeats) and a cleanup removed it.
var errPinLost = errors.New("snapshot pin expired and was removed")

func (p *filePin) Refresh(context.Context) error {
	now := time.Now()
	if err := os.Chtimes(p.path, now, now); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: %w", filepath.Base(p.path), errPinLost)
		}
		return err
	}
	return nil
}

func (p *filePin) Release(context.Context) error {
	if err := os.Remove(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// snapshotNumber parses a snapshot id of this store: the manifest's number,
// optionally followed by ":" and the source it was copied from.
func snapshotNumber(id string) (int64, error) {
	num, _, _ := strings.Cut(id, ":")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("parquet: %q is not a snapshot id of this table", id)
	}
	return n, nil
}

// retained reports whether snapshot n's files are all still there: it is
// the current snapshot, or its generation list under manifests/ still
// exists (cleanup removes the list before any file the snapshot reads, and
// under the writer lock, which the caller holds). The empty table's
// snapshot 0 reads nothing.
func (s *Store) retained(n int64) (bool, error) {
	if n == 0 {
		return true, nil
	}
	m, err := readManifest(s.dir)
	if err != nil {
		return false, err
	}
	if m.Snapshot == n {
		return true, nil
	}
	_, err = os.Stat(gensPath(s.dir, n))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// gensPath is the generation list of snapshot n.
func gensPath(dir string, n int64) string {
	return filepath.Join(dir, manifestsDir, fmt.Sprintf("%012d.gens", n))
}

// Pins lists the live pins of the table, oldest snapshot first.
func (s *Store) Pins() ([]PinInfo, error) {
	live, _, err := s.readPins(time.Now())
	return live, err
}

// readPins reads the pin files: the live ones, and the paths of expired
// ones (and of temporary files of pins being written when their process
// died, which only the holder of the writer lock may remove).
func (s *Store) readPins(now time.Time) (live []PinInfo, expired []string, err error) {
	dir := filepath.Join(s.dir, pinsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), pinExt) {
			if atomicfile.IsTemp(e.Name()) {
				expired = append(expired, path) // of a Pin whose process died
			}
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // released meanwhile
		}
		data, err := os.ReadFile(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, nil, err
		}
		var p pinFile
		if json.Unmarshal(data, &p) != nil || p.TTLMs <= 0 {
			// Written atomically: an unreadable pin is not one of ours.
			s.logger.Warn("table cleanup: ignoring unreadable pin file", "path", path)
			continue
		}
		expires := info.ModTime().Add(time.Duration(p.TTLMs) * time.Millisecond)
		if now.After(expires.Add(pinClockSkew)) {
			expired = append(expired, path)
			continue
		}
		live = append(live, PinInfo{Snapshot: p.Snapshot, Holder: p.Holder, Host: p.Host, PID: p.PID,
			Refreshed: info.ModTime().UTC(), Expires: expires.UTC()})
	}
	return live, expired, nil
}
