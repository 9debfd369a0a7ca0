package taxonomy

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
)

// A taxonomy directory holds:
//
//	CURRENT                the published checklist: {"store": FILE, "version": N}
//	checklist-NNNNNN.tax   store files, one per load (the current and the one before)
//	keys-HASH.bin          the key lookup of each checklist ever loaded
//	derived.log            the derived taxonomy (when no checklist is used)
//	load.lock              held while a load runs
const (
	currentName = "CURRENT"
	lockName    = "load.lock"
)

// ErrNoChecklist is returned by Open when no checklist was loaded into the
// directory.
var ErrNoChecklist = errors.New("taxonomy: no checklist loaded")

type current struct {
	Store   string `json:"store"`
	Version int    `json:"version"`
	Key     string `json:"key"`
}

func readCurrent(dir string) (current, error) {
	var c current
	b, err := os.ReadFile(filepath.Join(dir, currentName))
	if errors.Is(err, os.ErrNotExist) {
		return c, ErrNoChecklist
	}
	if err != nil {
		return c, fmt.Errorf("taxonomy: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil || c.Store == "" || strings.ContainsAny(c.Store, `/\`) {
		return c, fmt.Errorf("taxonomy: %s: unreadable (%v)", filepath.Join(dir, currentName), err)
	}
	return c, nil
}

// Open opens the checklist published in a taxonomy directory, or returns
// ErrNoChecklist. The Checklist keeps the version it opened: a load
// publishing a new version meanwhile does not change it (open again to
// see the new one).
func Open(dir string) (*Checklist, error) {
	var last error
	for range 5 {
		cur, err := readCurrent(dir)
		if err != nil {
			return nil, err
		}
		c, err := OpenChecklistFile(filepath.Join(dir, cur.Store))
		if err == nil {
			return c, nil
		}
		// a load may have published a newer version and removed this
		// one between the two reads: read CURRENT again
		last = err
		if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	return nil, last
}

// CurrentVersion returns the version number published in dir (0 when
// none): a cheap check whether a reopen would see a new checklist.
func CurrentVersion(dir string) int {
	cur, err := readCurrent(dir)
	if err != nil {
		return 0
	}
	return cur.Version
}

// publish makes store the current checklist and removes store files
// older than the previous one.
func publish(dir string, cur current) error {
	b, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(filepath.Join(dir, currentName), 0o644)
	if err != nil {
		return fmt.Errorf("taxonomy: publish: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Abort()
		return fmt.Errorf("taxonomy: publish: %w", err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("taxonomy: publish: %w", err)
	}
	stores, _ := filepath.Glob(filepath.Join(dir, "checklist-*.tax"))
	sort.Strings(stores)
	keep := map[string]bool{cur.Store: true, storeName(cur.Version - 1): true}
	for _, s := range stores {
		if !keep[filepath.Base(s)] {
			os.Remove(s) // readers that mapped it keep their mapping
		}
	}
	return nil
}

func storeName(version int) string { return fmt.Sprintf("checklist-%06d.tax", version) }

// keysPath is the key lookup of a checklist.
func keysPath(dir, checklistKey string) string {
	return filepath.Join(dir, fmt.Sprintf("keys-%016x.bin", fnv64(checklistKey)))
}
