// Command soak is a fault soak of the download service on loopback: an api
// process and two worker processes (`downloader serve`) on one PostgreSQL
// database and one storage directory run N downloads while worker processes
// are killed with SIGKILL at random moments and started again. At the end
// every download must have SUCCEEDED, exactly once (one successful export,
// one archive), with its archive matching the recorded SHA-256 and holding
// as many rows as `downloader count` finds for its predicate, and no partial
// archive left in storage. It is bounded in downloads, kills and time, and
// prints a summary; bench/soak.sh sets it up.
//
//	soak -bin downloader -table DIR -db postgres://... -work DIR [-downloads 100] [-kills 25] [-timeout 20m]
package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/biodiversity-downloads/downloader/internal/atomicfile"
)

const user, pass = "soak", "soak-secret-passphrase"

type config struct {
	bin, table, db, work    string
	downloads, kills, slots int
	timeout                 time.Duration
	seed                    uint64
}

func main() {
	var c config
	flag.StringVar(&c.bin, "bin", "", "the downloader binary")
	flag.StringVar(&c.table, "table", "", "occurrence table directory")
	flag.StringVar(&c.db, "db", "", "job database (postgres://...)")
	flag.StringVar(&c.work, "work", "", "scratch directory (storage, logs)")
	flag.IntVar(&c.downloads, "downloads", 100, "downloads to run")
	flag.IntVar(&c.kills, "kills", 25, "most SIGKILLs of worker processes")
	flag.IntVar(&c.slots, "workers", 2, "export slots per worker process")
	flag.DurationVar(&c.timeout, "timeout", 20*time.Minute, "give up after this long")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed of the kill schedule")
	flag.Parse()
	if c.bin == "" || c.table == "" || c.db == "" || c.work == "" {
		fmt.Fprintln(os.Stderr, "soak: -bin, -table, -db and -work are required")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "soak: FAILED:", err)
		os.Exit(1)
	}
}

// proc is a `downloader serve` process whose output goes to a log file.
type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
}

func start(bin string, logPath string, args ...string) (*proc, *bufio.Reader, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{}), log: log}
	br := bufio.NewReader(out)
	go func() {
		_, _ = io.Copy(log, br)
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, br, nil
}

func (p *proc) signal(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	_ = p.log.Close()
}

type download struct {
	key, format, predicate string
	Status                 string `json:"status"`
	SHA256                 string `json:"sha256"`
	Size                   int64  `json:"size"`
	TotalRecords           int64  `json:"totalRecords"`
}

func run(ctx context.Context, c config) error {
	began := time.Now()
	storage := filepath.Join(c.work, "archives")
	env := append(os.Environ(), "DOWNLOADER_PASSWORD="+pass)
	for _, args := range [][]string{{"migrate", "--db", c.db}, {"user", "add", user, "--db", c.db}} {
		cmd := exec.CommandContext(ctx, c.bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	common := []string{"--db", c.db, "--table", c.table, "--storage", storage, "--poll", "200ms"}
	api, out, err := start(c.bin, filepath.Join(c.work, "api.log"), append(common, "--role", "api",
		"--listen", "127.0.0.1:0", "--max-running", "100000")...)
	if err != nil {
		return err
	}
	defer api.signal(syscall.SIGTERM)
	line, err := out.ReadString('\n')
	_, base, ok := strings.Cut(strings.TrimSpace(line), " on ")
	if err != nil || !ok {
		return fmt.Errorf("api: first line %q (%v)", line, err)
	}
	workerArgs := append(common, "--role", "worker", "--workers", strconv.Itoa(c.slots),
		"--lease", "3s", "--rescue-after", "8s", "--heartbeat", "250ms")
	var mu sync.Mutex
	workers := make([]*proc, 2)
	startWorker := func(i int) error {
		p, _, err := start(c.bin, filepath.Join(c.work, fmt.Sprintf("worker-%d.log", i)), workerArgs...)
		if err != nil {
			return err
		}
		mu.Lock()
		workers[i] = p
		mu.Unlock()
		return nil
	}
	for i := range workers {
		if err := startWorker(i); err != nil {
			return err
		}
	}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, w := range workers {
			w.signal(syscall.SIGTERM)
		}
	}()

	ds, err := submitAll(ctx, base, c.downloads)
	if err != nil {
		return err
	}
	fmt.Printf("soak: %d downloads submitted in %.1f s\n", len(ds), time.Since(began).Seconds())

	// The killer: SIGKILL a random worker process every 1-5 s, start it
	// again 0-2 s later, until every download is final or the budget is
	// spent.
	stop := make(chan struct{})
	killed := make(chan int, 1)
	go func() {
		r := rand.New(rand.NewPCG(c.seed, 7))
		n := 0
		defer func() { killed <- n }()
		for n < c.kills {
			select {
			case <-stop:
				return
			case <-time.After(time.Second + time.Duration(r.Int64N(int64(4*time.Second)))):
			}
			i := r.IntN(len(workers))
			mu.Lock()
			w := workers[i]
			mu.Unlock()
			w.signal(syscall.SIGKILL)
			n++
			time.Sleep(time.Duration(r.Int64N(int64(2 * time.Second))))
			if err := startWorker(i); err != nil {
				fmt.Fprintln(os.Stderr, "soak: restart worker:", err)
				return
			}
		}
	}()
	final, err := waitFinal(ctx, base, ds)
	close(stop)
	kills := <-killed
	if err != nil {
		return err
	}
	wall := time.Since(began)
	return report(ctx, c, base, storage, final, kills, wall)
}

// submitAll queues n downloads, DWCA and SIMPLE_CSV in turn, each with a
// predicate of its own (so that none is deduplicated).
func submitAll(ctx context.Context, base string, n int) ([]*download, error) {
	var ds []*download
	for i := range n {
		d := &download{format: []string{"DWCA", "SIMPLE_CSV"}[i%2],
			predicate: fmt.Sprintf(`{"type":"greaterThanOrEquals","key":"YEAR","value":"%d"}`, 1900+i)}
		body := fmt.Sprintf(`{"format":%q,"predicate":%s}`, d.format, d.predicate)
		b, code, err := call(ctx, "POST", base+"/v1/occurrence/download/request", body)
		if err != nil || code != http.StatusCreated {
			return nil, fmt.Errorf("submit %d: %d %s %v", i, code, b, err)
		}
		d.key = string(b)
		ds = append(ds, d)
	}
	return ds, nil
}

func call(ctx context.Context, method, url, body string) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	req.SetBasicAuth(user, pass)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.StatusCode, err
}

// waitFinal polls until every download is in a final state.
func waitFinal(ctx context.Context, base string, ds []*download) ([]*download, error) {
	for {
		pending := 0
		for _, d := range ds {
			if d.Status == "SUCCEEDED" || d.Status == "FAILED" || d.Status == "KILLED" || d.Status == "CANCELLED" {
				continue
			}
			b, code, err := call(ctx, "GET", base+"/v1/occurrence/download/"+d.key, "")
			if err != nil || code != http.StatusOK {
				return nil, fmt.Errorf("status of %s: %d %v", d.key, code, err)
			}
			if err := json.Unmarshal(b, d); err != nil {
				return nil, err
			}
			if d.Status != "SUCCEEDED" && d.Status != "FAILED" && d.Status != "KILLED" && d.Status != "CANCELLED" {
				pending++
			}
		}
		if pending == 0 {
			return ds, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%d downloads not finished: %w", pending, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}

var (
	succeededRE = regexp.MustCompile(`msg="export succeeded" key=(\S+)`)
	startedRE   = regexp.MustCompile(`msg="export started" key=(\S+)`)
	requeuedRE  = regexp.MustCompile(`msg="worker lost; queued the download again"`)
)

// report checks the outcome and prints the summary; any failure is an
// error after the summary.
func report(ctx context.Context, c config, base, storage string, ds []*download, kills int, wall time.Duration) error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	logs := ""
	for i := range 2 {
		b, err := os.ReadFile(filepath.Join(c.work, fmt.Sprintf("worker-%d.log", i)))
		if err != nil {
			return err
		}
		logs += string(b)
	}
	succeeded, started := map[string]int{}, map[string]int{}
	for _, m := range succeededRE.FindAllStringSubmatch(logs, -1) {
		succeeded[m[1]]++
	}
	for _, m := range startedRE.FindAllStringSubmatch(logs, -1) {
		started[m[1]]++
	}
	runs, okSum, okRows := 0, 0, 0
	objects := map[string]bool{}
	for _, d := range ds {
		runs += started[d.key]
		if d.Status != "SUCCEEDED" {
			bad("%s is %s", d.key, d.Status)
			continue
		}
		// A worker killed between its commit and its log line logs none.
		if succeeded[d.key] > 1 {
			bad("%s: %d successful exports logged, want one", d.key, succeeded[d.key])
		}
		body, code, err := call(ctx, "GET", base+"/v1/occurrence/download/request/"+d.key+".zip", "")
		if err != nil || code != http.StatusOK {
			bad("%s: archive %d %v", d.key, code, err)
			continue
		}
		sum := sha256.Sum256(body)
		if hex.EncodeToString(sum[:]) != d.SHA256 || int64(len(body)) != d.Size {
			bad("%s: archive of %d bytes does not match the recorded SHA-256 and size %d", d.key, len(body), d.Size)
		} else {
			okSum++
		}
		rows, err := dataRows(body, d)
		if err != nil {
			bad("%s: %v", d.key, err)
			continue
		}
		want, err := count(ctx, c, d.predicate)
		if err != nil {
			return err
		}
		if rows != want || d.TotalRecords != want {
			bad("%s: %d rows in the archive, %d recorded, downloader count says %d", d.key, rows, d.TotalRecords, want)
		} else {
			okRows++
		}
	}
	entries, err := os.ReadDir(storage)
	if err != nil {
		return err
	}
	partial := 0
	for _, e := range entries {
		if atomicfile.IsTemp(e.Name()) || strings.HasPrefix(e.Name(), ".partial-") {
			partial++
		} else {
			objects[e.Name()] = true
		}
	}
	if partial > 0 {
		bad("%d partial archives left in storage", partial)
	}
	if len(objects) != len(ds) {
		bad("%d archives in storage for %d downloads", len(objects), len(ds))
	}
	fmt.Printf("soak: %d downloads (DWCA and SIMPLE_CSV) on 2 worker processes x %d export slots, PostgreSQL, loopback\n",
		len(ds), c.slots)
	fmt.Printf("soak: %d worker processes killed (SIGKILL) and restarted; %d export runs for %d downloads "+
		"(%d retries), %d taken over after a lost lease\n", kills, runs, len(ds), runs-len(ds),
		len(requeuedRE.FindAllString(logs, -1)))
	fmt.Printf("soak: verified %d archives by SHA-256 and %d by row count (downloader count); %d archives in storage, %d partial\n",
		okSum, okRows, len(objects), partial)
	fmt.Printf("soak: wall %.0f s\n", wall.Seconds())
	if len(problems) == 0 {
		fmt.Println("soak: every download SUCCEEDED exactly once")
		return nil
	}
	for _, p := range problems {
		fmt.Println("soak: problem:", p)
	}
	return fmt.Errorf("%d problems", len(problems))
}

// dataRows counts the data lines of the archive's occurrence file: a
// DWCA's occurrence.txt, a SIMPLE_CSV's KEY.csv (values never hold a line
// break: the download text rules replace them).
func dataRows(archive []byte, d *download) (int64, error) {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return 0, err
	}
	name := "occurrence.txt"
	if d.format == "SIMPLE_CSV" {
		name = d.key + ".csv"
	}
	f, err := zr.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var lines int64
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		lines += int64(bytes.Count(buf[:n], []byte{'\n'}))
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return lines - 1, nil // the header
}

// count runs `downloader count` for predicate.
func count(ctx context.Context, c config, predicate string) (int64, error) {
	cmd := exec.CommandContext(ctx, c.bin, "count", "--table", c.table, "--predicate", "-")
	cmd.Stdin = strings.NewReader(predicate)
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("downloader count: %w", err)
	}
	return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
}
