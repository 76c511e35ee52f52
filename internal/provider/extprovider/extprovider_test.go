package extprovider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
	testKey    = "test-cg-key-0123456789"
	oasFixture = "fixtures-coingecko-oas-examples.json"
)

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newClient(t *testing.T, h http.Handler, mut func(*Config)) *Client {
	t.Helper()
	srv := providertest.Server(t, h)
	cfg := Config{BaseURL: srv.URL + "/api/v3", Timeout: 5 * time.Second, Now: func() time.Time { return testNow }}
	if mut != nil {
		mut(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// oasExample returns the vendor's 200 example of an endpoint of the
// CoinGecko OpenAPI fixture, skipping when the shared data is absent.
func oasExample(t *testing.T, endpoint string) []byte {
	t.Helper()
	doc := providertest.SharedData(t, oasFixture)
	return providertest.JSONPath(t, doc, "endpoints", endpoint, "example")
}

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ptr(v float64) *float64 { return providertest.Ptr(v) }

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func TestCoinOASExample(t *testing.T) {
	c := newClient(t, providertest.JSON(200, oasExample(t, "GET /coins/{id}")), nil)
	got, err := c.Coin(context.Background(), "bitcoin")
	if err != nil {
		t.Fatal(err)
	}
	want := market.Coin{
		ID:          "bitcoin",
		Symbol:      "BTC",
		Name:        "Bitcoin",
		Description: "Bitcoin is the first successful internet money based on peer-to-peer technology...",
		ImageURL:    "https://assets.coingecko.com/coins/images/1/large/bitcoin.png?1696501400",
		Links: market.CoinLinks{
			Website: "http://www.bitcoin.org",
			Twitter: "https://x.com/bitcoin",
			Reddit:  "https://www.reddit.com/r/Bitcoin/",
			GitHub:  "https://github.com/bitcoin/bitcoin",
			// telegram_channel_identifier and chat_url are empty.
		},
		PriceUSD:              ptr(69840),
		MarketCapUSD:          ptr(1373296629498),
		FDVUSD:                ptr(1466577759),
		Volume24hUSD:          ptr(18867210007),
		PriceChange24hPercent: ptr(2.37311),
		PriceChange1hPercent:  ptr(0.79523),
		CirculatingSupply:     ptr(19675377),
		TotalSupply:           ptr(21000000),
		MaxSupply:             ptr(21000000),
		AllTimeHighUSD:        ptr(73738),
		AllTimeHighAt:         utc("2024-03-14T07:10:36.635Z"),
		LastUpdated:           utc("2024-04-07T15:24:51.021Z"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Coin (-want +got):\n%s", diff)
	}
}

func TestCoinEdgeCases(t *testing.T) {
	c := newClient(t, providertest.JSON(200, testdata(t, "coin_edge.json")), nil)
	got, err := c.Coin(context.Background(), "example-coin")
	if err != nil {
		t.Fatal(err)
	}
	want := market.Coin{
		ID:          "example-coin",
		Symbol:      "EXM",
		Name:        "Example Coin",
		Description: "Example & Co. is a token for tests. Second paragraph: 1 < 2 and a break.",
		ImageURL:    "https://img.example.com/thumb.png", // large null, small empty
		Links: market.CoinLinks{
			Website:  "https://example.com/", // "" and javascript: skipped
			Twitter:  "https://x.com/examplecoin",
			Telegram: "https://t.me/example_chat",
			Discord:  "https://discord.gg/example",
			GitHub:   "https://github.com/example/coin",
			// subreddit_url is the bare reddit.com placeholder.
		},
		PriceUSD:              ptr(0.5), // a numeric string
		MarketCapUSD:          ptr(0),   // a reported 0 stays 0
		PriceChange24hPercent: ptr(-3.25),
		CirculatingSupply:     ptr(0),
		TotalSupply:           ptr(1e9),
		AllTimeHighUSD:        ptr(1.75),
		// ath_date unparsable: zero; market_data.last_updated null: the
		// top-level one.
		LastUpdated: utc("2026-05-18T13:30:00Z"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Coin (-want +got):\n%s", diff)
	}
}

func TestCoinWithoutMarketData(t *testing.T) {
	for _, body := range []string{`{"id":"x","symbol":"x","name":"X"}`, `{"id":"x","symbol":"x","name":"X","market_data":null}`, `{"id":"x","symbol":"x","name":"X","market_data":{}}`} {
		c := newClient(t, providertest.JSON(200, []byte(body)), nil)
		got, err := c.Coin(context.Background(), "x")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(market.Coin{ID: "x", Symbol: "X", Name: "X"}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", body, diff)
		}
	}
}

func TestTickersOASExample(t *testing.T) {
	var calls atomic.Int32
	body := oasExample(t, "GET /coins/{id}/tickers")
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = w.Write(body)
	}), nil)
	got, err := c.Tickers(context.Background(), "bitcoin", 50)
	if err != nil {
		t.Fatal(err)
	}
	want := []market.Ticker{{
		Base:          "BTC",
		Target:        "USDT",
		MarketName:    "Binance",
		MarketID:      "binance",
		MarketLogo:    "https://coin-images.coingecko.com/markets/images/52/small/binance.jpg?1706864274",
		PriceUSD:      ptr(76856),
		Volume24hUSD:  ptr(1059536991),
		SpreadPercent: ptr(0.010013),
		TradeURL:      "https://www.binance.com/en/trade/BTC_USDT?ref=37754157",
		Timestamp:     utc("2026-05-18T13:37:29Z"),
		// trust_score null; has_trading_incentive, is_anomaly, is_stale false.
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tickers (-want +got):\n%s", diff)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls, want 1 (a short page ends paging)", n)
	}
}

func TestTickersMappingAndOrder(t *testing.T) {
	page := `{"name":"X","tickers":[
		{"base":"X","target":"USDT","market":{"name":"A","identifier":"a"},"converted_volume":{"usd":null},"trust_score":"Green","timestamp":null,"last_traded_at":"2026-05-18T10:00:00+00:00"},
		{"base":"X","target":"USDC","market":{"name":"B","identifier":"b","has_trading_incentive":true},"converted_volume":{"usd":"5"},"trust_score":"amber","is_anomaly":true,"trade_url":"javascript:x"},
		{"base":"X","target":"BTC","market":{"name":"C","identifier":"c"},"converted_volume":{"usd":10},"is_stale":true},
		{"base":"X","target":"ETH","market":{"name":"D","identifier":"d"},"converted_volume":{"usd":5},"trust_score":"red"},
		{"base":"X","target":"USDT","market":{"name":"A","identifier":"a"},"converted_volume":{"usd":7}},
		{"base":"X","target":"SOL","market":{"name":"E","identifier":"e"},"converted_volume":{}}
	]}`
	c := newClient(t, providertest.JSON(200, []byte(page)), nil)
	got, err := c.Tickers(context.Background(), "x", 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []market.Ticker{
		{Base: "X", Target: "BTC", MarketName: "C", MarketID: "c", Volume24hUSD: ptr(10), IsStale: true},
		{Base: "X", Target: "USDC", MarketName: "B", MarketID: "b", HasTradingIncentive: true, Volume24hUSD: ptr(5), IsAnomaly: true},
		{Base: "X", Target: "ETH", MarketName: "D", MarketID: "d", Volume24hUSD: ptr(5), TrustScore: "red"},
		// The repeated a/X/USDT row is dropped; unknown volumes come last
		// in the provider's order.
		{Base: "X", Target: "USDT", MarketName: "A", MarketID: "a", TrustScore: "green", Timestamp: utc("2026-05-18T10:00:00Z")},
		{Base: "X", Target: "SOL", MarketName: "E", MarketID: "e"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tickers (-want +got):\n%s", diff)
	}
	got, err = c.Tickers(context.Background(), "x", 2)
	if err != nil || len(got) != 2 || got[0].MarketID != "c" || got[1].MarketID != "b" {
		t.Errorf("limit 2: %+v %v", got, err)
	}
}

// tickerPages serves pages of sizes[page-1] tickers (0 past the end,
// 404 when notFound is that page), volumes falling through the pages,
// and records the page numbers asked for.
func tickerPages(sizes []int, notFound int, pages *[]int, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		mu.Lock()
		*pages = append(*pages, p)
		mu.Unlock()
		if p == notFound {
			http.Error(w, `{"error":"coin not found"}`, http.StatusNotFound)
			return
		}
		n := 0
		if p >= 1 && p <= len(sizes) {
			n = sizes[p-1]
		}
		var rows []string
		for i := range n {
			rows = append(rows, fmt.Sprintf(`{"base":"X","target":"T%d","market":{"name":"M","identifier":"m%d"},"converted_volume":{"usd":%d}}`,
				i, p, 1_000_000-(p-1)*TickersPageSize-i))
		}
		fmt.Fprintf(w, `{"name":"X","tickers":[%s]}`, strings.Join(rows, ","))
	})
}

func TestTickersPaging(t *testing.T) {
	full := []int{100, 100, 100, 100}
	tests := []struct {
		name      string
		sizes     []int
		notFound  int
		limit     int
		wantPages []int
		wantRows  int
	}{
		{"limit 150 takes two pages", full, 0, 150, []int{1, 2}, 150},
		{"short page stops", []int{100, 30, 100}, 0, 250, []int{1, 2}, 130},
		{"empty page stops", []int{100, 0}, 0, 150, []int{1, 2}, 100},
		{"capped at three pages", full, 0, 1000, []int{1, 2, 3}, MaxTickers},
		{"default limit is one page", full, 0, 0, []int{1}, DefaultTickersLimit},
		{"404 past page one ends paging", full, 2, 150, []int{1, 2}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var pages []int
			c := newClient(t, tickerPages(tt.sizes, tt.notFound, &pages, &mu), nil)
			got, err := c.Tickers(context.Background(), "x", tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(pages, tt.wantPages) {
				t.Errorf("pages %v, want %v", pages, tt.wantPages)
			}
			if len(got) != tt.wantRows {
				t.Fatalf("%d rows, want %d", len(got), tt.wantRows)
			}
			for i := 1; i < len(got); i++ {
				if *got[i].Volume24hUSD > *got[i-1].Volume24hUSD {
					t.Fatalf("row %d out of volume order", i)
				}
			}
			if *got[0].Volume24hUSD != 1_000_000 {
				t.Errorf("first row volume %v", *got[0].Volume24hUSD)
			}
		})
	}
}

func TestCoinCandlesOASExample(t *testing.T) {
	// The example holds two points: 1779027899041 ms at 77953.82550382407
	// and 1779028199661 ms at 78052.87543398788.
	const p1, p2 = 77953.82550382407, 78052.87543398788
	body := oasExample(t, "GET /coins/{id}/market_chart/range")
	var q url.Values
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q = r.URL.Query()
		_, _ = w.Write(body)
	}), nil)
	const from, to = 1779026400, 1779026400 + 2*3600 // hour-aligned
	tests := []struct {
		interval market.Interval
		want     []market.Candle
	}{
		{"5m", []market.Candle{
			{Time: 1779027600, Open: p1, High: p1, Low: p1, Close: p1},
			{Time: 1779027900, Open: p2, High: p2, Low: p2, Close: p2},
		}},
		{"1H", []market.Candle{{Time: 1779026400, Open: p1, High: p2, Low: p1, Close: p2}}},
		{"1D", []market.Candle{}}, // the day opens before from
	}
	for _, tt := range tests {
		got, err := c.CoinCandles(context.Background(), "bitcoin", tt.interval, from, to)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.interval, diff)
		}
		if got == nil {
			t.Errorf("%s: nil slice, want empty", tt.interval)
		}
	}
	if q.Get("from") != "1779026400" || q.Get("to") != "1779033600" {
		t.Errorf("query %v", q)
	}
}

func TestBucket(t *testing.T) {
	monday := time.Date(2026, 5, 18, 0, 0, 0, 0, time.UTC)
	if monday.Weekday() != time.Monday {
		t.Fatalf("%v is not a Monday", monday)
	}
	m := monday.Unix()
	const h, d = 3600, 86400
	hourly := func(prices ...float64) []point {
		pts := make([]point, len(prices))
		for i, p := range prices {
			pts[i] = point{t: m + int64(i)*h, price: p}
		}
		return pts
	}
	tests := []struct {
		name     string
		pts      []point
		interval market.Interval
		from, to int64
		want     []market.Candle
	}{
		{
			name: "hourly into 4H, points at or after to dropped",
			pts:  hourly(5, 7, 3, 6, 2, 9, 4, 8, 1, 10), interval: "4H", from: m, to: m + 8*h,
			want: []market.Candle{
				{Time: m, Open: 5, High: 7, Low: 3, Close: 6},
				{Time: m + 4*h, Open: 2, High: 9, Low: 2, Close: 8},
			},
		},
		{
			name: "bucket opening before from dropped",
			pts:  hourly(5, 7, 3, 6, 2, 9, 4, 8, 1, 10), interval: "4H", from: m + h, to: m + 12*h,
			want: []market.Candle{
				{Time: m + 4*h, Open: 2, High: 9, Low: 2, Close: 8},
				{Time: m + 8*h, Open: 1, High: 10, Low: 1, Close: 10},
			},
		},
		{
			name: "1W splits at Monday 00:00 UTC",
			pts: []point{
				{t: m - 7*d - h, price: 99}, // before from
				{t: m - h, price: 4},        // Sunday 23:00
				{t: m, price: 5},            // Monday 00:00
				{t: m + 6*d, price: 3},
				{t: m + 7*d, price: 100}, // at to
			},
			interval: "1W", from: m - 7*d, to: m + 7*d,
			want: []market.Candle{
				{Time: m - 7*d, Open: 4, High: 4, Low: 4, Close: 4},
				{Time: m, Open: 5, High: 5, Low: 3, Close: 3},
			},
		},
		{
			name:     "unsorted input, equal times keep their order",
			pts:      []point{{t: m + 2*h, price: 3}, {t: m, price: 1}, {t: m + 2*h, price: 4}, {t: m + h, price: 2}},
			interval: "1D", from: m, to: m + d,
			want: []market.Candle{{Time: m, Open: 1, High: 4, Low: 1, Close: 4}},
		},
		{name: "no points", interval: "1m", from: m, to: m + d, want: []market.Candle{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bucket(tt.pts, tt.interval, tt.from, tt.to)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("bucket (-want +got):\n%s", diff)
			}
			if got == nil {
				t.Error("nil slice, want empty")
			}
		})
	}
	// Alignment agrees with UTC calendar boundaries for every interval.
	ts := m + 3*d + 13*h + 47*60 + 12 // Thursday 13:47:12
	for iv, want := range map[market.Interval]int64{
		"1m": ts - 12, "5m": ts - 2*60 - 12, "15m": ts - 2*60 - 12, "1H": ts - 47*60 - 12,
		"4H": m + 3*d + 12*h, "1D": m + 3*d, "1W": m,
	} {
		if got := align(ts, iv); got != want {
			t.Errorf("align(%s) = %d, want %d", iv, got, want)
		}
	}
}

func TestParseChartSkipsIncompletePoints(t *testing.T) {
	pts, err := parseChart([]byte(`{"prices":[[1779027899041,1.5],[null,2],[1779027900000],[1779027900000,null],["1779027960000","2.5"]],"total_volumes":[[1779027899041,9]]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []point{{t: 1779027899, price: 1.5}, {t: 1779027960, price: 2.5}}
	if !cmp.Equal(want, pts, cmp.AllowUnexported(point{})) {
		t.Errorf("points %+v, want %+v", pts, want)
	}
}

func TestCoinCandlesArguments(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = w.Write([]byte(`{"prices":[]}`))
	}), nil)
	ctx := context.Background()
	_, err := c.CoinCandles(ctx, "bitcoin", "2H", 0, 3600)
	if err == nil || errors.Is(err, market.ErrUpstream) || errors.Is(err, market.ErrMalformed) {
		t.Errorf("unknown interval: err = %v, want a plain error", err)
	}
	for _, w := range [][2]int64{{100, 100}, {200, 100}} {
		got, err := c.CoinCandles(ctx, "bitcoin", "1H", w[0], w[1])
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("window %v: %v %v, want empty", w, got, err)
		}
	}
	got, err := c.CoinCandles(ctx, "bitcoin", "1H", 0, 3600)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("no prices: %v %v, want empty", got, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls, want 1 (only the valid window)", n)
	}
}

// call runs one adapter method against the server; each error test runs
// on all three.
type call struct {
	name string
	run  func(ctx context.Context, c *Client, id string) error
}

var calls = []call{
	{"Coin", func(ctx context.Context, c *Client, id string) error { _, err := c.Coin(ctx, id); return err }},
	{"Tickers", func(ctx context.Context, c *Client, id string) error { _, err := c.Tickers(ctx, id, 10); return err }},
	{"CoinCandles", func(ctx context.Context, c *Client, id string) error {
		_, err := c.CoinCandles(ctx, id, "1H", 1779026400, 1779033600)
		return err
	}},
}

func TestRequestShape(t *testing.T) {
	coinQuery := url.Values{"localization": {"false"}, "tickers": {"false"}, "market_data": {"true"},
		"community_data": {"false"}, "developer_data": {"false"}, "sparkline": {"false"}}
	want := map[string]struct {
		path  string
		query url.Values
	}{
		"Coin":    {"/api/v3/coins/wrapped%20bitcoin%2Fx", coinQuery},
		"Tickers": {"/api/v3/coins/wrapped%20bitcoin%2Fx/tickers", url.Values{"page": {"1"}, "order": {"volume_desc"}, "include_exchange_logo": {"true"}, "dex_pair_format": {"symbol"}}},
		"CoinCandles": {"/api/v3/coins/wrapped%20bitcoin%2Fx/market_chart/range",
			url.Values{"vs_currency": {"usd"}, "from": {"1779026400"}, "to": {"1779033600"}, "precision": {"full"}}},
	}
	keys := []struct {
		name    string
		cfg     Config
		header  string   // the header that must carry testKey
		without []string // headers that must be absent
	}{
		{"no key", Config{}, "", []string{DemoKeyHeader, ProKeyHeader}},
		{"demo key", Config{APIKey: testKey}, DemoKeyHeader, []string{ProKeyHeader}},
		{"pro key", Config{APIKey: " " + testKey + " ", Pro: true}, ProKeyHeader, []string{DemoKeyHeader}},
	}
	for _, k := range keys {
		for _, cl := range calls {
			t.Run(k.name+"/"+cl.name, func(t *testing.T) {
				var got *http.Request
				c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					got = r.Clone(context.Background())
					_, _ = w.Write([]byte(`{"id":"x","tickers":[],"prices":[]}`))
				}), func(cfg *Config) { cfg.APIKey, cfg.Pro = k.cfg.APIKey, k.cfg.Pro })
				if err := cl.run(context.Background(), c, "wrapped bitcoin/x"); err != nil {
					t.Fatal(err)
				}
				w := want[cl.name]
				if got.Method != http.MethodGet || got.URL.EscapedPath() != w.path {
					t.Errorf("request %s %s, want %s", got.Method, got.URL.EscapedPath(), w.path)
				}
				if diff := cmp.Diff(w.query, got.URL.Query()); diff != "" {
					t.Errorf("query (-want +got):\n%s", diff)
				}
				if k.header != "" && got.Header.Get(k.header) != testKey {
					t.Errorf("%s = %q", k.header, got.Header.Get(k.header))
				}
				for _, h := range k.without {
					if _, ok := got.Header[http.CanonicalHeaderKey(h)]; ok {
						t.Errorf("%s sent: %v", h, got.Header)
					}
				}
				if got.Header.Get("Accept") != "application/json" {
					t.Errorf("headers %v", got.Header)
				}
			})
		}
	}
}

// roundTrip is an http.RoundTripper answering every request locally.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestDefaultBaseURL(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "https://api.coingecko.com/api/v3/coins/bitcoin"},
		{Config{APIKey: testKey}, "https://api.coingecko.com/api/v3/coins/bitcoin"},
		{Config{APIKey: testKey, Pro: true}, "https://pro-api.coingecko.com/api/v3/coins/bitcoin"},
	} {
		var got string
		tt.cfg.HTTPClient = &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			got = r.URL.Scheme + "://" + r.URL.Host + r.URL.Path
			return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}, Request: r}, nil
		})}
		c, err := New(tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Coin(context.Background(), "bitcoin") // the empty body is malformed; only the URL matters
		if got != tt.want {
			t.Errorf("Pro=%v: URL %q, want %q", tt.cfg.Pro, got, tt.want)
		}
	}
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
		{"404", 404, nil, `{"error":"coin not found"}`, wantNotFound},
		{"429 seconds", 429, map[string]string{"Retry-After": "120"}, `{"status":{"error_code":429}}`, providertest.WantRateLimited(120 * time.Second)},
		{"429 http date", 429, map[string]string{"Retry-After": retryAt}, "", providertest.WantRateLimited(3 * time.Minute)},
		{"429 without Retry-After", 429, nil, "", providertest.WantRateLimited(0)},
		{"500", 500, nil, `{"error":"internal"}`, providertest.WantIs(market.ErrUpstream)},
		{"503", 503, nil, "unavailable", providertest.WantIs(market.ErrUpstream)},
		{"401", 401, nil, `{"status":{"error_code":10002,"error_message":"bad key"}}`, providertest.WantIs(market.ErrUpstream)},
		{"malformed JSON", 200, nil, `{"id":"bitcoin","tickers":[`, providertest.WantIs(market.ErrMalformed)},
		{"not JSON", 200, nil, `<html>gateway</html>`, providertest.WantIs(market.ErrMalformed)},
		{"array", 200, nil, `[1,2]`, providertest.WantIs(market.ErrMalformed)},
		{"empty object", 200, nil, `{}`, providertest.WantIs(market.ErrMalformed)},
		{"null", 200, nil, `null`, providertest.WantIs(market.ErrMalformed)},
		{"wrong field type", 200, nil, `{"id":"x","market_data":{"current_price":{"usd":"abc"}},"tickers":[{"converted_volume":{"usd":"abc"}}],"prices":[["abc",1]]}`, providertest.WantIs(market.ErrMalformed)},
		{"oversized", 200, nil, `{"id":"` + strings.Repeat("A", 2048) + `"}`, providertest.WantIs(market.ErrMalformed)},
	}
	for _, tt := range tests {
		for _, cl := range calls {
			t.Run(tt.name+"/"+cl.name, func(t *testing.T) {
				c := newClient(t, providertest.Reply(tt.status, tt.header, tt.body), func(cfg *Config) { cfg.MaxBody = 1024 })
				err := cl.run(context.Background(), c, "bitcoin")
				if err == nil {
					t.Fatal("want an error")
				}
				tt.check(t, err)
			})
		}
	}
}

func TestInvalidIDNeverSent(t *testing.T) {
	var n atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { n.Add(1) }), nil)
	for _, id := range []string{"", "  ", ".", "..", "bit\ncoin", strings.Repeat("x", maxIDLen+1)} {
		for _, cl := range calls {
			if err := cl.run(context.Background(), c, id); !errors.Is(err, market.ErrNotFound) {
				t.Errorf("%s(%q): err = %v, want ErrNotFound", cl.name, id, err)
			}
		}
	}
	if n.Load() != 0 {
		t.Errorf("%d calls for invalid ids", n.Load())
	}
}

func wantNotFound(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, market.ErrNotFound) || errors.Is(err, market.ErrUpstream) {
		t.Errorf("err = %v, want ErrNotFound (and not ErrUpstream)", err)
	}
}

func TestTimeouts(t *testing.T) {
	for _, cl := range calls {
		t.Run(cl.name, func(t *testing.T) {
			providertest.Timeouts(t, func(ctx context.Context, h http.Handler, timeout time.Duration) error {
				return cl.run(ctx, newClient(t, h, func(cfg *Config) { cfg.Timeout = timeout }), "bitcoin")
			})
		})
	}
}

func TestAPIKeyNeverLogged(t *testing.T) {
	for _, pro := range []bool{false, true} {
		t.Run(fmt.Sprintf("pro=%v", pro), func(t *testing.T) {
			var logs providertest.LogBuffer
			statuses := []int{200, 401, 429, 500, 404}
			var n atomic.Int32
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				st := statuses[int(n.Add(1)-1)%len(statuses)]
				w.WriteHeader(st)
				if st == 200 {
					_, _ = w.Write([]byte(`{"id":"bitcoin","tickers":[],"prices":[]}`))
					return
				}
				// A hostile upstream echoing the key back.
				fmt.Fprintf(w, `{"error":"invalid key %s%s"}`, r.Header.Get(DemoKeyHeader), r.Header.Get(ProKeyHeader))
			}), func(cfg *Config) { cfg.Logger = logs.Logger(); cfg.APIKey = testKey; cfg.Pro = pro })
			var errs []error
			for range statuses {
				for _, cl := range calls {
					errs = append(errs, cl.run(context.Background(), c, "bitcoin"))
				}
			}
			if !strings.Contains(logs.String(), "provider") {
				t.Fatal("nothing was logged; the test checks nothing")
			}
			if strings.Contains(logs.String(), testKey) {
				t.Errorf("the API key was logged:\n%s", logs.String())
			}
			failed := 0
			for _, err := range errs {
				if err != nil {
					failed++
					if strings.Contains(err.Error(), testKey) {
						t.Errorf("an error carries the API key: %v", err)
					}
				}
			}
			if failed == 0 {
				t.Error("no call failed; the test checks nothing")
			}
		})
	}
}

func TestHTMLToText(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      "",
		"plain  text\r\n\r\nhere":               "plain text here",
		`<a href="https://x">Bit</a>coin`:       "Bitcoin",
		"one<br>two<br/>three</p><p>four":       "one two three four",
		"a &amp; b &lt;c&gt; &#39;d&#39;":       "a & b <c> 'd'",
		"1 < 2 and 3 <4":                        "1 < 2 and 3 <4",
		"x <!-- note --> y":                     "x y",
		"dangling <b":                           "dangling <b",
		"<h2>Title</h2>Body&nbsp;text":          "Title Body text",
		"&lt;script&gt;alert(1)&lt;/script&gt;": "<script>alert(1)</script>",
	} {
		if got := htmlToText(in); got != want {
			t.Errorf("htmlToText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewValidation(t *testing.T) {
	if _, err := New(Config{Pro: true}); err == nil {
		t.Error("New with Pro and no APIKey succeeded")
	}
	if _, err := New(Config{BaseURL: "ftp://x"}); err == nil {
		t.Error("New with a non-http BaseURL succeeded")
	}
	c, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Source() != asset.SourceExtProvider || c.Source() != "extprovider" {
		t.Errorf("Source = %q", c.Source())
	}
}

func FuzzParsers(f *testing.F) {
	f.Add(testdata(f, "coin_edge.json"))
	for _, s := range []string{``, `null`, `{}`, `[]`, `{"id":"x","market_data":{"ath_date":{"usd":5}}}`,
		`{"tickers":[{"trust_score":1}]}`, `{"prices":[[1e300,1],[-1,-1],[1,1e400]]}`, `{"prices":[[]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, err := range []error{
			func() error { _, err := parseCoin(body); return err }(),
			func() error { _, _, err := parseTickers(body); return err }(),
			func() error { _, err := parseChart(body); return err }(),
		} {
			if err != nil && !errors.Is(err, market.ErrMalformed) {
				t.Fatalf("unexpected error class: %v", err)
			}
		}
		if pts, err := parseChart(body); err == nil {
			for _, iv := range market.Intervals {
				cs := bucket(pts, iv, -1<<40, 1<<40)
				for i := 1; i < len(cs); i++ {
					if cs[i].Time <= cs[i-1].Time {
						t.Fatalf("%s candles not ascending: %+v", iv, cs)
					}
				}
			}
		}
	})
}
