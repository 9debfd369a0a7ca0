package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// configLeaf is one scalar key of the configuration.
type configLeaf struct {
	path  string
	index []int
	typ   reflect.Type
	// flag is the serve flag the key sets ("" for keys only the file has).
	flag string
	// env is the variable that overrides the file.
	env string
	// signed keys may be negative.
	signed bool
}

// configLeaves lists the scalar keys of fileConfig in file order (the
// schedules list is not among them: it has no flags or variables).
func configLeaves() []configLeaf {
	var out []configLeaf
	var walk func(t reflect.Type, path string, index []int)
	walk = func(t reflect.Type, path string, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			p := joinPath(path, name)
			idx := append(append([]int{}, index...), i)
			switch {
			case isScalar(f.Type):
				l := configLeaf{path: p, index: idx, typ: f.Type, flag: f.Tag.Get("flag"), env: f.Tag.Get("env"), signed: f.Tag.Get("signed") == "true"}
				if l.env == "" && l.flag != "" {
					l.env = envName(l.flag)
				} else if l.env == "" {
					l.env = envName(p)
				}
				out = append(out, l)
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, p, idx)
			}
		}
	}
	walk(reflect.TypeFor[fileConfig](), "", nil)
	return out
}

// envName is DOWNLOADER_ and name in capitals, '-' and '.' as '_'.
func envName(name string) string {
	return "DOWNLOADER_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
}

// configEnv names the variable holding the configuration file's path when
// --config is not given.
const configEnv = "DOWNLOADER_CONFIG"

// applyServeConfig layers the settings of `downloader serve`: defaults, then
// the configuration file (--config, else $DOWNLOADER_CONFIG), then the
// environment, then the flags given on the command line. It leaves the
// effective values in the flags and in f.conf, and rejects unknown keys and
// bad values with the file, line and key. It returns the decoder, holding
// the validation's errors, for the checks that follow.
func applyServeConfig(fs *flag.FlagSet, f *serveFlags) (*configDecoder, error) {
	explicit := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { explicit[fl.Name] = true })
	if f.configPath == "" {
		f.configPath = os.Getenv(configEnv)
	}
	d := newConfigDecoder(f.configPath)
	var c fileConfig
	if f.configPath != "" {
		d.readFile(&c)
	}
	leaves := configLeaves()
	warnUnknownEnv(f.stderr, os.Environ(), leaves)
	d.applyEnv(&c, leaves)
	d.applyFlags(fs, &c, leaves, explicit)
	d.decoded = true
	// The schedules' own rules need no other key: their mistakes are listed
	// with the decoding's.
	d.validateSchedules(c.Schedules)
	if err := d.err(); err != nil {
		return nil, err
	}
	d.effective(fs, &c, leaves)
	d.validate(&c)
	f.conf, f.origin = c, d.origin
	return d, nil
}

// otherEnv are the DOWNLOADER_ variables that are not settings of serve:
// the user commands' password, and the tests' (DOWNLOADER_TEST_*).
var otherEnv = []string{configEnv, "DOWNLOADER_PASSWORD", "DOWNLOADER_SCREENSHOTS"}

// warnUnknownEnv writes one line to w for each DOWNLOADER_ variable of
// environ (NAME=VALUE) that no setting reads: a mistyped variable would
// otherwise be ignored without a word.
func warnUnknownEnv(w io.Writer, environ []string, leaves []configLeaf) {
	if w == nil {
		return
	}
	known := append([]string{}, otherEnv...)
	for _, l := range leaves {
		known = append(known, l.env)
		if l.typ == secretType {
			known = append(known, l.env+"_FILE")
		}
	}
	var unknown []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "DOWNLOADER_") && !strings.HasPrefix(name, "DOWNLOADER_TEST_") &&
			value != "" && !slices.Contains(known, name) {
			unknown = append(unknown, name)
		}
	}
	// Nearness is measured without the common prefix.
	short := make([]string, len(known))
	for i, k := range known {
		short[i] = strings.TrimPrefix(k, "DOWNLOADER_")
	}
	slices.Sort(unknown)
	for _, name := range unknown {
		hint := ""
		if best := closest(strings.TrimPrefix(name, "DOWNLOADER_"), short); best != "" {
			hint = " (did you mean $DOWNLOADER_" + best + "?)"
		}
		fmt.Fprintf(w, "warning: $%s is not a setting of downloader serve: ignored%s\n", name, hint)
	}
}

// applyEnv sets the keys whose variables are set.
func (d *configDecoder) applyEnv(c *fileConfig, leaves []configLeaf) {
	root := reflect.ValueOf(c).Elem()
	for _, l := range leaves {
		v := root.FieldByIndex(l.index)
		val, file := os.Getenv(l.env), ""
		if l.typ == secretType {
			file = os.Getenv(l.env + "_FILE")
			if val != "" && file != "" {
				d.fail("$"+l.env, l.path, "give $%s or $%s_FILE, not both", l.env, l.env)
				continue
			}
		}
		switch {
		case file != "":
			s, err := readSecretFile(file)
			if err != nil {
				d.fail("$"+l.env+"_FILE", l.path, "%v", err)
				continue
			}
			v.Set(reflect.ValueOf(secret{value: s, source: "$" + l.env + "_FILE (file " + file + ")"}))
			d.origin[l.path] = "$" + l.env + "_FILE"
		case val != "" && l.typ == secretType:
			v.Set(reflect.ValueOf(secret{value: val, source: "$" + l.env}))
			d.origin[l.path] = "$" + l.env
		case val != "":
			if err := setScalar(v, val); err != nil {
				d.fail("$"+l.env, l.path, "%v", err)
				continue
			}
			d.origin[l.path] = "$" + l.env
		}
	}
}

// applyFlags sets the flags the file or the environment gave a value and
// the command line did not.
func (d *configDecoder) applyFlags(fs *flag.FlagSet, c *fileConfig, leaves []configLeaf, explicit map[string]bool) {
	root := reflect.ValueOf(c).Elem()
	for _, l := range leaves {
		if l.flag == "" {
			continue
		}
		if explicit[l.flag] {
			d.origin[l.path] = "--" + l.flag
			continue
		}
		where, ok := d.origin[l.path]
		if !ok {
			continue
		}
		if err := fs.Set(l.flag, flagText(root.FieldByIndex(l.index))); err != nil {
			d.fail(where, l.path, "%v", err)
		}
	}
	// --smtp is host:port; the file and environment give them apart.
	switch {
	case explicit["smtp"]:
		// The flag gives the port too, over the file's and the environment's.
		d.origin["smtp.host"] = "--smtp"
		d.origin["smtp.port"] = "--smtp"
	case c.SMTP.Host != "":
		port := c.SMTP.Port
		if port == 0 {
			port = defaultSMTPPort(c.SMTP.TLS)
		}
		_ = fs.Set("smtp", net.JoinHostPort(c.SMTP.Host, strconv.Itoa(port)))
	}
}

// defaultSMTPPort is the submission port of a TLS mode.
func defaultSMTPPort(mode string) int {
	switch mode {
	case smtpImplicitTLS, "implicit":
		return 465
	case smtpNoTLS:
		return 25
	}
	return 587
}

// flagText is a configuration value as its flag parses it.
func flagText(v reflect.Value) string {
	switch v.Type() {
	case durationType:
		return time.Duration(v.Int()).String()
	case sizeType:
		return strconv.FormatInt(v.Int(), 10)
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return v.String()
}

// effective copies the flags' values (defaults included) into c, so that c
// holds what the service runs with.
func (d *configDecoder) effective(fs *flag.FlagSet, c *fileConfig, leaves []configLeaf) {
	root := reflect.ValueOf(c).Elem()
	for _, l := range leaves {
		if l.flag == "" {
			continue
		}
		fl := fs.Lookup(l.flag)
		if fl == nil {
			panic("config: key " + l.path + " names no serve flag --" + l.flag)
		}
		if err := setScalar(root.FieldByIndex(l.index), fl.Value.String()); err != nil {
			d.fail(d.origin[l.path], l.path, "%v", err)
		}
	}
	if addr := fs.Lookup("smtp").Value.String(); addr != "" {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			d.fail(d.origin["smtp.host"], "smtp", "%q is not host:port", addr)
			return
		}
		c.SMTP.Host = host
		c.SMTP.Port, _ = strconv.Atoi(port)
	}
}
