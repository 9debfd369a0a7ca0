package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An override in the operator's directory is what `mail preview` shows;
// a bad one is reported with its file.
func TestMailPreviewOverrides(t *testing.T) {
	out, _ := runCmd(t, "mail", "preview", "--notice", "success", "--language", "fr-BE", "--part", "subject")
	if out != "Votre téléchargement 0000001-260507100000000 est prêt\n" {
		t.Fatalf("French subject %q", out)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "mail", "messages"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "mail", "messages", "fr.json")
	if err := os.WriteFile(file, []byte(`{"success.subject": "C'est prêt : {{.Key}}"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = runCmd(t, "mail", "preview", "--overrides", dir, "--language", "fr", "--part", "subject")
	if out != "C'est prêt : 0000001-260507100000000\n" {
		t.Fatalf("overridden subject %q", out)
	}
	if err := os.WriteFile(file, []byte(`{"success.subjet": "typo"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	env := &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr, Stdin: strings.NewReader(""), Logger: slog.New(slog.DiscardHandler)}
	if code := run(context.Background(), []string{"mail", "preview", "--overrides", dir}, env); code == 0 ||
		!strings.Contains(stderr.String(), file) || !strings.Contains(stderr.String(), "success.subjet") {
		t.Fatalf("bad override: exit %d, %s", code, stderr.String())
	}
}
