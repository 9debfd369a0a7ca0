package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/biodiversity-downloads/downloader/jobs"
)

const exampleConfig = "../../docs/downloader.example.yaml"

func testEnv() (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &Env{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""),
		Logger: slog.New(slog.DiscardHandler)}, &out, &errOut
}

// clearConfigEnv unsets every variable the configuration reads, for the
// duration of the test.
func clearConfigEnv(t *testing.T) {
	t.Helper()
	names := []string{configEnv}
	for _, l := range configLeaves() {
		names = append(names, l.env, l.env+"_FILE")
	}
	for _, n := range names {
		if _, ok := os.LookupEnv(n); ok {
			t.Setenv(n, "")
			os.Unsetenv(n)
		}
	}
}

// tableDir is a directory that holds a table as serve's check sees it (an
// empty one: its data folder).
func tableDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExampleConfig loads the documented example: it is valid, its values
// arrive where serve reads them, and it documents every key with its
// variable and flag.
func TestExampleConfig(t *testing.T) {
	clearConfigEnv(t)
	env, _, _ := testEnv()
	f, err := parseServeFlags([]string{"--config", exampleConfig}, env)
	if err != nil {
		t.Fatal(err)
	}
	if f.publicURL != "https://downloads.example.org" || f.jobs.Portal.Name != "Example Biodiversity Portal" ||
		f.jobs.Portal.Short != "EBP" || f.table != "demo/table" || f.maxBody != 1<<20 ||
		f.jobs.EraseAfter != 183*24*time.Hour || f.jobs.Workers != 2 || f.dsn != "sqlite:downloads.db" {
		t.Errorf("effective settings %+v", f)
	}
	if n := len(f.conf.Schedules); n != 6 || f.conf.Schedules[4].Params.Format != "SIMPLE_CSV" ||
		string(f.conf.Schedules[4].Params.Predicate) != `{"key":"COUNTRY","type":"equals","value":"DK"}` {
		t.Errorf("schedules %+v", f.conf.Schedules)
	}
	sc := f.jobs.Scheduler
	if len(sc.Schedules) != 6 || sc.Schedules[1].Kind != jobs.ScheduleDigest || sc.Schedules[3].Kind != jobs.ScheduleExport ||
		sc.Schedules[5].Export.Format != "SQL_TSV_ZIP" || !strings.HasPrefix(sc.Schedules[5].Export.SQL, "SELECT speciesKey") ||
		string(sc.Schedules[3].Export.Predicate) != "null" || sc.Schedules[3].Export.Format != "SIMPLE_PARQUET" ||
		string(sc.Schedules[4].Export.Predicate) != `{"key":"COUNTRY","type":"equals","value":"DK"}` ||
		sc.WarnBefore != 14*24*time.Hour || sc.Creator != "schedules" || sc.Unfiltered != jobs.AnswerRecent ||
		sc.UnfilteredMaxAge != 31*24*time.Hour {
		t.Errorf("the job service's schedules %+v", sc)
	}
	// Each cron expression is parsed, its time zone kept: Mondays at 05:00
	// in Copenhagen, 03:00 UTC in summer.
	from := time.Date(2026, 5, 6, 12, 0, 0, 0, time.UTC) // a Wednesday
	if next := sc.Schedules[4].When.Next(from); !next.Equal(time.Date(2026, 5, 11, 3, 0, 0, 0, time.UTC)) {
		t.Errorf("weekly-denmark next fires at %s", next)
	}
	text, err := os.ReadFile(exampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range configLeaves() {
		key := l.path[strings.LastIndex(l.path, ".")+1:]
		if !strings.Contains(string(text), "\n"+strings.Repeat(" ", strings.Count(l.path, ".")*2)+key) &&
			!strings.Contains(string(text), key+"_file:") {
			t.Errorf("the example has no key %s", l.path)
		}
		if !strings.Contains(string(text), "$"+l.env) {
			t.Errorf("the example does not name $%s (%s)", l.env, l.path)
		}
		if l.flag != "" && !strings.Contains(string(text), "--"+l.flag) {
			t.Errorf("the example does not name --%s (%s)", l.flag, l.path)
		}
	}
}

// TestEveryServeFlagHasAKey: a new serve flag needs a key in fileConfig
// (its flag tag), so that the configuration file can set it.
func TestEveryServeFlagHasAKey(t *testing.T) {
	env, _, _ := testEnv()
	fs := serveFlagSet(&serveFlags{}, env)
	keys := map[string]string{"smtp": "smtp.host and smtp.port"}
	for _, l := range configLeaves() {
		if l.flag != "" {
			if fs.Lookup(l.flag) == nil {
				t.Errorf("key %s names --%s, which serve does not have", l.path, l.flag)
			}
			keys[l.flag] = l.path
		}
	}
	fs.VisitAll(func(fl *flag.Flag) {
		switch {
		case fl.Name == "config", fl.Name == "check", strings.HasPrefix(fl.Name, "test-"):
		case keys[fl.Name] == "":
			t.Errorf("serve flag --%s has no configuration key (add a flag tag in fileConfig)", fl.Name)
		}
	})
}

// TestConfigErrorsNameFileLineAndKey: a typo or a bad value is reported
// with the file, the line and the key.
func TestConfigErrorsNameFileLineAndKey(t *testing.T) {
	clearConfigEnv(t)
	cases := []struct{ text, want string }{
		{"listen: 127.0.0.1:0\nsmtp:\n  host: mail.example.org\n  prot: 25\n",
			`serve.yaml:4: smtp.prot: unknown key (did you mean port?)`},
		{"listne: x\n", `serve.yaml:1: listne: unknown key (did you mean listen?)`},
		{"limits:\n  workers: many\n", `serve.yaml:2: limits.workers: "many" is not a whole number`},
		{"limits:\n  lease: soon\n", `serve.yaml:2: limits.lease: "soon" is not a duration`},
		{"limits:\n  max_body: 3 parsecs\n", `serve.yaml:2: limits.max_body: "3 parsecs": unknown unit "parsecs"`},
		{"limits:\n  workers: -1\n", `serve.yaml:2: limits.workers: -1 is negative`},
		{"limits: 4\n", `serve.yaml:1: limits: want keys and values, got "4"`},
		{"role: boss\n", `serve.yaml:1: role: "boss": want api, worker, all`},
		{"log:\n  format: xml\n", `serve.yaml:2: log.format: "xml": want text, json`},
		{"public_url: downloads.example.org\n", `serve.yaml:1: public_url: "downloads.example.org" is not an http(s) URL`},
		{"table: a\ntable: b\n", `serve.yaml:2: table: given twice (also on line 1)`},
		{"smtp:\n  user: bob\n", `serve.yaml:2: smtp.user: set without smtp.host`},
		{"smtp:\n  host: h\n  password: a\n", `serve.yaml:3: smtp.password: set without smtp.user`},
		{"smtp:\n  host: h\n  password: a\n  password_file: /x\n", `serve.yaml:4: smtp.password_file: give password or password_file, not both`},
		{"smtp:\n  host: h\n  password_file: /nonexistent/pw\n", `serve.yaml:3: smtp.password_file: open /nonexistent/pw`},
		{"storage:\n  location: dir\n  part_size: 8MiB\n", `serve.yaml:3: storage.part_size: only for s3:// storage`},
		{"erase:\n  after: 10d\n  warn_before: 20d\n", `serve.yaml:3: erase.warn_before: 20d is not before erase.after (10d)`},
		{"a: [1,\n", `serve.yaml:1: did not find expected node content`},
		{"\tlimits:\n", `serve.yaml:1: found character that cannot start any token`},
		{"role: all\nlisten: \"\xff\"\n", `serve.yaml:2: invalid leading UTF-8 octet`},
		{"x: &a 1\ny: *a\n", `serve.yaml:1: x: unknown key`},
		{"role: all\n---\nrole: api\n", `serve.yaml:2: a second YAML document`},
		{"schedules:\n  - name: nightly\n    cron: \"61 * * * *\"\n    kind: erase\n",
			`serve.yaml:3: schedules[0].cron: "61 * * * *": end of range (61) above maximum (59)`},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: sweep\n", `serve.yaml:4: schedules[0].kind: "sweep": want erase, digest, rollover or export`},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: digest\n", `serve.yaml:4: schedules[0].kind: a digest schedule mails mail.operators, and none are set`},
		{"mail:\n  operators: ops@example.org\nschedules:\n  - name: a\n    cron: \"@daily\"\n    kind: digest\n",
			`serve.yaml:6: schedules[0].kind: a digest schedule mails the digest, and smtp.host is not set: set smtp.host, or remove the schedule`},
		{"erase:\n  warn_before: 7d\n", `serve.yaml:2: erase.warn_before: 7d: the warning is mailed, and smtp.host is not set: set smtp.host, or 0s for no warning`},
		{"limits:\n  lease: 5s\n  rescue_after: 10s\n  heartbeat: 30s\n",
			`serve.yaml:4: limits.heartbeat, limits.lease: heartbeat 30s is more than half the lease 5s: a worker renews its lease only once a heartbeat`},
		{"limits:\n  lease: 10s\n  rescue_after: 5s\n",
			`serve.yaml:3: limits.rescue_after, limits.lease: rescue interval 5s must exceed the lease 10s`},
		{"scheduled_exports:\n  answer_unfiltered: always\n", `serve.yaml:2: scheduled_exports.answer_unfiltered: "always": want age, snapshot, off`},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: export\n", `serve.yaml:2: schedules[0].params.format: missing`},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: erase\n    params:\n      format: DWCA\n",
			`serve.yaml:6: schedules[0].params.format: not a parameter of erase schedules`},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: export\n    params:\n      format: DWCA\n      predicate: {type: equals, key: NOSUCHKEY, value: 1}\n",
			`serve.yaml:7: schedules[0].params.predicate: `},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: export\n    params:\n      format: SQL_TSV_ZIP\n      sql: SELECT * FROM occurrence\n",
			`serve.yaml:7: schedules[0].params.sql: invalid SQL near "*": SELECT * is not supported`},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: export\n    params:\n      format: SQL_TSV_ZIP\n",
			`serve.yaml:2: schedules[0].params.sql: missing: a SQL_TSV_ZIP export runs a SQL query`},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: export\n    params:\n      format: DWCA\n      sql: SELECT gbifid FROM occurrence\n",
			`serve.yaml:7: schedules[0].params.sql: a SQL query makes a SQL_TSV_ZIP export, not DWCA`},
		{"schedules:\n  - {name: a, cron: \"@daily\", kind: erase}\n  - {name: a, cron: \"@daily\", kind: erase}\n",
			`serve.yaml:3: schedules[1].name: "a" is also the name of the schedule at `},
		{"schedules:\n  - name: a\n    cron: \"@daily\"\n    kind: erase\n    when: now\n",
			`serve.yaml:5: schedules[0].when: unknown key`},
	}
	for _, c := range cases {
		path := writeFile(t, "serve.yaml", c.text)
		env, _, _ := testEnv()
		_, err := parseServeFlags([]string{"--config", path}, env)
		if err == nil {
			t.Errorf("%q: no error, want %s", c.text, c.want)
			continue
		}
		want := filepath.Dir(path) + "/" + c.want
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q:\n got %v\nwant %s", c.text, err, want)
		}
	}
}

// TestConfigPrecedence: defaults < file < environment < command line.
func TestConfigPrecedence(t *testing.T) {
	clearConfigEnv(t)
	path := writeFile(t, "serve.yaml", "limits:\n  workers: 3\n  max_attempts: 4\n  max_body: 2MiB\nerase:\n  after: 10d\nsmtp:\n  host: mail.example.org\n")
	t.Setenv("DOWNLOADER_WORKERS", "5")
	t.Setenv("DOWNLOADER_MAX_ATTEMPTS", "6")
	env, _, _ := testEnv()
	f, err := parseServeFlags([]string{"--config", path, "--max-attempts", "7"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if f.jobs.Scheduler.WarnBefore != 120*time.Hour {
		t.Errorf("the default warning before a 10d erasure is %s, want half of it", f.jobs.Scheduler.WarnBefore)
	}
	if f.jobs.Workers != 5 || f.jobs.MaxAttempts != 7 || f.maxBody != 2<<20 || f.jobs.EraseAfter != 240*time.Hour ||
		f.jobs.MaxRunningPerUser != 3 || f.mail.Addr != "mail.example.org:587" {
		t.Errorf("workers %d attempts %d body %d erase %s running %d smtp %s", f.jobs.Workers, f.jobs.MaxAttempts,
			f.maxBody, f.jobs.EraseAfter, f.jobs.MaxRunningPerUser, f.mail.Addr)
	}
	if f.origin["limits.workers"] != "$DOWNLOADER_WORKERS" || f.origin["limits.max_attempts"] != "--max-attempts" ||
		f.origin["limits.max_body"] != path+":4" {
		t.Errorf("origins %v", f.origin)
	}
	// The file named by $DOWNLOADER_CONFIG, a bad variable named as such.
	t.Setenv(configEnv, path)
	t.Setenv("DOWNLOADER_LEASE", "forever")
	_, err = parseServeFlags(nil, env)
	if err == nil || !strings.Contains(err.Error(), `$DOWNLOADER_LEASE: limits.lease: "forever" is not a duration`) {
		t.Errorf("bad variable: %v", err)
	}
}

// TestConfigSecrets: secrets come from files or the environment, reach the
// settings that use them, and are never printed, whatever the verb.
func TestConfigSecrets(t *testing.T) {
	clearConfigEnv(t)
	const smtpPass, dbPass, s3Secret = "smtp-Pa55-word", "db-Pa55-word", "s3-Pa55-word"
	pwFile := writeFile(t, "smtp-password", smtpPass+"\n")
	path := writeFile(t, "serve.yaml", fmt.Sprintf("table: %s\n"+
		"database:\n  url: postgres://downloader@db.example.org/downloads\n  password: %s\n"+
		"storage:\n  location: s3://bucket/x?endpoint=http://127.0.0.1:1\n  access_key_id: AKIA\n"+
		"smtp:\n  host: mail.example.org\n  user: bob\n  password_file: %s\n", tableDir(t), dbPass, pwFile))
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	env, out, _ := testEnv()
	f, err := parseServeFlags([]string{"--config", path}, env)
	if err != nil {
		t.Fatal(err)
	}
	if f.conf.SMTP.Password.Reveal() != smtpPass || f.conf.Storage.SecretAccessKey.Reveal() != s3Secret {
		t.Fatalf("secrets did not arrive")
	}
	dsn, err := f.databaseURL()
	if err != nil || dsn != "postgres://downloader:"+dbPass+"@db.example.org/downloads" {
		t.Fatalf("database URL %q %v", dsn, err)
	}
	if err := runConfig(context.Background(), []string{"check", path}, env); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "conf", f.conf, "secret", f.conf.SMTP.Password)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "conf", f.conf, "secret", f.conf.SMTP.Password)
	j, _ := json.Marshal(f.conf)
	printed := out.String() + logs.String() + string(j) +
		fmt.Sprintf("%v %+v %#v %s %d %x %q %10.3v", f.conf, f.conf, f.conf, f.conf.SMTP.Password, f.conf.SMTP.Password,
			f.conf.SMTP.Password, f.conf.SMTP.Password, f.conf.SMTP.Password)
	for _, s := range []string{smtpPass, dbPass, s3Secret} {
		if strings.Contains(printed, s) {
			t.Errorf("secret %q printed:\n%s", s, printed)
		}
	}
	for _, want := range []string{"password: '[redacted]' # from " + path + ":11 (file " + pwFile + ")",
		"secret_access_key: '[redacted]' # from $AWS_SECRET_ACCESS_KEY", "url: postgres://downloader@db.example.org/downloads"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("config check does not say %q:\n%s", want, out)
		}
	}
	// One of a secret and its file, in the environment too.
	t.Setenv("DOWNLOADER_SMTP_PASSWORD", "x")
	t.Setenv("DOWNLOADER_SMTP_PASSWORD_FILE", pwFile)
	if _, err := parseServeFlags([]string{"--config", path}, env); err == nil ||
		!strings.Contains(err.Error(), "give $DOWNLOADER_SMTP_PASSWORD or $DOWNLOADER_SMTP_PASSWORD_FILE, not both") {
		t.Errorf("both: %v", err)
	}
	os.Unsetenv("DOWNLOADER_SMTP_PASSWORD_FILE")
	f, err = parseServeFlags([]string{"--config", path}, env)
	if err != nil || f.conf.SMTP.Password.Reveal() != "x" {
		t.Errorf("the variable does not override the file: %v", err)
	}
}

func TestDurationsAndSizes(t *testing.T) {
	for s, want := range map[string]time.Duration{"90s": 90 * time.Second, "183d": 183 * 24 * time.Hour,
		"1d12h": 36 * time.Hour, "1h30m": 90 * time.Minute, "0": 0} {
		if got, err := parseDuration(s); err != nil || got != want {
			t.Errorf("%s: %s %v", s, got, err)
		}
		if got, _ := parseDuration(duration(want).String()); got != want {
			t.Errorf("%s does not read back", duration(want))
		}
	}
	for _, bad := range []string{"", "d", "1d-2h", "3 days", "99999999d"} {
		if _, err := parseDuration(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	for s, want := range map[string]int64{"1048576": 1 << 20, "1MiB": 1 << 20, "8 MB": 8e6, "512kib": 512 << 10, "0": 0} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("%s: %d %v", s, got, err)
		}
		if got, _ := parseSize(byteSize(want).String()); got != want {
			t.Errorf("%s does not read back", byteSize(want))
		}
	}
	for _, bad := range []string{"", "MiB", "-1", "1.5MiB", "9999999999TiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzConfigParse: any input is either decoded or rejected with messages
// that name the file; a decoded configuration prints as YAML that decodes
// to the same configuration.
func FuzzConfigParse(f *testing.F) {
	example, err := os.ReadFile(exampleConfig)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	for _, s := range []string{"", "listen: x\n", "smtp:\n  prot: 1\n", "limits: {workers: 2, max_body: 1GiB}\n",
		"schedules:\n  - {name: a, cron: '@daily', kind: export, params: {format: DWCA, predicate: {type: and, predicates: []}}}\n",
		"a: &x [1]\nb: *x\n", "erase: {after: 1d2h}\n", "portal: {name: \"\\u00e9\"}\n", "- 1\n- 2\n", "? [a]\n: b\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c fileConfig
		d := newConfigDecoder("fuzz.yaml")
		d.parse(data, &c)
		if err := d.err(); err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") && line != "(more errors not shown)" {
					t.Fatalf("error without the file: %q", line)
				}
			}
			return
		}
		var out bytes.Buffer
		if err := printConfig(&out, &c, d.origin); err != nil {
			t.Fatalf("print: %v", err)
		}
		var again fileConfig
		d2 := newConfigDecoder("printed.yaml")
		d2.parse(out.Bytes(), &again)
		if err := d2.err(); err != nil {
			t.Fatalf("printed configuration does not decode: %v\n%s", err, out.String())
		}
		// Secrets print redacted; predicates go through JSON numbers.
		for _, cc := range []*fileConfig{&c, &again} {
			cc.Database.Password, cc.SMTP.Password, cc.Storage.SecretAccessKey = secret{}, secret{}, secret{}
			for i := range cc.Schedules {
				cc.Schedules[i].Params.Predicate = nil
			}
		}
		a, _ := json.Marshal(c)
		b, _ := json.Marshal(again)
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip differs:\n%s\n%s\nprinted:\n%s", a, b, out.String())
		}
	})
}

// TestHeartbeatWithinLease: a heartbeat over half the lease (the worker
// renews its lease once a heartbeat) is refused by config check and by
// serve before it starts, naming the keys; half the lease is accepted.
func TestHeartbeatWithinLease(t *testing.T) {
	clearConfigEnv(t)
	path := writeFile(t, "serve.yaml", "limits:\n  lease: 1m\n  heartbeat: 30s\ntable: "+tableDir(t)+"\n")
	env, _, _ := testEnv()
	if _, err := parseServeFlags([]string{"--config", path}, env); err != nil {
		t.Fatalf("half the lease: %v", err)
	}
	err := runConfig(context.Background(), []string{"check", path}, env)
	if err != nil {
		t.Fatalf("config check of half the lease: %v", err)
	}
	err = runServe(context.Background(), []string{"--config", path, "--heartbeat", "1m"}, env)
	if err == nil || !strings.Contains(err.Error(), "--heartbeat: limits.heartbeat, limits.lease: heartbeat 1m0s is more than half the lease 1m0s") {
		t.Errorf("serve with heartbeat = lease: %v", err)
	}
	t.Setenv("DOWNLOADER_LEASE", "20s")
	err = runConfig(context.Background(), []string{"check", path}, env)
	if err == nil || !strings.Contains(err.Error(), path+":3: limits.heartbeat, limits.lease: heartbeat 30s is more than half the lease 20s") {
		t.Errorf("config check with a lease from the environment: %v", err)
	}
}

// TestConfigCheckAsServe: config check refuses what serve would refuse
// before it starts, without connecting anywhere (the ops audit's item 3),
// and lists the schedules' mistakes with the decoding's.
func TestConfigCheckAsServe(t *testing.T) {
	clearConfigEnv(t)
	table := tableDir(t)
	overrides := t.TempDir()
	tmpl := filepath.Join(overrides, "mail", "templates")
	if err := os.MkdirAll(tmpl, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmpl, "success.text.tmpl"), []byte("Hello\n{{.Key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pageOverrides := filepath.Join(t.TempDir(), "web")
	if err := os.MkdirAll(pageOverrides, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pageOverrides, "header.html"), []byte("<b>{{.Portal</b>\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	aFile := writeFile(t, "not-a-dir", "x")
	cases := []struct{ text, want string }{
		{"table: " + table + "\nstorage:\n  location: " + aFile + "/archives\n",
			`serve.yaml:3: storage.location: storage directory ` + aFile + `/archives: ` + aFile + ` is not a directory`},
		{"table: " + table + "\nstorage:\n  location: s3://bucket/dl?endpoint=localhost:7070\n",
			`serve.yaml:3: storage.location: --storage: endpoint="localhost:7070" is not an http(s) URL`},
		{"table: " + table + "\noverrides: " + filepath.Dir(pageOverrides) + "\n",
			`serve.yaml:2: overrides: page template ` + filepath.Join(pageOverrides, "header.html")},
		{"table: " + table + "\nsmtp:\n  host: smtp.example.org\n  tls: none\n  user: u\n  password: x\n",
			`serve.yaml:3: smtp: smtp: TLS "none" with a password to smtp.example.org`},
		{"table: " + table + "\nrole: worker\nsmtp:\n  host: smtp.example.org\n",
			`serve.yaml:2: public_url: missing: in the worker role, smtp.host needs public_url`},
		{"table: " + table + "\noverrides: " + overrides + "\nsmtp:\n  host: smtp.example.org\n",
			`serve.yaml:2: overrides: mail template ` + filepath.Join(tmpl, "success.text.tmpl")},
		{"table: /nonexistent/table\n", `serve.yaml:1: table: open table /nonexistent/table: no occurrence table: the directory does not exist`},
		{"table: " + t.TempDir() + "\n", `table: open table`},
		{"listen: 127.0.0.1:0\n", `table: missing: the occurrence table`},
		{"table: " + table + "\nexport_table: " + t.TempDir() + "\n", `serve.yaml:2: export_table: --export-table `},
		// Every mistake at once: decoding's and the schedules'.
		{"smtp:\n  prot: 25\nlimits:\n  workers: many\nschedules:\n  - {name: Bad Name, cron: \"61 * * * *\", kind: erasee}\n",
			`serve.yaml:2: smtp.prot: unknown key (did you mean port?)` + "\n" +
				`serve.yaml:4: limits.workers: "many" is not a whole number` + "\n" +
				`serve.yaml:6: schedules[0].name: "Bad Name": lower-case letters, digits, - and _ (at most 64)` + "\n" +
				`serve.yaml:6: schedules[0].cron: "61 * * * *": end of range (61) above maximum (59): 61` + "\n" +
				`serve.yaml:6: schedules[0].kind: "erasee": want erase, digest, rollover or export`},
	}
	for _, c := range cases {
		path := writeFile(t, "serve.yaml", c.text)
		env, _, _ := testEnv()
		err := runConfig(context.Background(), []string{"check", path}, env)
		want := strings.ReplaceAll(c.want, "serve.yaml:", path+":")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q:\n got %v\nwant %s", c.text, err, want)
		}
		if err2 := runServe(context.Background(), []string{"--config", path, "--check"}, env); fmt.Sprint(err2) != fmt.Sprint(err) {
			t.Errorf("serve --check: %v, config check: %v", err2, err)
		}
	}
	// A decoding error and a schedule's on the same key: one error.
	path := writeFile(t, "serve.yaml", "schedules:\n  - {name: a, cron: [1], kind: erase}\n")
	env, _, _ := testEnv()
	err := runConfig(context.Background(), []string{"check", path}, env)
	if err == nil || strings.Count(err.Error(), "\n") != 0 || !strings.Contains(err.Error(), "schedules[0].cron: want one value") {
		t.Errorf("a cron that is a list: %v", err)
	}
	// An HBase table is not contacted; the rest passes.
	path = writeFile(t, "serve.yaml", "table: hbase://127.0.0.1:1/occ\nsmtp:\n  host: 127.0.0.1\n  tls: none\n  user: u\n  password: x\n")
	if err := runConfig(context.Background(), []string{"check", path}, env); err != nil {
		t.Errorf("hbase table, loopback SMTP without TLS: %v", err)
	}
}

// TestMailOnlyWithSMTP: a digest schedule and an erasure warning that was
// set need smtp.host (from the file or --smtp); the default warning and
// none do not. The example configuration passes serve's check.
func TestMailOnlyWithSMTP(t *testing.T) {
	clearConfigEnv(t)
	env, _, _ := testEnv()
	digest := "mail:\n  operators: ops@example.org\nerase:\n  warn_before: 7d\nschedules:\n  - {name: d, cron: '@daily', kind: digest}\n"
	path := writeFile(t, "serve.yaml", digest)
	if _, err := parseServeFlags([]string{"--config", path, "--smtp", "127.0.0.1:25"}, env); err != nil {
		t.Errorf("with --smtp: %v", err)
	}
	if _, err := parseServeFlags([]string{"--config", path}, env); err == nil || strings.Count(err.Error(), "smtp.host is not set") != 2 {
		t.Errorf("without SMTP: %v", err)
	}
	path = writeFile(t, "serve.yaml", "erase:\n  warn_before: 0s\n")
	if _, err := parseServeFlags([]string{"--config", path}, env); err != nil {
		t.Errorf("no warning: %v", err)
	}
	t.Setenv("DOWNLOADER_TABLE", tableDir(t))
	if err := runConfig(context.Background(), []string{"check", exampleConfig}, env); err != nil {
		t.Errorf("config check of the example: %v", err)
	}
}

// TestNoContactForm: page.contact_per_day -1 ("negative: no contact form")
// is accepted from the file, the environment and the flag, and reaches the
// page (which then has no contact form; web's TestPageContactOff).
func TestNoContactForm(t *testing.T) {
	clearConfigEnv(t)
	env, _, _ := testEnv()
	path := writeFile(t, "serve.yaml", "page:\n  contact_per_day: -1\n")
	f, err := parseServeFlags([]string{"--config", path}, env)
	if err != nil || f.page.contactPerDay != -1 {
		t.Errorf("file: %d %v", f.page.contactPerDay, err)
	}
	if f, err = parseServeFlags([]string{"--contact-per-day", "-2"}, env); err != nil || f.page.contactPerDay != -2 {
		t.Errorf("flag: %d %v", f.page.contactPerDay, err)
	}
	t.Setenv("DOWNLOADER_CONTACT_PER_DAY", "-1")
	if f, err = parseServeFlags(nil, env); err != nil || f.page.contactPerDay != -1 {
		t.Errorf("environment: %d %v", f.page.contactPerDay, err)
	}
}

// TestUnknownEnvWarned: a DOWNLOADER_ variable no setting reads is named on
// stderr, one line each, with the closest one; config check without FILE
// reads $DOWNLOADER_CONFIG.
func TestUnknownEnvWarned(t *testing.T) {
	clearConfigEnv(t)
	t.Setenv("DOWNLOADER_WORKER", "9")
	t.Setenv("DOWNLOADER_HTTP_READ_TIMEOUT", "4s")
	t.Setenv("DOWNLOADER_WORKERS", "3")
	t.Setenv("DOWNLOADER_TEST_SOMETHING", "1")
	env, _, errOut := testEnv()
	f, err := parseServeFlags(nil, env)
	if err != nil || f.jobs.Workers != 3 {
		t.Fatalf("%d %v", f.jobs.Workers, err)
	}
	want := "warning: $DOWNLOADER_HTTP_READ_TIMEOUT is not a setting of downloader serve: ignored (did you mean $DOWNLOADER_READ_TIMEOUT?)\n" +
		"warning: $DOWNLOADER_WORKER is not a setting of downloader serve: ignored (did you mean $DOWNLOADER_WORKERS?)\n"
	if errOut.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}
	path := writeFile(t, "serve.yaml", "table: "+tableDir(t)+"\nlimits:\n  workers: 4\n")
	t.Setenv(configEnv, path)
	env, out, _ := testEnv()
	if err := runConfig(context.Background(), []string{"check"}, env); err != nil || !strings.Contains(out.String(), "workers: 3 # $DOWNLOADER_WORKERS") {
		t.Errorf("config check with $%s: %v\n%s", configEnv, err, out)
	}
}

// TestSMTPFlagNamesItsPort: --smtp gives the port over the environment's,
// and the printed configuration says so.
func TestSMTPFlagNamesItsPort(t *testing.T) {
	clearConfigEnv(t)
	t.Setenv("DOWNLOADER_SMTP_PORT", "2525")
	path := writeFile(t, "serve.yaml", "table: "+tableDir(t)+"\nsmtp:\n  host: mail.example.org\n")
	env, out, errOut := testEnv()
	if rc := run(context.Background(), []string{"serve", "--config", path, "--check", "--smtp", "127.0.0.1:1025"}, env); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errOut)
	}
	for _, want := range []string{"host: 127.0.0.1 # --smtp", "port: 1025 # --smtp"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed configuration lacks %q:\n%s", want, out)
		}
	}
}
