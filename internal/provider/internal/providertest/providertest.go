// Package providertest holds test helpers shared by the provider adapter
// tests: locating the shared vendor fixtures, servers that block until
// the client gives up, and a logger that captures output.
package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/market"
)

// EnvSharedData names a directory that overrides the search for the
// shared data set.
const EnvSharedData = "ASSETD_SHARED_DATA"

// SharedData returns the bytes of a file of the shared data set
// (/work/shared/data in the project layout: "shared/data" next to the
// repository). It looks in $ASSETD_SHARED_DATA, then in shared/data of
// every parent of the package directory, and skips the test when the
// file is nowhere.
func SharedData(t testing.TB, name string) []byte {
	t.Helper()
	var dirs []string
	if d := os.Getenv(EnvSharedData); d != "" {
		dirs = append(dirs, d)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; {
			dirs = append(dirs, filepath.Join(d, "shared", "data"))
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, name))
		if err == nil {
			return b
		}
	}
	t.Skipf("shared data file %s not available (set %s)", name, EnvSharedData)
	return nil
}

// JSONPath walks a decoded JSON document along keys (object keys) and
// indexes (ints into arrays) and returns the raw JSON found there,
// failing the test when the path does not exist.
func JSONPath(t testing.TB, doc []byte, path ...any) json.RawMessage {
	t.Helper()
	cur := json.RawMessage(doc)
	for _, p := range path {
		switch k := p.(type) {
		case string:
			var m map[string]json.RawMessage
			if err := json.Unmarshal(cur, &m); err != nil {
				t.Fatalf("fixture path %v: at %q: %v", path, k, err)
			}
			v, ok := m[k]
			if !ok {
				t.Fatalf("fixture path %v: key %q missing", path, k)
			}
			cur = v
		case int:
			var a []json.RawMessage
			if err := json.Unmarshal(cur, &a); err != nil {
				t.Fatalf("fixture path %v: at [%d]: %v", path, k, err)
			}
			if k < 0 || k >= len(a) {
				t.Fatalf("fixture path %v: index %d out of range (%d)", path, k, len(a))
			}
			cur = a[k]
		default:
			t.Fatalf("fixture path element %v of type %T", p, p)
		}
	}
	return cur
}

// Server starts an httptest.Server closed at the end of the test.
func Server(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// Blocking returns a handler that answers nothing until the request's
// context ends (the client gave up) or the test ends. Use it with a short
// client deadline to test timeouts without sleeping.
func Blocking(t testing.TB) http.Handler {
	t.Helper()
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) }) // runs before the server's Close
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	})
}

// JSON returns a handler answering status with body and a JSON content
// type.
func JSON(status int, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// LogBuffer is a concurrency-safe sink for a debug-level text logger.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything logged so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logger returns a debug-level logger writing into b.
func (b *LogBuffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }

// WantRateLimited checks that an error is a *market.RateLimitedError
// carrying RetryAfter d (the error-table check every adapter test uses).
func WantRateLimited(d time.Duration) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var rl *market.RateLimitedError
		if !errors.As(err, &rl) {
			t.Fatalf("err = %v, want *RateLimitedError", err)
		}
		if rl.RetryAfter != d {
			t.Errorf("RetryAfter = %v, want %v", rl.RetryAfter, d)
		}
	}
}

// WantIs checks that an error matches target with errors.Is.
func WantIs(target error) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Errorf("err = %v, want errors.Is %v", err, target)
		}
	}
}

// Reply answers every request with status, the extra headers and body
// (the error-table server of the adapter tests).
func Reply(status int, header map[string]string, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

// Timeouts checks an adapter call against a server that never answers,
// once bounded by the adapter's own timeout and once by the caller's
// deadline: both must fail with ErrUpstream wrapping DeadlineExceeded.
// call builds the adapter over h with the given Config.Timeout (-1: none)
// and makes one call with ctx.
func Timeouts(t *testing.T, call func(ctx context.Context, h http.Handler, timeout time.Duration) error) {
	t.Helper()
	check := func(t *testing.T, err error) {
		t.Helper()
		if !errors.Is(err, market.ErrUpstream) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want ErrUpstream + DeadlineExceeded", err)
		}
	}
	t.Run("config timeout", func(t *testing.T) {
		check(t, call(context.Background(), Blocking(t), 30*time.Millisecond))
	})
	t.Run("caller deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		check(t, call(ctx, Blocking(t), -1))
	})
}

// Patch returns doc (a JSON document) with the value at path (object keys
// and array indexes) replaced by raw JSON: a recorded response turned into
// the garbage an upstream may send (1e308, a negative liquidity).
func Patch(t testing.TB, doc []byte, raw string, path ...any) []byte {
	t.Helper()
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatalf("Patch: %v", err)
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatalf("Patch value %s: %v", raw, err)
	}
	cur := root
	for i, p := range path {
		last := i == len(path)-1
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("Patch: %v is not an object at %v", path[:i], k)
			}
			if last {
				m[k] = v
			}
			cur = m[k]
		case int:
			a, ok := cur.([]any)
			if !ok || k >= len(a) {
				t.Fatalf("Patch: %v has no index %d", path[:i], k)
			}
			if last {
				a[k] = v
			}
			cur = a[k]
		}
	}
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatalf("Patch: %v", err)
	}
	return out
}

// Nulled records the values an adapter reports as nulled
// (Config.Implausible), as "provider/field" counts.
type Nulled struct {
	mu sync.Mutex
	n  map[string]int
}

// Report is the Config.Implausible hook.
func (r *Nulled) Report(provider, field string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[provider+"/"+field]++
}

// Counts returns a copy of the counts.
func (r *Nulled) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.n)
}

// Recorder answers 200 with the body body() returns at each call (an
// upstream whose answer the test changes between calls).
func Recorder(body func() []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body())
	})
}
