package parquet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// decodeManifest decodes a manifest. Most of its bytes are row-group
// statistics that stay encoded (rowGroupEntry.Stats), so rather than
// encoding/json's reflection over every byte, the JSON is validated once
// (gjson) and walked once (jsonWalker), the statistics kept as found; only
// each dataset's small description goes through encoding/json. Every
// process that opens a table reads its manifest (1 MB for 1M generated
// records): this is several times faster.
func decodeManifest(data []byte, path string) (*manifest, error) {
	corrupt := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCorruptManifest, path, fmt.Sprintf(format, args...))
	}
	if !gjson.ValidBytes(data) {
		return nil, corrupt("not valid JSON")
	}
	w := &jsonWalker{b: data}
	m := manifest{Datasets: map[string]*datasetEntry{}}
	err := w.object(func(key []byte) (err error) {
		switch jsonKey(key, "format", "snapshot", "created", "datasets", "segments", "source") {
		case "format":
			var f int64
			f, err = jsonInt(w.value(), "format")
			m.Format = int(f)
		case "snapshot":
			m.Snapshot, err = jsonInt(w.value(), "snapshot")
		case "created":
			err = json.Unmarshal(w.value(), &m.Created)
		case "datasets":
			err = w.datasets(m.Datasets)
		case "segments":
			m.Segments, err = w.segments()
		case "source":
			err = json.Unmarshal(w.value(), &m.Source)
		default:
			w.value()
		}
		return err
	})
	if err != nil {
		return nil, corrupt("%v", err)
	}
	if m.Format != manifestFormat && m.Format != manifestFormatSegments {
		return nil, corrupt("format %d, want %d or %d", m.Format, manifestFormat, manifestFormatSegments)
	}
	return &m, nil
}

func (w *jsonWalker) datasets(out map[string]*datasetEntry) error {
	if w.null() {
		clear(out) // as encoding/json, which sets the map to nil
		return nil
	}
	return w.object(func(key []byte) error {
		e, err := w.dataset()
		if err != nil {
			return fmt.Errorf("dataset %s: %w", key, err)
		}
		out[string(key)] = e
		return nil
	})
}

// dataset decodes one dataset: its files by hand, the rest (the dataset's
// description) with encoding/json.
func (w *jsonWalker) dataset() (*datasetEntry, error) {
	e := &datasetEntry{}
	head := []byte{'{'}
	err := w.object(func(key []byte) (err error) {
		switch jsonKey(key, "files", "generation", "ids", "segment") {
		case "files":
			e.Files, err = w.files()
		case "generation":
			err = json.Unmarshal(w.value(), &e.Generation)
		case "segment":
			err = json.Unmarshal(w.value(), &e.Segment)
		case "ids":
			err = json.Unmarshal(w.value(), &e.IDs)
		default:
			if len(head) > 1 {
				head = append(head, ',')
			}
			head = append(append(append(head, w.key...), ':'), w.value()...)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(append(head, '}'), &e.DatasetInfo); err != nil {
		return nil, err
	}
	return e, nil
}

func (w *jsonWalker) files() ([]fileEntry, error) {
	if w.null() {
		return nil, nil
	}
	var files []fileEntry
	err := w.array(func() error {
		var f fileEntry
		err := w.object(func(key []byte) (err error) {
			switch jsonKey(key, "path", "rows", "bytes", "rowGroups") {
			case "path":
				err = json.Unmarshal(w.value(), &f.Path)
			case "rows":
				f.Rows, err = jsonInt(w.value(), "rows")
			case "bytes":
				f.Bytes, err = jsonInt(w.value(), "bytes")
			case "rowGroups":
				f.RowGroups, err = w.rowGroups()
			default:
				w.value()
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("file %s: %w", f.Path, err)
		}
		files = append(files, f)
		return nil
	})
	return files, err
}

func (w *jsonWalker) rowGroups() ([]rowGroupEntry, error) {
	if w.null() {
		return nil, nil
	}
	var groups []rowGroupEntry
	err := w.array(func() error {
		var g rowGroupEntry
		err := w.object(func(key []byte) (err error) {
			switch jsonKey(key, "rows", "stats", "datasets") {
			case "rows":
				g.Rows, err = jsonInt(w.value(), "rows")
			case "datasets":
				if c := w.peek(); c != '[' && c != 'n' {
					return errors.New("datasets is not an array")
				}
				g.Datasets = json.RawMessage(w.value())
			case "stats":
				// null is kept as encoding/json keeps it in a RawMessage
				if c := w.peek(); c != '{' && c != 'n' {
					return errors.New("stats is not an object")
				}
				g.Stats = json.RawMessage(w.value())
			default:
				w.value()
			}
			return err
		})
		if err != nil {
			return err
		}
		g.split = &splitStats{rows: g.Rows, raw: g.Stats}
		groups = append(groups, g)
		return nil
	})
	return groups, err
}

// jsonKey returns the name among names that key matches the way
// encoding/json matches object keys to struct fields (exactly, else without
// regard to case), or "".
func jsonKey(key []byte, names ...string) string {
	for _, n := range names {
		if string(key) == n {
			return n
		}
	}
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return n
		}
	}
	return ""
}

// jsonInt reads an integer value.
func jsonInt(raw []byte, name string) (int64, error) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %s is not an integer", name, raw)
	}
	return n, nil
}

// jsonWalker walks JSON that gjson.ValidBytes accepted, looking at each
// byte about once: values the caller does not interpret are skipped as raw
// bytes (the caller may keep them; they alias the input).
type jsonWalker struct {
	b   []byte
	i   int
	key []byte // the raw key of the member object is at
}

func (w *jsonWalker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

func (w *jsonWalker) peek() byte {
	w.ws()
	return w.b[w.i]
}

// null passes over a null and reports whether there was one.
func (w *jsonWalker) null() bool {
	if w.peek() == 'n' {
		w.i += len("null")
		return true
	}
	return false
}

// value returns the next value's raw bytes and moves past it.
func (w *jsonWalker) value() []byte {
	w.ws()
	start := w.i
	switch w.b[w.i] {
	case '"':
		w.str()
	case '{', '[':
		depth := 0
		for {
			switch w.b[w.i] {
			case '"':
				w.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			w.i++
			if depth == 0 {
				break
			}
		}
	default: // number, true, false
		for w.i < len(w.b) {
			switch w.b[w.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return w.b[start:w.i]
			}
			w.i++
		}
	}
	return w.b[start:w.i]
}

// str moves past the string at the cursor.
func (w *jsonWalker) str() {
	w.i++
	for {
		switch w.b[w.i] {
		case '\\':
			w.i += 2
			continue
		case '"':
			w.i++
			return
		}
		w.i++
	}
}

// object calls fn with each member's key (unescaped; valid until fn
// returns), the cursor on its value, which fn must consume.
func (w *jsonWalker) object(fn func(key []byte) error) error {
	if w.peek() != '{' {
		return errors.New("not an object")
	}
	w.i++
	for {
		switch w.peek() {
		case '}':
			w.i++
			return nil
		case ',':
			w.i++
			w.ws()
		}
		raw := w.value()
		w.key = raw
		key := raw[1 : len(raw)-1]
		// escapes and invalid UTF-8 (replaced) are unquoted as encoding/json does
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			var k string
			if err := json.Unmarshal(raw, &k); err != nil {
				return err
			}
			key = []byte(k)
		}
		w.peek()
		w.i++ // ':'
		if err := fn(key); err != nil {
			return err
		}
	}
}

// array calls fn with the cursor on each element, which fn must consume.
func (w *jsonWalker) array(fn func() error) error {
	if w.peek() != '[' {
		return errors.New("not an array")
	}
	w.i++
	for {
		switch w.peek() {
		case ']':
			w.i++
			return nil
		case ',':
			w.i++
		}
		if err := fn(); err != nil {
			return err
		}
	}
}
