package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/biodiversity-downloads/downloader/internal/hostile"
)

// The hostile-input suite: inputs generated here (internal/hostile, no
// committed blobs) are fed to the real `downloader ingest`, run as its own
// process (this test binary re-executed as the command, see TestMain), and
// each case asserts the bounded outcome: the exit status, the error naming
// the file and the cap, the process's peak RSS far below what the input
// inflates to, and the table as it was before.

// asCommandEnv makes the test binary run the command line it is given;
// hwmFileEnv names a file where it then writes its own peak RSS (VmHWM).
const (
	asCommandEnv = "DOWNLOADER_TEST_AS_COMMAND"
	hwmFileEnv   = "DOWNLOADER_TEST_HWM_FILE"
)

func TestMain(m *testing.M) {
	if os.Getenv(asCommandEnv) == "1" {
		env := &Env{Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin,
			Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
		code := run(context.Background(), os.Args[1:], env)
		if f := os.Getenv(hwmFileEnv); f != "" {
			os.WriteFile(f, []byte(strconv.FormatInt(procStatus("VmHWM:"), 10)), 0o644)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// procStatus reads a size in kB from /proc/self/status, in bytes (-1 when
// it cannot be read).
func procStatus(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, key); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return n << 10
		}
	}
	return -1
}

// processResult is what a command run as a process did.
type processResult struct {
	code           int
	stdout, stderr string
	// maxRSS is the child's peak RSS as wait4 reports it (Rusage.Maxrss);
	// hwm, as the child read it from /proc at its end.
	maxRSS, hwm int64
}

// runProcess runs `downloader args...` as a child process. os/exec starts
// children with vfork, and Linux carries the parent's peak RSS into the
// child's Maxrss at exec: the parent's peak is reset to its current RSS
// first (/proc/self/clear_refs), so that Maxrss is the child's own.
func runProcess(t *testing.T, args ...string) processResult {
	t.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("cannot reset this process's peak RSS, which a child's Maxrss would include: %v", err)
	}
	hwmFile := filepath.Join(t.TempDir(), "hwm")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCommandEnv+"=1", hwmFileEnv+"="+hwmFile, "GOMEMLIMIT=", "GOGC=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	hwm, err := os.ReadFile(hwmFile)
	if err != nil {
		t.Fatalf("the child wrote no peak RSS: %v\n%s", err, errb.String())
	}
	n, _ := strconv.ParseInt(string(hwm), 10, 64)
	return processResult{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String(), maxRSS: ru.Maxrss << 10, hwm: n}
}

// hostileTable is a table holding one real dataset, and its manifest.
func hostileTable(t *testing.T) (dir string, manifest []byte) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "table")
	runCmd(t, "ingest", "--table", dir, "testdata/export/gbif-validator-Archive.zip")
	manifest, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, manifest
}

// hostileCase is one input and what ingesting it must give.
type hostileCase struct {
	name string
	// make writes the input into dir and returns its path and the bytes
	// it inflates to.
	make func(t *testing.T, dir string, size int64) (path string, inflated int64)
	// want is in the error: the file and the cap.
	want []string
	// ok: the ingest succeeds (the bad part is skipped as a broken row)
	ok bool
	// folder: the input is written out whole, so its largest size is
	// 1 GiB (the reported folder attack), not 2
	folder bool
}

const gib = 1 << 30

const metaHead = `<archive xmlns="http://rs.tdwg.org/dwc/text/"><!--`

const metaTail = `--><core fieldsTerminatedBy="\t" ignoreHeaderLines="1" rowType="http://rs.tdwg.org/dwc/terms/Occurrence">
<files><location>occurrence.txt</location></files><id index="0"/>
<field index="0" term="http://rs.tdwg.org/dwc/terms/occurrenceID"/>
<field index="1" term="http://rs.tdwg.org/dwc/terms/scientificName"/></core></archive>`

const goodMeta = metaHead + metaTail

const goodRows = "occurrenceID\tscientificName\nurn:h:1\tAbies alba\nurn:h:2\tPicea abies\n"

func dataEntry() hostile.Entry { return hostile.Entry{Name: "occurrence.txt", Head: []byte(goodRows)} }

// sized returns the entries with the growing one (Filler < 0) given size
// bytes of filler, and what they inflate to.
func sized(entries []hostile.Entry, size int64) ([]hostile.Entry, int64) {
	es := slices.Clone(entries)
	var inflated int64
	for i := range es {
		if es[i].Filler < 0 {
			es[i].Filler = size
		}
		inflated += es[i].Size()
	}
	return es, inflated
}

// zipCase writes the entries into hostile.zip.
func zipCase(entries ...hostile.Entry) func(t *testing.T, dir string, size int64) (string, int64) {
	return func(t *testing.T, dir string, size int64) (string, int64) {
		p := filepath.Join(dir, "hostile.zip")
		es, inflated := sized(entries, size)
		if err := hostile.WriteZip(p, es...); err != nil {
			t.Fatal(err)
		}
		return p, inflated
	}
}

// folderCase writes the entries into the folder hostile, and gives the
// folder (or, with one entry, the file).
func folderCase(entries ...hostile.Entry) func(t *testing.T, dir string, size int64) (string, int64) {
	return func(t *testing.T, dir string, size int64) (string, int64) {
		p := filepath.Join(dir, "hostile")
		os.Mkdir(p, 0o755)
		es, inflated := sized(entries, size)
		for _, e := range es {
			if err := hostile.WriteFile(filepath.Join(p, e.Name), e); err != nil {
				t.Fatal(err)
			}
		}
		if len(es) == 1 {
			return filepath.Join(p, es[0].Name), inflated
		}
		return p, inflated
	}
}

var hostileCases = []hostileCase{
	{name: "meta.xml bomb in a zip",
		make: zipCase(hostile.Entry{Name: "meta.xml", Head: []byte(metaHead), Filler: -1, Tail: []byte(metaTail)}, dataEntry()),
		want: []string{"hostile.zip!meta.xml: meta.xml (declared size) larger than the limit of 16 MiB"}},
	{name: "meta.xml bomb in a zip whose headers lie",
		make: zipCase(hostile.Entry{Name: "meta.xml", Head: []byte(metaHead), Filler: -1, Tail: []byte(metaTail), Declared: 4096}, dataEntry()),
		want: []string{"hostile.zip!meta.xml inflates past the 4096 bytes its header declares"}},
	{name: "meta.xml bomb in a folder",
		make: folderCase(hostile.Entry{Name: "meta.xml", Head: []byte(metaHead), Filler: -1, Tail: []byte(metaTail)}, dataEntry()),
		want: []string{filepath.Join("hostile", "meta.xml") + ": meta.xml larger than the limit of 16 MiB"}, folder: true},
	{name: "EML bomb in a zip",
		make: zipCase(hostile.Entry{Name: "meta.xml", Head: []byte(goodMeta)},
			hostile.Entry{Name: "eml.xml", Head: []byte("<eml:eml><dataset><title>T</title><!--"), Filler: -1, Tail: []byte("--></dataset></eml:eml>")}, dataEntry()),
		want: []string{"hostile.zip!eml.xml: EML document (declared size) larger than the limit of 8 MiB"}},
	{name: "EML bomb in a folder",
		make: folderCase(hostile.Entry{Name: "meta.xml", Head: []byte(goodMeta)},
			hostile.Entry{Name: "eml.xml", Head: []byte("<eml:eml><dataset><title>T</title><!--"), Filler: -1, Tail: []byte("--></dataset></eml:eml>")}, dataEntry()),
		want: []string{filepath.Join("hostile", "eml.xml") + ": EML document larger than the limit of 8 MiB"}, folder: true},
	{name: "ABCD document bomb",
		make: folderCase(hostile.Entry{Name: "bomb.xml", Head: []byte("<DataSets><DataSet><Units><Unit><UnitID>1</UnitID><Notes>"), Filler: -1,
			Tail: []byte("</Notes></Unit></Units></DataSet></DataSets>")}),
		want: []string{"bomb.xml:1 (unit 1): input too large: a single text node or tag exceeds the limit of 16 MiB"}, folder: true},
	{name: "ABCD archive bomb",
		make: zipCase(hostile.Entry{Name: "response.00001.xml", Head: []byte("<DataSets><!--"), Filler: -1, Tail: []byte("--></DataSets>")}),
		want: []string{"hostile.zip!response.00001.xml:1: input too large: a single text node or tag exceeds the limit of 16 MiB"}},
	{name: "data file whose headers lie",
		make: zipCase(hostile.Entry{Name: "meta.xml", Head: []byte(goodMeta)},
			hostile.Entry{Name: "occurrence.txt", Head: []byte(goodRows), Filler: -1, Tail: []byte("\n"), Declared: int64(len(goodRows))}),
		want: []string{fmt.Sprintf("hostile.zip!occurrence.txt inflates past the %d bytes its header declares", len(goodRows))}},
	{name: "one huge line in a data file",
		make: zipCase(hostile.Entry{Name: "meta.xml", Head: []byte(goodMeta)},
			hostile.Entry{Name: "occurrence.txt", Head: []byte(goodRows + "urn:h:3\t"), Filler: -1, Tail: []byte("\nurn:h:4\tQuercus robur\n")}),
		want: []string{"occurrence.txt line 4: row too long: longer than the row limit of 8 MiB", "3 records, 1 broken rows skipped"}, ok: true},
}

// TestHostileInputs runs every case at 512 MiB and, unless -short, 2 GiB
// (the size of the reported attack; 1 GiB for files written out whole, as
// reported for folders; each takes a few seconds more).
func TestHostileInputs(t *testing.T) {
	sizes := []int64{512 << 20, 2 * gib}
	if testing.Short() {
		sizes = sizes[:1] // -short: the 2 GiB inputs take seconds each to stream
	}
	for _, c := range hostileCases {
		for _, size := range sizes {
			if c.folder {
				size = min(size, gib)
			}
			t.Run(fmt.Sprintf("%s/%dMiB", c.name, size>>20), func(t *testing.T) {
				table, manifest := hostileTable(t)
				path, inflated := c.make(t, t.TempDir(), size)
				r := runProcess(t, "ingest", "--table", table, path)
				if c.ok != (r.code == 0) {
					t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
				}
				for _, w := range c.want {
					if !strings.Contains(r.stderr+r.stdout, w) {
						t.Errorf("output lacks %q:\nstdout %s\nstderr %s", w, r.stdout, r.stderr)
					}
				}
				// the input inflates to at least 512 MiB; a capped reader
				// holds a few caps' worth at most
				bound := min(int64(192<<20), inflated/2)
				if r.maxRSS > bound || r.hwm > bound || r.hwm <= 0 {
					t.Errorf("peak RSS %d MiB (Maxrss; the child's VmHWM %d MiB) for an input inflating to %d MiB; want under %d MiB",
						r.maxRSS>>20, r.hwm>>20, inflated>>20, bound>>20)
				}
				t.Logf("peak RSS %d MiB (VmHWM %d MiB), input %d MiB inflated", r.maxRSS>>20, r.hwm>>20, inflated>>20)
				after, err := os.ReadFile(filepath.Join(table, "manifest.json"))
				if err != nil {
					t.Fatal(err)
				}
				if !c.ok && !bytes.Equal(after, manifest) {
					t.Error("the failed ingest changed the table's manifest")
				}
			})
		}
	}
}
