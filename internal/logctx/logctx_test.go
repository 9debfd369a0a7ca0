package logctx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestContextAttributesReachEveryLine(t *testing.T) {
	var buf bytes.Buffer
	l := Logger(slog.New(slog.NewJSONHandler(&buf, nil)))
	if Logger(l) != l || Handler(l.Handler()) != l.Handler() {
		t.Fatal("wrapping twice added a second layer")
	}
	ctx := With(context.Background(), slog.String("key", "0000001-261130010203004"))
	ctx = With(ctx, slog.Int("attempt", 2))
	l.With("component", "worker").InfoContext(ctx, "export started")
	l.Info("no context")
	l.InfoContext(ctx, "named", "key", "0000001-261130010203004")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	var first, second map[string]any
	if err := json.Unmarshal(lines[0], &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lines[1], &second); err != nil {
		t.Fatal(err)
	}
	if first["key"] != "0000001-261130010203004" || first["attempt"] != 2.0 || first["component"] != "worker" {
		t.Errorf("first line %v", first)
	}
	if _, ok := second["key"]; ok {
		t.Errorf("a line without the context got its key: %v", second)
	}
	if n := bytes.Count(lines[2], []byte(`"key"`)); n != 1 {
		t.Errorf("a line naming the key itself has it %d times: %s", n, lines[2])
	}
}
