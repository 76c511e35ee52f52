package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestQuotaSurvivesRestart: --quota 2/month answers 200 200 429, and after
// a restart on the same store still 429 (the quota is reserved in the
// store's ledger), on SQLite and PostgreSQL; `keys usage` shows the
// requests and the 2 units reserved (a graceful stop gave back none held).
func TestQuotaSurvivesRestart(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			key := strings.TrimSpace(mustCLI(t, append([]string{"keys", "create", "--project", "quota"}, e.flags...)...))
			id := strings.Fields(mustCLI(t, append([]string{"keys", "list"}, e.flags...)...))[0]
			hdr := map[string]string{"X-Api-Key": key}
			s := startServer(t, append([]string{"--quota", "2/month"}, e.flags...)...)
			var got []int
			for range 3 {
				st, _, _ := s.get(t, authedPath, hdr)
				got = append(got, st)
			}
			if got[0] != 200 || got[1] != 200 || got[2] != 429 {
				t.Fatalf("before restart: %v; want 200 200 429", got)
			}
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			s = startServer(t, append([]string{"--quota", "2/month"}, e.flags...)...)
			if st, _, body := s.get(t, authedPath, hdr); st != 429 {
				t.Fatalf("after restart: %d %v; want 429 (quota spent)", st, body)
			}
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			out := mustCLI(t, append([]string{"keys", "usage", id, "--days", "2"}, e.flags...)...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 3 || !strings.HasPrefix(lines[0], "DAY") ||
				!strings.Contains(out, "GET /v1/assets/resolve  200     2") || !strings.Contains(out, "GET /v1/assets/resolve  429     2") {
				t.Fatalf("keys usage printed:\n%s", out)
			}
			var stderr bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr}
			if err := c.run(context.Background(), append([]string{"keys", "usage", id}, e.flags...)); err != nil ||
				!strings.Contains(stderr.String(), id+": 2 requests charged this month") ||
				!strings.Contains(stderr.String(), id+": 2 units of its monthly quota reserved") {
				t.Fatalf("keys usage stderr: %v\n%s", err, stderr.String())
			}
			if _, err := runCLI(t, append([]string{"keys", "usage", id, "--days", "0"}, e.flags...)...); err == nil {
				t.Fatal("--days 0 accepted")
			}
		})
	}
}

// TestDemoAndRealDoNotShareAStore: a store first served with --demo is
// refused to real mode (and the reverse), naming the way out.
func TestDemoAndRealDoNotShareAStore(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, "--data-dir", dir, "--demo")
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	_, err := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--marketdata-b=false")
	if err == nil || !strings.Contains(err.Error(), "first served in demo mode") || !strings.Contains(err.Error(), "--data-dir") {
		t.Fatalf("real mode on a demo store: %v", err)
	}
	real := t.TempDir()
	s = startServer(t, "--data-dir", real)
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", real, "--demo"); err == nil || !strings.Contains(err.Error(), "first served in real mode") {
		t.Fatalf("demo mode on a real store: %v", err)
	}
}
