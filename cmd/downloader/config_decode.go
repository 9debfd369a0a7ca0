package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// configDecoder reads a YAML configuration into a fileConfig by walking the
// document's nodes against the struct's yaml tags, so that every error names
// the file, the line and the key ("serve.yaml:12: smtp.prot: unknown key
// (did you mean port?)"), and it remembers where each key was set.
type configDecoder struct {
	file string
	// origin says where each key path got its value: "FILE:LINE", "$VAR"
	// or "--flag".
	origin map[string]string
	errs   []string
	// bad are the key paths whose value did not decode: a check of one of
	// them, or of a key under one, would only repeat the error. decoded
	// ends the decoding: the checks' errors do not hide each other.
	bad     []string
	decoded bool
}

// Bounds of what a configuration may be.
const (
	maxConfigBytes  = 1 << 20
	maxSecretBytes  = 64 << 10
	maxSchedules    = 1000
	maxConfigErrors = 20
)

func newConfigDecoder(file string) *configDecoder {
	return &configDecoder{file: file, origin: map[string]string{}}
}

// fail records an error at where (a position or a variable) about key path.
func (d *configDecoder) fail(where, path, format string, args ...any) {
	if d.failed(path) {
		return
	}
	if path != "" && !d.decoded {
		d.bad = append(d.bad, path)
	}
	if len(d.errs) == maxConfigErrors {
		d.errs = append(d.errs, "(more errors not shown)")
	}
	if len(d.errs) > maxConfigErrors {
		return
	}
	msg := fmt.Sprintf(format, args...)
	if path != "" {
		msg = path + ": " + msg
	}
	if where != "" {
		msg = where + ": " + msg
	}
	d.errs = append(d.errs, msg)
}

// failed reports whether path, or a key it is under, has an error.
func (d *configDecoder) failed(path string) bool {
	for _, b := range d.bad {
		if path == b || strings.HasPrefix(path, b+".") || strings.HasPrefix(path, b+"[") {
			return true
		}
	}
	return false
}

func (d *configDecoder) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	return errors.New(strings.Join(d.errs, "\n"))
}

func (d *configDecoder) pos(n *yaml.Node) string { return d.file + ":" + strconv.Itoa(n.Line) }

// readFile reads and decodes the configuration file.
func (d *configDecoder) readFile(c *fileConfig) {
	f, err := os.Open(d.file)
	if err != nil {
		d.fail("", "", "config: %v", err)
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		d.fail(d.file, "", "%v", err)
		return
	}
	d.parse(data, c)
}

// parse decodes one YAML document into c.
func (d *configDecoder) parse(data []byte, c *fileConfig) {
	if len(data) > maxConfigBytes {
		d.fail(d.file, "", "larger than %d bytes", maxConfigBytes)
		return
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if !errors.Is(err, io.EOF) {
			d.yamlError(data, err)
		}
		return
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		d.fail(d.pos(&next), "", "a second YAML document: the configuration is one document")
		return
	case !errors.Is(err, io.EOF):
		d.yamlError(data, err)
		return
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			return
		}
		root = root.Content[0]
	}
	d.value(root, reflect.ValueOf(c).Elem(), "")
}

var yamlLineRE = regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`)

// yamlError reports a syntax error in data as FILE:LINE: message.
func (d *configDecoder) yamlError(data []byte, err error) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		d.fail(d.file+":"+m[1], "", "%s", m[2])
		return
	}
	where := d.file
	if line := errorLine(data, msg); line > 0 {
		where += ":" + strconv.Itoa(line)
	}
	d.fail(where, "", "%s", strings.TrimPrefix(msg, "yaml: "))
}

// maxErrorLineSearch bounds errorLine's work (it parses a prefix per line).
const maxErrorLineSearch = 2000

// errorLine finds the line of a syntax error the YAML library gave without
// one (it leaves the first line out, and some errors have none): the first
// line whose prefix of data fails with the same message; 0 when none does.
func errorLine(data []byte, msg string) int {
	end := 0
	for line := 1; line <= maxErrorLineSearch && end < len(data); line++ {
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(data)
		}
		var n yaml.Node
		if err := yaml.NewDecoder(bytes.NewReader(data[:end])).Decode(&n); err != nil && err.Error() == msg {
			return line
		}
	}
	return 0
}

var (
	secretType   = reflect.TypeFor[secret]()
	durationType = reflect.TypeFor[duration]()
	sizeType     = reflect.TypeFor[byteSize]()
	jsonType     = reflect.TypeFor[jsonValue]()
)

// isScalar reports whether values of t are written as one YAML scalar.
func isScalar(t reflect.Type) bool {
	switch t {
	case secretType, durationType, sizeType:
		return true
	case jsonType:
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Int, reflect.Int64, reflect.Bool:
		return true
	}
	return false
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// value decodes node n into v, the field at key path.
func (d *configDecoder) value(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind == yaml.AliasNode {
		d.fail(d.pos(n), path, "aliases (*%s) are not supported: write the value out", n.Value)
		return
	}
	t := v.Type()
	if t == jsonType {
		d.jsonValue(n, v, path)
		return
	}
	if isNull(n) {
		return // "key:" with nothing: not set
	}
	switch {
	case isScalar(t):
		d.scalar(n, v, path)
	case t.Kind() == reflect.Struct:
		d.mapping(n, v, path)
	case t.Kind() == reflect.Slice:
		d.sequence(n, v, path)
	default:
		panic("config: no decoder for " + t.String())
	}
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "keys and values"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (d *configDecoder) scalar(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.ScalarNode {
		d.fail(d.pos(n), path, "want one value, got %s", describe(n))
		return
	}
	if err := setScalar(v, n.Value); err != nil {
		d.fail(d.pos(n), path, "%v", err)
		return
	}
	d.origin[path] = d.pos(n)
}

// setScalar parses s into v (a scalar type of the configuration).
func setScalar(v reflect.Value, s string) error {
	switch v.Type() {
	case durationType:
		t, err := parseDuration(s)
		if err != nil {
			return err
		}
		v.SetInt(int64(t))
		return nil
	case sizeType:
		n, err := parseSize(s)
		if err != nil {
			return err
		}
		v.SetInt(n)
		return nil
	case secretType:
		v.Set(reflect.ValueOf(secret{value: s, source: "the configuration"}))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || v.OverflowInt(n) {
			return fmt.Errorf("%q is not a whole number", s)
		}
		v.SetInt(n)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("%q is not true or false", s)
		}
		v.SetBool(b)
	default:
		panic("config: no scalar parser for " + v.Type().String())
	}
	return nil
}

// jsonValue keeps any YAML value as JSON.
func (d *configDecoder) jsonValue(n *yaml.Node, v reflect.Value, path string) {
	if isNull(n) {
		return
	}
	var x any
	if err := n.Decode(&x); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		var te *yaml.TypeError
		if errors.As(err, &te) {
			msg = strings.Join(te.Errors, "; ")
		}
		d.fail(d.pos(n), path, "%s", msg)
		return
	}
	b, err := json.Marshal(x)
	if err != nil {
		d.fail(d.pos(n), path, "not expressible as JSON: %v", err)
		return
	}
	v.SetBytes(b)
	d.origin[path] = d.pos(n)
}

// fieldsOf maps the yaml names of struct type t to field indexes.
func fieldsOf(t reflect.Type) map[string]int {
	m := map[string]int{}
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" {
			m[name] = i
		}
	}
	return m
}

// keyNames lists the keys a mapping of type t accepts (secrets with their
// _file twins), for suggestions.
func keyNames(t reflect.Type) []string {
	var names []string
	for name, i := range fieldsOf(t) {
		names = append(names, name)
		if t.Field(i).Type == secretType {
			names = append(names, name+"_file")
		}
	}
	return names
}

func (d *configDecoder) mapping(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(d.pos(n), path, "want keys and values, got %s", describe(n))
		return
	}
	t := v.Type()
	fields := fieldsOf(t)
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.fail(d.pos(k), path, "a key must be a plain word, got %s", describe(k))
			continue
		}
		name, p := k.Value, joinPath(path, k.Value)
		if line, dup := seen[name]; dup {
			d.fail(d.pos(k), p, "given twice (also on line %d)", line)
			continue
		}
		seen[name] = k.Line
		idx, ok := fields[name]
		isFile := false
		if base, cut := strings.CutSuffix(name, "_file"); !ok && cut {
			if j, found := fields[base]; found && t.Field(j).Type == secretType {
				idx, ok, isFile = j, true, true
			}
		}
		if !ok {
			d.fail(d.pos(k), p, "unknown key%s", suggestion(name, keyNames(t)))
			continue
		}
		if t.Field(idx).Type == secretType {
			d.secretKey(k, val, v.Field(idx), path, isFile, seen)
			continue
		}
		d.value(val, v.Field(idx), p)
	}
}

// secretKey reads KEY (the secret itself) or KEY_file (a file holding it).
func (d *configDecoder) secretKey(k, val *yaml.Node, v reflect.Value, path string, isFile bool, seen map[string]int) {
	base := strings.TrimSuffix(k.Value, "_file")
	other := base + "_file"
	if isFile {
		other = base
	}
	p := joinPath(path, k.Value)
	if line, both := seen[other]; both {
		d.fail(d.pos(k), p, "give %s or %s_file, not both (the other is on line %d)", base, base, line)
		return
	}
	if val.Kind == yaml.AliasNode || val.Kind != yaml.ScalarNode {
		d.fail(d.pos(val), p, "want one value, got %s", describe(val))
		return
	}
	if isNull(val) || val.Value == "" {
		return
	}
	s := secret{value: val.Value, source: d.pos(val)}
	if isFile {
		value, err := readSecretFile(val.Value)
		if err != nil {
			d.fail(d.pos(val), p, "%v", err)
			return
		}
		s = secret{value: value, source: d.pos(val) + " (file " + val.Value + ")"}
	}
	v.Set(reflect.ValueOf(s))
	d.origin[joinPath(path, base)] = d.pos(val)
}

// readSecretFile reads a secret from a file, without its final line break.
func readSecretFile(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxSecretBytes {
		return "", fmt.Errorf("%s: larger than %d bytes", name, maxSecretBytes)
	}
	s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if s == "" {
		return "", fmt.Errorf("%s is empty", name)
	}
	return s, nil
}

func (d *configDecoder) sequence(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(d.pos(n), path, "want a list, got %s", describe(n))
		return
	}
	if len(n.Content) > maxSchedules {
		d.fail(d.pos(n), path, "%d entries; at most %d", len(n.Content), maxSchedules)
		return
	}
	for i, item := range n.Content {
		p := fmt.Sprintf("%s[%d]", path, i)
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(item, elem, p)
		d.origin[p] = d.pos(item)
		v.Set(reflect.Append(v, elem))
	}
}

// suggestion is " (did you mean X?)" for the known name closest to name,
// or "" when none is close.
func suggestion(name string, known []string) string {
	if best := closest(name, known); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}

// closest is the name of known nearest to name, within half its length
// plus one edit; "" when none is.
func closest(name string, known []string) string {
	best, bestDist := "", len(name)/2+2
	for _, k := range known {
		if dist := editDistance(name, k); dist < bestDist || (dist == bestDist && k < best) {
			best, bestDist = k, dist
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of neighbours cost 1
// ("prot" is one from "port").
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return max(len(a), len(b))
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
