package lstindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

const (
	sanctumFile = "sanctum-lst-list.json"
	testKey     = "sanctum-test-key-xyz"
)

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)} }

var wantSmall = []market.LST{
	{Mint: "J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn", Symbol: "JitoSOL", Name: "Jito Staked SOL", Decimals: 9,
		LogoURI: "https://storage.googleapis.com/token-metadata/JitoSOL-256.png", Pool: "Spl"},
	{Mint: "5oVNBeEEQvYi1cX3ir8Dx5n1P7pdxydbGF2X4TxVusJm", Symbol: "INF", Name: "Infinity", Decimals: 9,
		LogoURI: "https://bafkreiflz2xxkfn33qjch2wj55bvbn33q3s4mmb6bye5pt3mpgy4t2wg4e.ipfs.nftstorage.link/", Pool: "SPool"},
	{Mint: "mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So", Symbol: "mSOL", Name: "Marinade staked SOL", Decimals: 9,
		LogoURI: "https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So/logo.png", Pool: "Marinade"},
}

func TestFileSnippet(t *testing.T) {
	ix, err := New(Config{Path: filepath.Join("testdata", "lst_list_small.json")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.LSTs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The SOL reserve-pool entry is not an LST.
	if diff := cmp.Diff(wantSmall, got); diff != "" {
		t.Errorf("LSTs (-want +got):\n%s", diff)
	}
}

func TestFileFullList(t *testing.T) {
	data := providertest.SharedData(t, sanctumFile)
	path := filepath.Join(t.TempDir(), sanctumFile)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err := New(Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ix.LSTs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 239 { // 240 entries minus the wSOL reserve pool
		t.Errorf("%d LSTs, want 239", len(got))
	}
	wantFirst := market.LST{Mint: "qW1RdJQ5SPttcYNddjGY44JPaFxh8MxkE52BFKashrk", Symbol: "BTHSSOL", Name: "BTHS SOL", Decimals: 9,
		LogoURI: "https://obj.sharklabs.sh/validators/validators/bths.jpg", Pool: "SanctumSpl"}
	if diff := cmp.Diff(wantFirst, got[0]); diff != "" {
		t.Errorf("first (-want +got):\n%s", diff)
	}
	pools := map[string]int{}
	for _, l := range got {
		pools[l.Pool]++
		if l.Mint == "So11111111111111111111111111111111111111112" {
			t.Error("wrapped SOL listed as an LST")
		}
	}
	if diff := cmp.Diff(map[string]int{"SanctumSpl": 161, "SanctumSplMulti": 43, "Spl": 32, "SPool": 1, "Lido": 1, "Marinade": 1}, pools); diff != "" {
		t.Errorf("pool programs (-want +got):\n%s", diff)
	}
}

func TestURLAndCaching(t *testing.T) {
	body := testdata(t, "lst_list_small.json")
	var calls atomic.Int32
	var got *http.Request
	srv := providertest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		got = r.Clone(context.Background())
		_, _ = w.Write(body)
	}))
	clk := newClock()
	ix, err := New(Config{URL: srv.URL + "/lsts?format=json", APIKey: testKey, TTL: time.Hour, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		l, err := ix.LSTs(context.Background())
		if err != nil || len(l) != 3 {
			t.Fatalf("LSTs: %d %v", len(l), err)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("%d fetches within the TTL, want 1", calls.Load())
	}
	if got.URL.Path != "/lsts" || got.URL.Query().Get("format") != "json" || got.Header.Get("x-api-key") != testKey {
		t.Errorf("request %s %v", got.URL, got.Header)
	}
	clk.Add(time.Hour)
	if _, err := ix.LSTs(context.Background()); err != nil || calls.Load() != 2 {
		t.Errorf("after the TTL: %v, %d fetches, want 2", err, calls.Load())
	}
	// Callers get copies.
	l, _ := ix.LSTs(context.Background())
	l[0].Symbol = "changed"
	if l2, _ := ix.LSTs(context.Background()); l2[0].Symbol != "JitoSOL" {
		t.Error("the cached list was modified through a returned slice")
	}
}

func TestStaleOnErrorAndBackoff(t *testing.T) {
	body := testdata(t, "lst_list_small.json")
	var fail atomic.Bool
	var calls atomic.Int32
	srv := providertest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if fail.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		_, _ = w.Write(body)
	}))
	clk := newClock()
	var logs providertest.LogBuffer
	ix, err := New(Config{URL: srv.URL, TTL: 10 * time.Minute, Now: clk.Now, Logger: logs.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.LSTs(context.Background()); err != nil {
		t.Fatal(err)
	}
	fail.Store(true)
	clk.Add(11 * time.Minute)
	l, err := ix.LSTs(context.Background())
	if err != nil || len(l) != 3 {
		t.Fatalf("stale-on-error: %d %v", len(l), err)
	}
	if !strings.Contains(logs.String(), "serving the last good list") {
		t.Errorf("the failed refresh was not logged:\n%s", logs.String())
	}
	n := calls.Load()
	clk.Add(30 * time.Second) // within the backoff
	if _, err := ix.LSTs(context.Background()); err != nil || calls.Load() != n {
		t.Errorf("retried during the backoff: %v, %d calls", err, calls.Load()-n)
	}
	fail.Store(false)
	clk.Add(time.Minute)
	if _, err := ix.LSTs(context.Background()); err != nil || calls.Load() != n+1 {
		t.Errorf("after the backoff: %v, %d calls", err, calls.Load()-n)
	}
}

func TestSuspiciousDropRefused(t *testing.T) {
	var entries []string
	for i := range 20 {
		entries = append(entries, fmt.Sprintf(`{"mint":"%s","symbol":"L%d","name":"L","decimals":9,"pool":{"program":"SanctumSpl"}}`, genMint(i), i))
	}
	full := `{"sanctum_lst_list":[` + strings.Join(entries, ",") + `]}`
	short := `[` + strings.Join(entries[:10], ",") + `]` // bare-array layout
	var serveShort atomic.Bool
	srv := providertest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if serveShort.Load() {
			_, _ = w.Write([]byte(short))
			return
		}
		_, _ = w.Write([]byte(full))
	}))
	tests := []struct {
		name      string
		minRetain float64
		want      int
	}{
		{"default guard keeps 20", 0, 20},
		{"guard disabled takes 10", -1, 10},
		{"guard at 50% takes 10", 0.5, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			serveShort.Store(false)
			clk := newClock()
			ix, err := New(Config{URL: srv.URL, TTL: time.Minute, MinRetain: tt.minRetain, Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			if l, err := ix.LSTs(context.Background()); err != nil || len(l) != 20 {
				t.Fatalf("first load %d %v", len(l), err)
			}
			serveShort.Store(true)
			clk.Add(2 * time.Minute)
			l, err := ix.LSTs(context.Background())
			if err != nil || len(l) != tt.want {
				t.Errorf("after a shrink: %d %v, want %d", len(l), err, tt.want)
			}
		})
	}
}

func TestErrorsWithoutList(t *testing.T) {
	retryAt := time.Date(2026, 11, 21, 12, 2, 0, 0, time.UTC).Format(http.TimeFormat)
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		check  func(t *testing.T, err error)
	}{
		{"429 seconds", 429, map[string]string{"Retry-After": "90"}, "", providertest.WantRateLimited(90 * time.Second)},
		{"429 http date", 429, map[string]string{"Retry-After": retryAt}, "", providertest.WantRateLimited(2 * time.Minute)},
		{"500", 500, nil, "", providertest.WantIs(market.ErrUpstream)},
		{"malformed JSON", 200, nil, `{"sanctum_lst_list":[{"mint":`, providertest.WantIs(market.ErrMalformed)},
		{"wrong layout", 200, nil, `{"lsts":[]}`, providertest.WantIs(market.ErrMalformed)},
		{"no usable entry", 200, nil, `{"sanctum_lst_list":[{"mint":"bad","decimals":9}]}`, providertest.WantIs(market.ErrMalformed)},
		{"decimals wrong type", 200, nil, `[{"mint":"J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn","decimals":[9]}]`, providertest.WantIs(market.ErrMalformed)},
		{"oversized", 200, nil, `[` + strings.Repeat(`{"mint":"x"},`, 100) + `{}]`, providertest.WantIs(market.ErrMalformed)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.Server(t, providertest.Reply(tt.status, tt.header, tt.body))
			clk := newClock()
			ix, err := New(Config{URL: srv.URL, MaxBody: 1024, Now: clk.Now})
			if err != nil {
				t.Fatal(err)
			}
			_, err = ix.LSTs(context.Background())
			if err == nil {
				t.Fatal("want an error")
			}
			tt.check(t, err)
		})
	}
}

func TestFileErrors(t *testing.T) {
	ix, _ := New(Config{Path: filepath.Join(t.TempDir(), "missing.json")})
	_, err := ix.LSTs(context.Background())
	if !errors.Is(err, market.ErrUpstream) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte(`[`+strings.Repeat(" ", 2000)+`]`), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, _ = New(Config{Path: big, MaxBody: 1000})
	if _, err := ix.LSTs(context.Background()); !errors.Is(err, market.ErrMalformed) {
		t.Errorf("oversized file: %v", err)
	}
}

func TestTimeouts(t *testing.T) {
	providertest.Timeouts(t, func(ctx context.Context, h http.Handler, timeout time.Duration) error {
		ix, _ := New(Config{URL: providertest.Server(t, h).URL, Timeout: timeout})
		_, err := ix.LSTs(ctx)
		return err
	})
	t.Run("waiting for another refresh honours the deadline", func(t *testing.T) {
		release := make(chan struct{})
		started := make(chan struct{})
		var once sync.Once
		srv := providertest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			once.Do(func() { close(started) })
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		ix, _ := New(Config{URL: srv.URL, Timeout: -1})
		first := make(chan error, 1)
		ctx1, cancel1 := context.WithCancel(context.Background())
		defer cancel1()
		go func() { _, err := ix.LSTs(ctx1); first <- err }()
		<-started // the first caller holds the refresh
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		_, err := ix.LSTs(ctx)
		if !errors.Is(err, market.ErrUpstream) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("waiter: err = %v", err)
		}
		cancel1()
		close(release)
		<-first
	})
}

func TestNewValidation(t *testing.T) {
	for _, cfg := range []Config{{}, {Path: "a", URL: "http://x"}, {URL: "ftp://x"}, {Path: "a", TTL: -1}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

func genMint(i int) string {
	const b58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	return "LST1111111111111111111111111111111111111" + string(b58[i/58%58]) + string(b58[i%58])
}

func FuzzParseList(f *testing.F) {
	f.Add(testdata(f, "lst_list_small.json"))
	for _, s := range []string{``, `null`, `[]`, `{}`, `{"sanctum_lst_list":null}`, `[null]`, `[{"mint":"x","decimals":-1}]`, `{"sanctum_lst_list":[{"pool":null}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		list, _, err := parseList(body)
		if err != nil {
			if !errors.Is(err, market.ErrMalformed) {
				t.Fatalf("error not ErrMalformed: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, l := range list {
			if seen[l.Mint] || l.Pool == reservePool {
				t.Fatalf("repeated or reserve entry %+v", l)
			}
			seen[l.Mint] = true
		}
	})
}
