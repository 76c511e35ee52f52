package marketa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

const (
	testKey = "test-birdeye-key-0123456789"

	mintSOL     = "So11111111111111111111111111111111111111112"
	mintJitoSOL = "J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn"
	mintBONK    = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263"
	mintUSDC    = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	mintUSDT    = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"
	mintUnknown = "113er4GLruBrK7XoerB2YLe3SkaLc9KbFdGPrkFpump"

	birdeyeFixture = "fixtures-birdeye-doc-examples.json"
)

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newClient(t *testing.T, h http.Handler, mut func(*Config)) *Client {
	t.Helper()
	srv := providertest.Server(t, h)
	cfg := Config{BaseURL: srv.URL, APIKey: testKey, Timeout: 5 * time.Second, Now: func() time.Time { return testNow }}
	if mut != nil {
		mut(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// docExample returns the first example of a page of the Birdeye doc
// fixture (the response body), skipping when the shared data is absent.
func docExample(t *testing.T, page string) []byte {
	t.Helper()
	doc := providertest.SharedData(t, birdeyeFixture)
	return providertest.JSONPath(t, doc, "pages", page, "examples", 0)
}

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func f(v float64) *float64 { return &v }
func i64(v int64) *int64   { return &v }

// wantSOL is the doc example's SOL overview mapped onto market.Token.
func wantSOL() market.Token {
	logo := "https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/So11111111111111111111111111111111111111112/logo.png"
	nine := 9
	return market.Token{
		Mint:     mintSOL,
		Symbol:   "SOL",
		Name:     "Wrapped SOL",
		Decimals: &nine,
		LogoURI:  logo,
		Market: asset.Market{
			Source:                asset.SourceMarketDataA,
			MetricsSource:         asset.SourceMarketDataA,
			Price:                 f(185.82977629057913),
			Liquidity:             f(23353595552.52654),
			Volume1hUSD:           f(417066348.4330929),
			Volume24hUSD:          f(9537454514.524822),
			Trade1h:               f(1440761),
			Trade24h:              f(31567346),
			UniqueWallet1h:        f(144003),
			UniqueWallet24h:       f(1394679),
			MarketCap:             f(100263084724.62823),
			Holders:               f(3472782), // "holder"
			PriceChange24hPercent: f(0.5781987340724478),
			PriceChange1hPercent:  f(0.5442958415201495),
			Decimals:              &nine,
			LogoURI:               &logo,
			LastTradeAt:           i64(1754885472),
			LastFetchedAt:         i64(testNow.UnixMilli()),
		},
	}
}

func TestSnapshotsFieldMapping(t *testing.T) {
	sources := []struct {
		name string
		body func(t *testing.T) []byte
	}{
		{"doc example", func(t *testing.T) []byte { return docExample(t, "defi/get-defi-token_overview.md") }},
		{"trimmed snippet", func(t *testing.T) []byte { return testdata(t, "token_overview_sol.json") }},
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			body := src.body(t)
			c := newClient(t, providertest.JSON(200, body), nil)
			got, err := c.Snapshots(context.Background(), []string{mintSOL})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(map[string]market.Token{mintSOL: wantSOL()}, got); diff != "" {
				t.Errorf("Snapshots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSnapshotsRequestShape(t *testing.T) {
	var mu sync.Mutex
	var reqs []*http.Request
	body := testdata(t, "token_overview_sol.json")
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs = append(reqs, r.Clone(context.Background()))
		mu.Unlock()
		_, _ = w.Write(body)
	}), nil)
	if _, err := c.Snapshots(context.Background(), []string{mintSOL, " " + mintSOL, "", mintBONK}); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (deduplicated)", len(reqs))
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		if r.Method != http.MethodGet || r.URL.Path != "/defi/token_overview" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		q := r.URL.Query()
		seen[q.Get("address")] = true
		if q.Get("ui_amount_mode") != "scaled" {
			t.Errorf("ui_amount_mode = %q", q.Get("ui_amount_mode"))
		}
		if r.Header.Get("X-API-KEY") != testKey || r.Header.Get("x-chain") != "solana" || r.Header.Get("Accept") != "application/json" {
			t.Errorf("headers %v", r.Header)
		}
	}
	if !seen[mintSOL] || !seen[mintBONK] {
		t.Errorf("addresses %v", seen)
	}
	if c.Source() != asset.SourceMarketDataA || c.MaxBatch() != DefaultMaxBatch {
		t.Errorf("Source %q MaxBatch %d", c.Source(), c.MaxBatch())
	}
}

func TestSnapshotsPartialBatch(t *testing.T) {
	sol := testdata(t, "token_overview_sol.json")
	var calls sync.Map
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := r.URL.Query().Get("address")
		calls.Store(addr, true)
		switch addr {
		case mintSOL:
			_, _ = w.Write(sol)
		case mintBONK: // Birdeye's answer for an address it does not know
			_, _ = w.Write([]byte(`{"success":true,"data":null}`))
		case mintUSDC:
			_, _ = w.Write([]byte(`{"success":true,"data":{}}`))
		case mintUnknown:
			http.NotFound(w, r)
		case mintUSDT: // one lookup failing does not sink the batch
			http.Error(w, "oops", http.StatusBadGateway)
		}
	}), nil)
	got, err := c.Snapshots(context.Background(), []string{mintSOL, mintBONK, mintUSDC, mintUnknown, mintUSDT, "not-a-mint", "../../x"})
	if err != nil {
		t.Fatalf("Snapshots: %v", err)
	}
	if len(got) != 1 || got[mintSOL].Symbol != "SOL" {
		t.Errorf("got %v, want only SOL", got)
	}
	if _, ok := calls.Load("not-a-mint"); ok {
		t.Error("a malformed mint was sent upstream")
	}
}

func TestSnapshotsAllFail(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}), nil)
	got, err := c.Snapshots(context.Background(), []string{mintSOL, mintBONK})
	if !errors.Is(err, market.ErrUpstream) {
		t.Fatalf("err = %v, want ErrUpstream", err)
	}
	if len(got) != 0 {
		t.Errorf("got %v", got)
	}
	// Empty input: no call, no error.
	if got, err := c.Snapshots(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("empty batch: %v %v", got, err)
	}
}

func TestSnapshotsRateLimitStopsBatch(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "17")
		w.WriteHeader(http.StatusTooManyRequests)
	}), func(cfg *Config) { cfg.Concurrency = 1 })
	_, err := c.Snapshots(context.Background(), []string{mintSOL, mintBONK, mintUSDC, mintUSDT})
	var rl *market.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter != 17*time.Second {
		t.Fatalf("err = %v, want RateLimitedError(17s)", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls after a 429, want 1", n)
	}
}

// call runs one adapter method against the server; each error test runs
// on all three.
type call struct {
	name string
	run  func(ctx context.Context, c *Client) error
}

var calls = []call{
	{"Snapshots", func(ctx context.Context, c *Client) error { _, err := c.Snapshots(ctx, []string{mintSOL}); return err }},
	{"Markets", func(ctx context.Context, c *Client) error { _, err := c.Markets(ctx, mintSOL, 10); return err }},
	{"OHLCV", func(ctx context.Context, c *Client) error {
		_, err := c.OHLCV(ctx, mintSOL, "15m", 1726670000, 1726680000)
		return err
	}},
}

func TestErrors(t *testing.T) {
	retryAt := testNow.Add(3 * time.Minute).Format(http.TimeFormat)
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		check  func(t *testing.T, err error)
	}{
		{"429 seconds", 429, map[string]string{"Retry-After": "120"}, `{"success":false,"message":"Too many requests"}`, providertest.WantRateLimited(120 * time.Second)},
		{"429 http date", 429, map[string]string{"Retry-After": retryAt}, "", providertest.WantRateLimited(3 * time.Minute)},
		{"429 without Retry-After", 429, nil, "", providertest.WantRateLimited(0)},
		{"500", 500, nil, `{"success":false,"message":"Internal Server Error"}`, providertest.WantIs(market.ErrUpstream)},
		{"503", 503, nil, "unavailable", providertest.WantIs(market.ErrUpstream)},
		{"401", 401, nil, `{"success":false,"message":"Unauthorized"}`, providertest.WantIs(market.ErrUpstream)},
		{"success false", 200, nil, `{"success":false,"message":"Something went wrong"}`, providertest.WantIs(market.ErrUpstream)},
		{"malformed JSON", 200, nil, `{"success":true,"data":{"price":`, providertest.WantIs(market.ErrMalformed)},
		{"not JSON", 200, nil, `<html>gateway</html>`, providertest.WantIs(market.ErrMalformed)},
		{"data is an array", 200, nil, `{"success":true,"data":[1,2]}`, providertest.WantIs(market.ErrMalformed)},
		{"wrong field type", 200, nil, `{"success":true,"data":{"address":"x","price":{"v":1},"items":"x"}}`, providertest.WantIs(market.ErrMalformed)},
		{"empty object", 200, nil, `{}`, providertest.WantIs(market.ErrMalformed)},
		{"oversized", 200, nil, `{"success":true,"data":{"address":"` + strings.Repeat("A", 2048) + `"}}`, providertest.WantIs(market.ErrMalformed)},
	}
	for _, tt := range tests {
		for _, cl := range calls {
			t.Run(tt.name+"/"+cl.name, func(t *testing.T) {
				c := newClient(t, providertest.Reply(tt.status, tt.header, tt.body), func(cfg *Config) { cfg.MaxBody = 1024 })
				err := cl.run(context.Background(), c)
				if err == nil {
					t.Fatal("want an error")
				}
				tt.check(t, err)
			})
		}
	}
}

func TestTimeouts(t *testing.T) {
	for _, cl := range calls {
		t.Run(cl.name, func(t *testing.T) {
			providertest.Timeouts(t, func(ctx context.Context, h http.Handler, timeout time.Duration) error {
				return cl.run(ctx, newClient(t, h, func(cfg *Config) { cfg.Timeout = timeout }))
			})
		})
	}
}

func TestMarketsFieldMapping(t *testing.T) {
	want := []market.DEXMarket{{
		Address:      "Jito4APyf642JPZPx3hGc6WWJ8zPKtRbRs4P815Awbb",
		Venue:        "Stake Pool",
		BaseMint:     mintJitoSOL,
		BaseSymbol:   "JitoSOL",
		QuoteMint:    mintSOL,
		QuoteSymbol:  "SOL",
		PriceUSD:     nil, // "price": null in the example
		LiquidityUSD: f(1733225301.1348372),
		Volume24hUSD: f(7610352.270776577),
		Trade24h:     f(1021),
		CreatedAt:    i64(1716880762), // "createdAt": "2024-05-28T07:19:22.813Z"
	}}
	sources := []struct {
		name string
		body func(t *testing.T) []byte
	}{
		{"doc example", func(t *testing.T) []byte { return docExample(t, "defi/get-defi-v2-markets.md") }},
		{"snippet", func(t *testing.T) []byte { return testdata(t, "markets_jitosol.json") }},
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			body := src.body(t)
			var got *http.Request
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Clone(context.Background())
				_, _ = w.Write(body)
			}), nil)
			ms, err := c.Markets(context.Background(), mintJitoSOL, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, ms); diff != "" {
				t.Errorf("Markets (-want +got):\n%s", diff)
			}
			q := got.URL.Query()
			wantQ := map[string]string{"address": mintJitoSOL, "time_frame": "24h", "sort_by": "liquidity", "sort_type": "desc", "offset": "0", "limit": "10"}
			for k, v := range wantQ {
				if q.Get(k) != v {
					t.Errorf("query %s = %q, want %q", k, q.Get(k), v)
				}
			}
			if got.URL.Path != "/defi/v2/markets" || got.Header.Get("X-API-KEY") != testKey || got.Header.Get("x-chain") != "solana" {
				t.Errorf("request %s %v", got.URL, got.Header)
			}
		})
	}
}

// marketsPage answers /defi/v2/markets from a synthetic list of n markets
// whose liquidity falls with the index.
func marketsPage(n int, seen *[]string, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		lim, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		mu.Lock()
		*seen = append(*seen, r.URL.Query().Get("offset")+"/"+r.URL.Query().Get("limit"))
		mu.Unlock()
		var items []string
		for i := off; i < min(n, off+lim); i++ {
			items = append(items, fmt.Sprintf(`{"address":"pool%03d","source":"Raydium","base":{"address":%q,"symbol":"SOL"},"quote":{"address":%q,"symbol":"USDC"},"liquidity":%d,"price":1,"volume24h":5,"trade24h":2}`,
				i, mintSOL, mintUSDC, 1_000_000-i))
		}
		fmt.Fprintf(w, `{"success":true,"data":{"items":[%s],"total":%d}}`, strings.Join(items, ","), n)
	})
}

func TestMarketsPaging(t *testing.T) {
	tests := []struct {
		name      string
		total     int
		limit     int
		wantN     int
		wantPages []string
	}{
		{"one page", 50, 5, 5, []string{"0/5"}},
		{"two pages", 50, 25, 25, []string{"0/20", "20/5"}},
		{"short list", 7, 20, 7, []string{"0/20"}},
		{"limit capped", 500, 1000, MaxMarkets, []string{"0/20", "20/20", "40/20", "60/20", "80/20"}},
		{"ends on a page boundary", 20, 30, 20, []string{"0/20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			var mu sync.Mutex
			c := newClient(t, marketsPage(tt.total, &seen, &mu), nil)
			ms, err := c.Markets(context.Background(), mintSOL, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != tt.wantN {
				t.Errorf("%d markets, want %d", len(ms), tt.wantN)
			}
			if diff := cmp.Diff(tt.wantPages, seen); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
			for i := 1; i < len(ms); i++ {
				if *ms[i-1].LiquidityUSD < *ms[i].LiquidityUSD {
					t.Fatalf("not sorted by liquidity at %d", i)
				}
			}
		})
	}
}

func TestMarketsCreatedAt(t *testing.T) {
	// Synthetic items: createdAt is optional and read leniently.
	tests := []struct {
		name string
		json string // the createdAt member, or "" for none
		want *int64
	}{
		{"RFC 3339 with millis", `"createdAt":"2021-01-01T00:00:00.999Z"`, i64(1609459200)},
		{"offset", `"createdAt":"2021-01-01T02:00:00+02:00"`, i64(1609459200)},
		{"no zone is UTC", `"createdAt":"2021-01-01T00:00:00"`, i64(1609459200)},
		{"absent", ``, nil},
		{"null", `"createdAt":null`, nil},
		{"empty", `"createdAt":""`, nil},
		{"date only", `"createdAt":"2021-01-01"`, nil},
		{"garbage", `"createdAt":"yesterday"`, nil},
		{"number", `"createdAt":1609459200`, nil},
		{"object", `"createdAt":{"t":1}`, nil},
		{"epoch", `"createdAt":"1970-01-01T00:00:00Z"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			member := ""
			if tt.json != "" {
				member = "," + tt.json
			}
			body := `{"success":true,"data":{"items":[{"address":"pool1","source":"Raydium","base":{"address":"` + mintSOL +
				`"},"quote":{"address":"` + mintUSDC + `"},"liquidity":10` + member + `}],"total":1}}`
			ms, _, err := parseMarkets([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			if len(ms) != 1 {
				t.Fatalf("%d markets, want 1", len(ms))
			}
			if diff := cmp.Diff(tt.want, ms[0].CreatedAt); diff != "" {
				t.Errorf("CreatedAt (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSnapshotsHolderAbsent(t *testing.T) {
	// A synthetic overview without "holder" leaves Holders nil; a
	// non-numeric one is malformed like any other number.
	c := newClient(t, providertest.JSON(200, []byte(`{"success":true,"data":{"address":"`+mintSOL+`","symbol":"TEST","price":1}}`)), nil)
	got, err := c.Snapshots(context.Background(), []string{mintSOL})
	if err != nil {
		t.Fatal(err)
	}
	if h := got[mintSOL].Market.Holders; h != nil {
		t.Errorf("Holders = %v, want nil", *h)
	}
	if _, _, err := parseOverview([]byte(`{"success":true,"data":{"address":"x","price":1,"holder":"many"}}`)); !errors.Is(err, market.ErrMalformed) {
		t.Errorf("holder \"many\": err = %v, want ErrMalformed", err)
	}
}

func TestMarketsSortsAndUnknown(t *testing.T) {
	body := `{"success":true,"data":{"items":[
		{"address":"b","source":"Orca","base":{"address":"` + mintSOL + `"},"quote":{"address":"` + mintUSDC + `"},"liquidity":null,"volume24h":9},
		{"address":"a","source":"Raydium","base":{"address":"` + mintSOL + `"},"quote":{"address":"` + mintUSDC + `"},"liquidity":"10.5"},
		{"address":"","source":"skipped"},
		{"address":"c","source":"Meteora","base":{"address":"` + mintSOL + `"},"quote":{"address":"` + mintUSDT + `"},"liquidity":20}
	],"total":3}}`
	c := newClient(t, providertest.JSON(200, []byte(body)), nil)
	ms, err := c.Markets(context.Background(), mintSOL, 10)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range ms {
		order = append(order, m.Address)
	}
	if strings.Join(order, ",") != "c,a,b" {
		t.Errorf("order %v, want c,a,b (unknown liquidity last)", order)
	}

	for name, h := range map[string]http.Handler{
		"404":       http.NotFoundHandler(),
		"null data": providertest.JSON(200, []byte(`{"success":true,"data":null}`)),
		"no items":  providertest.JSON(200, []byte(`{"success":true,"data":{"items":[],"total":0}}`)),
	} {
		c := newClient(t, h, nil)
		ms, err := c.Markets(context.Background(), mintUnknown, 10)
		if err != nil || len(ms) != 0 {
			t.Errorf("%s: %v %v, want empty", name, ms, err)
		}
	}
	if ms, err := c.Markets(context.Background(), "bad mint", 10); err != nil || ms != nil {
		t.Errorf("malformed mint: %v %v", ms, err)
	}
}

func TestOHLCVFieldMapping(t *testing.T) {
	want := []market.Candle{
		{Time: 1726670700, Open: 128.27328370924414, High: 128.6281001340782, Low: 127.91200927364626, Close: 127.97284640184616, Volume: 7506048},
		{Time: 1726671600, Open: 127.97284640184616, High: 128.49450996585105, Low: 127.89354285873108, Close: 128.04188346328968, Volume: 7506048},
	}
	sources := []struct {
		name string
		body func(t *testing.T) []byte
	}{
		{"doc example", func(t *testing.T) []byte { return docExample(t, "defi/get-defi-v3-ohlcv.md") }},
		{"snippet", func(t *testing.T) []byte { return testdata(t, "ohlcv_sol_15m.json") }},
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			body := src.body(t)
			var got *http.Request
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Clone(context.Background())
				_, _ = w.Write(body)
			}), nil)
			cs, err := c.OHLCV(context.Background(), mintSOL, "15m", 1726670700, 1726672500)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, cs); diff != "" {
				t.Errorf("OHLCV (-want +got):\n%s", diff)
			}
			q := got.URL.Query()
			wantQ := map[string]string{"address": mintSOL, "type": "15m", "currency": "usd", "time_from": "1726670700", "time_to": "1726672500"}
			for k, v := range wantQ {
				if q.Get(k) != v {
					t.Errorf("query %s = %q, want %q", k, q.Get(k), v)
				}
			}
			if got.URL.Path != "/defi/v3/ohlcv" || got.Header.Get("X-API-KEY") != testKey || got.Header.Get("x-chain") != "solana" {
				t.Errorf("request %s %v", got.URL, got.Header)
			}
		})
	}
}

func TestOHLCVVolumeWindowAndOrder(t *testing.T) {
	// Out of order, a duplicate, one before from, one at to (excluded),
	// one without v_usd (volume = v * close), one without close (skipped).
	body := `{"success":true,"data":{"items":[
		{"o":2,"h":3,"l":1,"c":2.5,"v":10,"unix_time":1200},
		{"o":1,"h":2,"l":0.5,"c":1.5,"v":4,"v_usd":6.5,"unix_time":1100},
		{"o":1,"h":2,"l":0.5,"c":1.5,"v":4,"v_usd":99,"unix_time":1100},
		{"o":1,"h":1,"l":1,"c":1,"v":1,"v_usd":1,"unix_time":1000},
		{"o":1,"h":1,"l":1,"c":1,"v":1,"v_usd":1,"unix_time":1300},
		{"o":1,"h":1,"l":1,"v":1,"unix_time":1250},
		{"o":1,"h":1,"l":1,"c":3,"v_usd":null,"unix_time":1150}
	]}}`
	c := newClient(t, providertest.JSON(200, []byte(body)), nil)
	cs, err := c.OHLCV(context.Background(), mintSOL, "1m", 1100, 1300)
	if err != nil {
		t.Fatal(err)
	}
	want := []market.Candle{
		{Time: 1100, Open: 1, High: 2, Low: 0.5, Close: 1.5, Volume: 6.5},
		{Time: 1150, Open: 1, High: 1, Low: 1, Close: 3, Volume: 0},
		{Time: 1200, Open: 2, High: 3, Low: 1, Close: 2.5, Volume: 25},
	}
	if diff := cmp.Diff(want, cs); diff != "" {
		t.Errorf("OHLCV (-want +got):\n%s", diff)
	}
}

func TestOHLCVPaging(t *testing.T) {
	// The first page is full (5000 candles from `from`); the second
	// request must start one step after its last candle.
	const from, step = int64(1_000_000), int64(60)
	to := from + 6000*step
	var froms []string
	var mu sync.Mutex
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tf, _ := strconv.ParseInt(r.URL.Query().Get("time_from"), 10, 64)
		mu.Lock()
		froms = append(froms, r.URL.Query().Get("time_from"))
		mu.Unlock()
		var items []string
		for t := tf; t < to && len(items) < OHLCVPageSize; t += step {
			items = append(items, fmt.Sprintf(`{"o":1,"h":1,"l":1,"c":1,"v_usd":1,"unix_time":%d}`, t))
		}
		fmt.Fprintf(w, `{"success":true,"data":{"items":[%s]}}`, strings.Join(items, ","))
	}), nil)
	cs, err := c.OHLCV(context.Background(), mintSOL, "1m", from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 6000 || cs[0].Time != from || cs[len(cs)-1].Time != to-step {
		t.Errorf("%d candles [%d..%d]", len(cs), cs[0].Time, cs[len(cs)-1].Time)
	}
	if diff := cmp.Diff([]string{"1000000", strconv.FormatInt(from+5000*step, 10)}, froms); diff != "" {
		t.Errorf("time_from of the calls (-want +got):\n%s", diff)
	}
}

func TestOHLCVArguments(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = w.Write([]byte(`{"success":true,"data":{"items":[]}}`))
	}), nil)
	_, err := c.OHLCV(context.Background(), mintSOL, "2m", 0, 100)
	if err == nil || errors.Is(err, market.ErrUpstream) || errors.Is(err, market.ErrMalformed) {
		t.Errorf("unsupported interval: err = %v, want a plain argument error", err)
	}
	for _, iv := range market.Intervals {
		if _, err := c.OHLCV(context.Background(), mintSOL, iv, 0, 100); err != nil {
			t.Errorf("interval %s: %v", iv, err)
		}
	}
	before := calls.Load()
	if cs, err := c.OHLCV(context.Background(), mintSOL, "1m", 100, 100); err != nil || cs != nil {
		t.Errorf("empty window: %v %v", cs, err)
	}
	if cs, err := c.OHLCV(context.Background(), "x", "1m", 0, 100); err != nil || cs != nil {
		t.Errorf("malformed mint: %v %v", cs, err)
	}
	if calls.Load() != before {
		t.Error("a call was made for an empty window or a malformed mint")
	}
}

func TestAPIKeyNeverLogged(t *testing.T) {
	var logs providertest.LogBuffer
	statuses := []int{200, 401, 429, 500, 404}
	var n atomic.Int32
	sol := testdata(t, "token_overview_sol.json")
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := statuses[int(n.Add(1)-1)%len(statuses)]
		w.WriteHeader(st)
		if st == 200 {
			_, _ = w.Write(sol)
			return
		}
		// A hostile upstream echoing the key back.
		fmt.Fprintf(w, `{"success":false,"message":"invalid key %s"}`, r.Header.Get("X-API-KEY"))
	}), func(cfg *Config) { cfg.Logger = logs.Logger(); cfg.Concurrency = 1 })
	var errs []error
	for range statuses {
		_, err := c.Snapshots(context.Background(), []string{mintSOL})
		errs = append(errs, err)
		_, err = c.Markets(context.Background(), mintSOL, 5)
		errs = append(errs, err)
	}
	if !strings.Contains(logs.String(), "provider") {
		t.Fatal("nothing was logged; the test checks nothing")
	}
	if strings.Contains(logs.String(), testKey) {
		t.Errorf("the API key was logged:\n%s", logs.String())
	}
	for _, err := range errs {
		if err != nil && strings.Contains(err.Error(), testKey) {
			t.Errorf("an error carries the API key: %v", err)
		}
	}
}

func TestNewValidation(t *testing.T) {
	if _, err := New(Config{}); err == nil {
		t.Error("New without APIKey succeeded")
	}
	if _, err := New(Config{APIKey: "k", BaseURL: "ftp://x"}); err == nil {
		t.Error("New with a non-http BaseURL succeeded")
	}
	if _, err := New(Config{APIKey: "k", Concurrency: -1}); err == nil {
		t.Error("New with negative Concurrency succeeded")
	}
	c, err := New(Config{APIKey: "k", MaxBatch: 7})
	if err != nil || c.MaxBatch() != 7 {
		t.Errorf("MaxBatch: %v %v", c, err)
	}
}

func FuzzParseOverview(f *testing.F) {
	f.Add(testdata(f, "token_overview_sol.json"))
	if b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "data", birdeyeFixture)); err == nil {
		var doc struct {
			Pages map[string]struct {
				Examples []json.RawMessage `json:"examples"`
			} `json:"pages"`
		}
		if json.Unmarshal(b, &doc) == nil {
			for _, p := range []string{"defi/get-defi-token_overview.md", "defi/get-defi-v2-markets.md", "defi/get-defi-v3-ohlcv.md"} {
				for _, ex := range doc.Pages[p].Examples {
					f.Add([]byte(ex))
				}
			}
		}
	}
	for _, s := range []string{``, `null`, `{}`, `[]`, `{"success":true,"data":null}`, `{"success":false}`, `{"data":{"price":"1e400"}}`, `{"data":{"decimals":1e300}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		o, found, err := parseOverview(body)
		if err != nil && !errors.Is(err, market.ErrMalformed) && !errors.Is(err, market.ErrUpstream) {
			t.Fatalf("unexpected error class: %v", err)
		}
		if found {
			tok := o.token(mintSOL, i64(1))
			if tok.Market.Source != asset.SourceMarketDataA {
				t.Fatal("source not set")
			}
		}
		_, _, _ = parseMarkets(body)
		_, _, _ = parseOHLCV(body)
	})
}
