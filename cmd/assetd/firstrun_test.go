package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestStoreCommandsDemoFlag: --demo (or ASSETD_DEMO) points a store
// command at serve --demo's store, ./data-demo, unless a data dir or
// database URL is given; a command about to create ./data beside an
// existing ./data-demo says so.
func TestStoreCommandsDemoFlag(t *testing.T) {
	t.Chdir(t.TempDir())
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	mustCLI(t, "keys", "create", "--demo", "--project", "demo-project")
	if !exists(filepath.Join("data-demo", "assetd.db")) || exists("data") {
		t.Fatal("keys create --demo did not use ./data-demo alone")
	}
	t.Setenv("ASSETD_DEMO", "true")
	if out := mustCLI(t, "keys", "list"); !strings.Contains(out, "demo-project") || exists("data") {
		t.Fatalf("ASSETD_DEMO=true keys list: %q", out)
	}
	other := t.TempDir()
	mustCLI(t, "keys", "create", "--project", "other-project", "--data-dir", other)
	if !exists(filepath.Join(other, "assetd.db")) || strings.Contains(mustCLI(t, "keys", "list"), "other-project") {
		t.Fatal("--data-dir did not win over --demo")
	}
	os.Unsetenv("ASSETD_DEMO")
	var stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr}
	if err := c.run(context.Background(), []string{"sessions", "create", "--user-id", "u", "--email", "u@example.com"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "a server started with serve --demo reads ./data-demo: add --demo") {
		t.Fatalf("no hint when creating ./data beside ./data-demo: %q", stderr.String())
	}
	stderr.Reset()
	if err := c.run(context.Background(), []string{"keys", "list"}); err != nil || strings.Contains(stderr.String(), "--demo") {
		t.Fatalf("hint repeated once ./data exists: %v %q", err, stderr.String())
	}
}

// TestStoreHint: the store a 401 and a failed sign-in name, and the CLI
// flags that reach it; never a password, user or host.
func TestStoreHint(t *testing.T) {
	for _, tc := range []struct {
		sf   storeFlags
		want string
	}{
		{storeFlags{dataDir: demoDataDir, demo: true}, "SQLite in ./data-demo; CLI commands reach it with --demo"},
		{storeFlags{dataDir: defaultDataDir}, "SQLite in ./data; CLI commands use it by default"},
		{storeFlags{dataDir: "/srv/assetd", demo: true}, "SQLite in /srv/assetd; CLI commands reach it with --data-dir /srv/assetd"},
		{storeFlags{databaseURL: "postgres://admin:s3cret@db.internal:5432/assetd?sslmode=disable"},
			`PostgreSQL database "assetd"; CLI commands reach it with --database-url with the same URL`},
	} {
		got := tc.sf.storeHint()
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.sf, got, tc.want)
		}
		for _, secret := range []string{"s3cret", "admin", "db.internal"} {
			if strings.Contains(got, secret) {
				t.Errorf("hint %q leaks %q", got, secret)
			}
		}
	}
}

// TestJSONLogDurationsInSeconds: JSON logs write a duration as seconds
// (a number); text logs keep Go's form.
func TestJSONLogDurationsInSeconds(t *testing.T) {
	var buf bytes.Buffer
	newLogger(&buf, storeFlags{logFormat: "json", logLevel: "info"}).Info("request", "dur", 1500*time.Millisecond,
		slog.Group("g", slog.Duration("wait", 250*time.Microsecond)))
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["dur"] != 1.5 || rec["g"].(map[string]any)["wait"] != 0.00025 {
		t.Fatalf("JSON durations: %s", buf.String())
	}
	buf.Reset()
	newLogger(&buf, storeFlags{logFormat: "text", logLevel: "info"}).Info("request", "dur", 1500*time.Millisecond)
	if !strings.Contains(buf.String(), "dur=1.5s") {
		t.Fatalf("text duration: %s", buf.String())
	}
}

// TestVersionCommand: `assetd version` and `--version` print the build
// information; extra arguments are a usage error.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out := mustCLI(t, args...)
		if !strings.HasPrefix(out, "assetd ") || !strings.Contains(out, runtime.Version()) {
			t.Errorf("assetd %s: %q", args[0], out)
		}
	}
	var stderr bytes.Buffer
	err := (&cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr}).run(context.Background(), []string{"version", "extra"})
	var u usageError
	if !errors.As(err, &u) {
		t.Fatalf("version extra: %v", err)
	}
}
