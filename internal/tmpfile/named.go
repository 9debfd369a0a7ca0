package tmpfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Some temporary files must keep their name, because they are reopened by
// it (an archive downloaded by URL is opened as a zip by path). Such a file
// is named after its host and process, prefix-<host>-<pid>-<random>suffix,
// and each CreateNamed first removes those of its prefix left by a process
// of this host that is gone (killed, or crashed). Files of other hosts
// sharing the directory (containers with their own process ids) are left
// alone.

// CreateNamed creates a temporary file in dir (os.TempDir when "") that
// keeps its name, prefix-<host>-<pid>-<random>suffix, after removing
// those of prefix whose process is gone (sweepDead). The caller removes
// the file it gets.
func CreateNamed(dir, prefix, suffix string) (*os.File, error) {
	sweepDead(dir, prefix)
	return os.CreateTemp(dir, fmt.Sprintf("%s-%s-%d-*%s", prefix, hostTag(), os.Getpid(), suffix))
}

// sweepDead removes the files CreateNamed made in dir with prefix for a
// process of this host that no longer runs, and returns their names.
// Errors reading dir or removing a file are ignored: a sweep is
// housekeeping, retried by the next one.
func sweepDead(dir, prefix string) []string {
	if dir == "" {
		dir = os.TempDir()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	lead := prefix + "-" + hostTag() + "-"
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), lead)
		if !ok || e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}

// hostTag is the host name as a file name's part: letters, digits and
// dots, the rest as "_" ("-" separates the name's parts).
func hostTag() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		h = "localhost"
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' {
			return r
		}
		return '_'
	}, h)
}
