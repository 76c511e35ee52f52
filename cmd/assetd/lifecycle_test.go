package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// hangingUpstream is a market provider that never answers (until the
// caller gives up) and counts its requests.
func hangingUpstream(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, &hits
}

// TestPortConflictReportedBeforeWarmup: with a taken port and a start-up
// warm-up that could last an hour, serve fails on the port before it
// calls any provider.
func TestPortConflictReportedBeforeWarmup(t *testing.T) {
	up, hits := hangingUpstream(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	done := make(chan error, 1)
	go func() {
		done <- c.run(context.Background(), []string{"serve", "--addr", taken.Addr().String(), "--data-dir", t.TempDir(),
			"--marketdata-b-url", up.URL, "--startup-warmup", "1h"})
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "listen on "+taken.Addr().String()) {
			t.Fatalf("serve: %v; want the listen error", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not report the port conflict")
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the provider was called %d times before the port conflict was reported", n)
	}
}

// TestNothingLogsAfterShutdownComplete stops a server while a provider call
// is in flight: "shutdown complete" is the last log line.
func TestNothingLogsAfterShutdownComplete(t *testing.T) {
	up, hits := hangingUpstream(t)
	s := startServer(t, "--data-dir", t.TempDir(), "--marketdata-b=true", "--marketdata-b-url", up.URL,
		"--startup-warmup", "0s", "--warm-interval", "1s")
	eventually(t, 30*time.Second, "a provider call in flight", func() bool { return hits.Load() > 0 })
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(s.logs.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "shutdown complete") {
		t.Fatalf("last log line is not \"shutdown complete\":\n%s", s.logs)
	}
}
