package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/poll"
)

// openFDs counts the process's open file descriptors; the test skips
// where /proc/self/fd is not there.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestSearchTokensBoundedAgainstHangingProvider: 200 concurrent curator
// searches of distinct texts against a token-metadata provider that never
// answers. Every search answers from memory (provider degraded); the
// provider receives at most --provider-searches calls; the process's
// goroutines and open descriptors grow by at most what the caps allow
// (API connections under --max-conns on both ends, the bounded provider
// searches), never per query; and other reads keep answering while the
// provider hangs.
func TestSearchTokensBoundedAgainstHangingProvider(t *testing.T) {
	const (
		queries  = 200
		maxConns = 32
		searches = curator.DefaultProviderSearches
	)
	hang := make(chan struct{})
	var calls, inFlight atomic.Int64
	prov := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		inFlight.Add(1)
		defer inFlight.Add(-1)
		select { // hangs until the test ends
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(prov.Close)
	t.Cleanup(func() { close(hang) }) // runs before prov.Close, which waits for its handlers

	dir := t.TempDir()
	key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "bounded", "--data-dir", dir))
	s := startServer(t, "--data-dir", dir, "--token-metadata-url", prov.URL, "--max-conns", fmt.Sprint(maxConns),
		"--list-search-budget", "100000")
	hdr := map[string]string{"X-Api-Key": key}
	eventually(t, 2*time.Second, "key accepted", func() bool { st, _, _ := s.get(t, authedPath, hdr); return st == 200 })
	eventually(t, time.Second, "start-up log states the connection cap", func() bool {
		return strings.Contains(s.logs.String(), fmt.Sprintf("max_conns=%d", maxConns))
	})

	fds0, g0 := openFDs(t), runtime.NumGoroutine()
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: maxConns, MaxIdleConnsPerHost: maxConns}}
	defer client.CloseIdleConnections()
	search := func(q string) (int, string, error) {
		req, _ := http.NewRequest("GET", s.base+"/v2/lists/search-tokens?policy=degen&q="+q, nil)
		req.Header.Set("X-Api-Key", key)
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		var body struct {
			Sources struct{ Provider string } `json:"sources"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body.Sources.Provider, err
	}
	var wg sync.WaitGroup
	errs := make(chan string, queries)
	for i := range queries {
		wg.Go(func() {
			q := fmt.Sprintf("BOUNDED%03d", i)
			if st, p, err := search(q); err != nil || st != 200 || p != "degraded" {
				errs <- fmt.Sprintf("%s: status %d, provider %q, %v", q, st, p, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	poll.For(t, eventuallyDeadline, "the bounded searches reach the provider", func() bool { return inFlight.Load() == searches })

	// Bounds by construction, with the provider still hanging.
	fds, g := openFDs(t)-fds0, runtime.NumGoroutine()-g0
	// API connections: at most maxConns on each end (this process is
	// both); provider searches: both ends of each connection.
	fdBound := 2*maxConns + 2*searches + 16
	// Per API connection: the server's goroutine and its background read,
	// the client transport's read and write loops; per provider search:
	// the worker, the transport's two loops, the provider's connection
	// goroutine and its background read.
	gBound := 4*maxConns + 5*searches + 16
	t.Logf("after %d searches with the provider hanging: %d provider calls in flight (bound %d), +%d descriptors (bound %d), +%d goroutines (bound %d)",
		queries, inFlight.Load(), searches, fds, fdBound, g, gBound)
	if n := calls.Load(); n != searches {
		t.Errorf("provider called %d times while it hangs, want %d (--provider-searches)", n, searches)
	}
	if fds > fdBound {
		t.Errorf("open descriptors grew by %d, bound %d", fds, fdBound)
	}
	if g > gBound {
		t.Errorf("goroutines grew by %d, bound %d", g, gBound)
	}
	if !strings.Contains(s.logs.String(), "provider token searches shed") {
		t.Errorf("shedding not logged:\n%s", s.logs)
	}

	// Other reads keep answering, and a repeated search too.
	if st, _, body := s.get(t, authedPath, hdr); st != 200 {
		t.Errorf("%s while the provider hangs: %d %v", authedPath, st, body)
	}
	if st, _, _ := s.get(t, "/v1/health", nil); st != 200 {
		t.Errorf("/v1/health while the provider hangs: %d", st)
	}
	if st, p, err := search("BOUNDED000"); err != nil || st != 200 || p != "degraded" {
		t.Errorf("repeated search: status %d, provider %q, %v", st, p, err)
	}
	if n := calls.Load(); n != searches {
		t.Errorf("provider called %d times after the repeat, want %d", n, searches)
	}
}

// TestMaxConnsHoldsConnectionsBeyondTheCap: with --max-conns 2 and two
// connections that have not finished their request headers, a third
// connection's complete request is not served; once one of the two
// finishes its request, its connection idles and is closed to make room,
// and the third is served.
func TestMaxConnsHoldsConnectionsBeyondTheCap(t *testing.T) {
	s := startServer(t, "--data-dir", t.TempDir(), "--max-conns", "2", "--read-header-timeout", "1h", "--idle-timeout", "1h")
	addr := strings.TrimPrefix(s.base, "http://")
	fds0 := openFDs(t)
	dial := func(req string) (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		return c, bufio.NewReader(c)
	}
	const partial = "GET /v1/health HTTP/1.1\r\nHost: assetd\r\n" // headers not finished
	a, ar := dial(partial)
	dial(partial)
	_, cr := dial(partial + "\r\n")
	var released atomic.Bool
	cDone := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(cr, nil)
		switch {
		case err != nil:
			cDone <- err.Error()
		case !released.Load():
			cDone <- "served while the cap was reached"
		default:
			_, _ = io.Copy(io.Discard, resp.Body)
			cDone <- resp.Status
		}
	}()
	// The process holds both ends of all three connections: the server
	// accepted the third, and the listener holds it at the cap.
	poll.For(t, eventuallyDeadline, "three connections accepted", func() bool { return openFDs(t)-fds0 >= 6 })

	released.Store(true)
	if _, err := a.Write([]byte("\r\n")); err != nil { // the first request is complete
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(ar, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("first connection: %v %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	if got := <-cDone; got != "200 OK" {
		t.Fatalf("third connection: %s", got)
	}
	// The first connection idled after its response and was closed to
	// make room (its idle timeout is an hour).
	_ = a.SetReadDeadline(time.Now().Add(eventuallyDeadline))
	if _, err := ar.ReadByte(); !errors.Is(err, io.EOF) {
		t.Errorf("the idle connection was not closed for the waiting one: %v", err)
	}
}

// --max-conns defaults to half the open-file limit within 64..65536 and
// reads ASSETD_MAX_CONNS; 0 is refused.
func TestMaxConnsDefaultAndEnvironment(t *testing.T) {
	for _, c := range []struct {
		nofile uint64
		want   int
	}{{1024, 512}, {4096, 2048}, {100, 64}, {1 << 20, 65536}, {1<<63 - 1, 65536}} {
		if got := defaultMaxConns(c.nofile); got != c.want {
			t.Errorf("defaultMaxConns(%d) = %d, want %d", c.nofile, got, c.want)
		}
	}
	cfg, err := quietCLI().parseServe(nil)
	if err != nil || cfg.http.maxConns != defaultMaxConns(openFileLimit()) || cfg.http.idleTimeout != 120*time.Second ||
		cfg.http.readHeaderTimeout != 10*time.Second || cfg.providerSearches != curator.DefaultProviderSearches ||
		cfg.providerSearchQueue != curator.DefaultProviderQueue {
		t.Fatalf("defaults: %+v %v", cfg.http, err)
	}
	t.Setenv("ASSETD_MAX_CONNS", "100")
	t.Setenv("ASSETD_IDLE_TIMEOUT", "30s")
	t.Setenv("ASSETD_PROVIDER_SEARCHES", "2")
	if cfg, err := quietCLI().parseServe(nil); err != nil || cfg.http.maxConns != 100 || cfg.http.idleTimeout != 30*time.Second || cfg.providerSearches != 2 {
		t.Fatalf("env: %+v %d %v", cfg.http, cfg.providerSearches, err)
	}
	for _, bad := range [][]string{{"--max-conns", "0"}, {"--idle-timeout", "0s"}, {"--provider-searches", "0"}, {"--provider-search-queue", "-1"}} {
		if _, err := quietCLI().parseServe(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
