package marketb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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
	mintUSD1    = "USD1ttGY1N17NEEHLmELoaybftRBUSErhqYiQzvEmuB"
	mintUSDC    = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	mintUSDT    = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"
	mintSOL     = "So11111111111111111111111111111111111111112"
	mintUnknown = "113er4GLruBrK7XoerB2YLe3SkaLc9KbFdGPrkFpump"

	dexFixture = "fixtures-dexscreener-recorded-usd1.json"
)

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newClient(t *testing.T, h http.Handler, mut func(*Config)) *Client {
	t.Helper()
	srv := providertest.Server(t, h)
	cfg := Config{BaseURL: srv.URL, Timeout: 5 * time.Second, Now: func() time.Time { return testNow }}
	if mut != nil {
		mut(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorded returns part of the recorded DexScreener responses, skipping
// when the shared data is absent. "pools" is the /token-pairs/v1 array
// (the /tokens/v1 layout), "raw" the /latest/dex/tokens object.
func recorded(t *testing.T, path ...any) []byte {
	t.Helper()
	doc := providertest.SharedData(t, dexFixture)
	return providertest.JSONPath(t, doc, append([]any{"sample/dexscreener.json"}, path...)...)
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

// genMints returns n distinct well-formed mints.
func genMints(n int) []string {
	const b58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	out := make([]string, n)
	for i := range out {
		out[i] = mintUnknown[:42] + string(b58[i/58%58]) + string(b58[i%58])
	}
	return out
}

func TestSnapshotsRecorded(t *testing.T) {
	// The 30 recorded USD1 pools served as a /tokens/v1 answer for USD1,
	// USDC, USDT (quote-only there) and a mint without pairs.
	pools := recorded(t, "pools")
	var gotPath string
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.EscapedPath()
		_, _ = w.Write(pools)
	}), nil)
	got, err := c.Snapshots(context.Background(), []string{mintUSD1, mintUSDC, mintUSDT, mintUnknown})
	if err != nil {
		t.Fatal(err)
	}
	if want := "/tokens/v1/solana/" + strings.Join([]string{mintUSD1, mintUSDC, mintUSDT, mintUnknown}, ","); gotPath != want {
		t.Errorf("path %s, want %s", gotPath, want)
	}
	ms := testNow.UnixMilli()
	one := 1.0
	want := map[string]market.Token{
		// Reference pair: raydium CLMM USD1/USDC BCDdHonby6..., the most
		// liquid with USD1 as base. Sums over all 30 pairs.
		mintUSD1: {
			Mint: mintUSD1, Symbol: "USD1", Name: "World Liberty Financial USD",
			Market: asset.Market{
				Source: asset.SourceMarketDataB, MetricsSource: asset.SourceMarketDataB,
				Price:                 f(0.9989),
				Liquidity:             f(18080142.02),
				Volume1hUSD:           f(352439.10999999987),
				Volume24hUSD:          f(31487815.889999997),
				Trade1h:               f(1919),
				Trade24h:              f(138682), // 76435 buys + 62247 sells
				MarketCap:             f(157836115),
				PriceChange1hPercent:  f(-0.01),
				PriceChange24hPercent: f(-0.04),
				LastFetchedAt:         &ms,
			},
		},
		// USDC only quotes USD1 in these pools: price derived from the
		// most liquid one (priceUsd / priceNative = 0.9989 / 0.9989).
		mintUSDC: {
			Mint: mintUSDC, Symbol: "USDC", Name: "USD Coin",
			Market: asset.Market{
				Source: asset.SourceMarketDataB, MetricsSource: asset.SourceMarketDataB,
				Price:         &one,
				Liquidity:     f(15225877.76),
				Volume1hUSD:   f(147366.68),
				Volume24hUSD:  f(6015160.34),
				Trade1h:       f(230),
				Trade24h:      f(15865),
				LastFetchedAt: &ms,
			},
		},
		mintUSDT: {
			Mint: mintUSDT, Symbol: "USDT", Name: "USDT",
			Market: asset.Market{
				Source: asset.SourceMarketDataB, MetricsSource: asset.SourceMarketDataB,
				Price:         &one,
				Liquidity:     f(168819.62),
				Volume1hUSD:   f(19718.55),
				Volume24hUSD:  f(1541951.96),
				Trade1h:       f(79),
				Trade24h:      f(5437),
				LastFetchedAt: &ms,
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Snapshots (-want +got):\n%s", diff)
	}
}

func TestSnapshotsTokensBatchLayout(t *testing.T) {
	// The recorded /tokens/v1 answer itself: one pair.
	body := recorded(t, "tokensBatch")
	c := newClient(t, providertest.JSON(200, body), nil)
	got, err := c.Snapshots(context.Background(), []string{mintUSD1})
	if err != nil {
		t.Fatal(err)
	}
	tok, ok := got[mintUSD1]
	if !ok {
		t.Fatal("USD1 missing")
	}
	if *tok.Market.Price != 0.9989 || *tok.Market.Liquidity != 15059888.24 || *tok.Market.Volume24hUSD != 5083026.67 ||
		*tok.Market.Trade24h != 9705 || *tok.Market.MarketCap != 157836115 {
		t.Errorf("USD1 %+v", tok.Market)
	}
}

func TestSnapshotsSnippet(t *testing.T) {
	// Works without the shared data: three trimmed pairs.
	c := newClient(t, providertest.JSON(200, testdata(t, "latest_dex_tokens_usd1.json")), nil)
	got, err := c.Snapshots(context.Background(), []string{mintUSD1, "CTbpTDUQAbsdKmxvxAsh5UArmdKTqbxwUy47Z5onLa9h"})
	if err != nil {
		t.Fatal(err)
	}
	usd1 := got[mintUSD1].Market
	// liquidity: 15059888.24 + 1022912.45 (+ no liquidity on the third)
	if *usd1.Price != 0.9989 || *usd1.Liquidity != 15059888.24+1022912.45 || *usd1.Trade24h != 4678+5027+17473+15623+1564+1259 {
		t.Errorf("USD1 %+v", usd1)
	}
	gen := got["CTbpTDUQAbsdKmxvxAsh5UArmdKTqbxwUy47Z5onLa9h"]
	wantLogo := "https://cdn.dexscreener.com/cms/images/fedd038d91d2ac25bf9e66fe9ceb7bdb0fcbbc502dd87424f4490f0b59b59c49?width=64&height=64&quality=90"
	if gen.Symbol != "Generals" || gen.LogoURI != wantLogo || gen.Market.LogoURI == nil || *gen.Market.LogoURI != wantLogo ||
		gen.Market.Liquidity != nil || *gen.Market.Price != 0.000004505 || *gen.Market.MarketCap != 4505.12 {
		t.Errorf("Generals %+v / %+v", gen, gen.Market)
	}
}

func TestSnapshotsBatching(t *testing.T) {
	// 65 mints: three calls (30, 30, 5), each answered with one pair for
	// the first mint of the call; mints without pairs are absent.
	mints := genMints(65)
	var mu sync.Mutex
	var sizes []int
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		list := strings.TrimPrefix(r.URL.EscapedPath(), "/tokens/v1/solana/")
		ms := strings.Split(list, ",")
		mu.Lock()
		sizes = append(sizes, len(ms))
		mu.Unlock()
		fmt.Fprintf(w, `[{"chainId":"solana","dexId":"raydium","pairAddress":"P%s","baseToken":{"address":%q,"symbol":"X"},"quoteToken":{"address":%q},"priceUsd":"2","liquidity":{"usd":10}}]`,
			ms[0][:20], ms[0], mintUSDC)
	}), func(cfg *Config) { cfg.Concurrency = 1 })
	got, err := c.Snapshots(context.Background(), mints)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{30, 30, 5}, sizes); diff != "" {
		t.Errorf("call sizes (-want +got):\n%s", diff)
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if diff := cmp.Diff([]string{mints[0], mints[30], mints[60]}, keys); diff != "" {
		t.Errorf("found (-want +got):\n%s", diff)
	}
	if c.MaxBatch() != 30 || c.Source() != asset.SourceMarketDataB {
		t.Errorf("MaxBatch %d Source %s", c.MaxBatch(), c.Source())
	}
}

func TestSnapshotsPartialFailureAndUnknown(t *testing.T) {
	mints := genMints(40)
	mints[0] = mintUSD1
	body := testdata(t, "latest_dex_tokens_usd1.json")
	var n atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, mintUSD1) {
			_, _ = w.Write(body)
			return
		}
		n.Add(1)
		http.Error(w, "bad gateway", http.StatusBadGateway) // the second call fails
	}), nil)
	got, err := c.Snapshots(context.Background(), append(mints, "not a mint", ""))
	if err != nil {
		t.Fatalf("one failing call out of two: %v", err)
	}
	if _, ok := got[mintUSD1]; !ok || len(got) != 1 {
		t.Errorf("got %d tokens, want only USD1", len(got))
	}
	if n.Load() != 1 {
		t.Errorf("%d failing calls, want 1", n.Load())
	}

	// Unknown mints: [] and {"pairs":null} and 404 are all "no pairs".
	for name, h := range map[string]http.Handler{
		"empty array": providertest.JSON(200, []byte(`[]`)),
		"null pairs":  providertest.JSON(200, []byte(`{"schemaVersion":"1.0.0","pairs":null}`)),
		"404":         http.NotFoundHandler(),
	} {
		c := newClient(t, h, nil)
		got, err := c.Snapshots(context.Background(), []string{mintUnknown})
		if err != nil || len(got) != 0 {
			t.Errorf("%s: %v %v", name, got, err)
		}
	}
}

func TestSnapshotsOtherChainsIgnored(t *testing.T) {
	body := fmt.Sprintf(`[
		{"chainId":"bsc","dexId":"pancakeswap","pairAddress":"0xabc","baseToken":{"address":%[1]q,"symbol":"USD1"},"quoteToken":{"address":"0xdef"},"priceUsd":"5","liquidity":{"usd":1e9}},
		{"chainId":"solana","dexId":"orca","pairAddress":"S1","baseToken":{"address":%[1]q,"symbol":"USD1"},"quoteToken":{"address":%[2]q},"priceUsd":"1.001","liquidity":{"usd":100}}
	]`, mintUSD1, mintUSDC)
	c := newClient(t, providertest.JSON(200, []byte(body)), nil)
	got, err := c.Snapshots(context.Background(), []string{mintUSD1})
	if err != nil {
		t.Fatal(err)
	}
	if m := got[mintUSD1].Market; *m.Price != 1.001 || *m.Liquidity != 100 {
		t.Errorf("USD1 %+v (bsc pair not ignored?)", m)
	}
}

func TestMarketsRecorded(t *testing.T) {
	raw := recorded(t, "raw")
	var gotPath string
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.EscapedPath()
		_, _ = w.Write(raw)
	}), nil)
	ms, err := c.Markets(context.Background(), mintUSD1, 30)
	if err != nil {
		t.Fatal(err)
	}
	if gotPath != "/latest/dex/tokens/"+mintUSD1 {
		t.Errorf("path %s", gotPath)
	}
	if len(ms) != 30 {
		t.Fatalf("%d markets, want 30", len(ms))
	}
	wantFirst := market.DEXMarket{
		Address:      "BCDdHonby65iduz3Ev3c9v5XjNkzyu5e56KRFHpBM4T9",
		Venue:        "raydium",
		BaseMint:     mintUSD1,
		BaseSymbol:   "USD1",
		QuoteMint:    mintUSDC,
		QuoteSymbol:  "USDC",
		PriceUSD:     f(0.9989),
		LiquidityUSD: f(15059888.24),
		Volume24hUSD: f(5083026.67),
		Trade24h:     f(9705),
		URL:          "https://dexscreener.com/solana/bcddhonby65iduz3ev3c9v5xjnkzyu5e56krfhpbm4t9",
		CreatedAt:    i64(1756577941), // "pairCreatedAt": 1756577941000
	}
	if diff := cmp.Diff(wantFirst, ms[0]); diff != "" {
		t.Errorf("first market (-want +got):\n%s", diff)
	}
	var top []string
	for _, m := range ms[:5] {
		top = append(top, m.Address[:5])
	}
	if diff := cmp.Diff([]string{"BCDdH", "6sEkZ", "5NwVQ", "5mkCC", "79Zkj"}, top); diff != "" {
		t.Errorf("top 5 by liquidity (-want +got):\n%s", diff)
	}
	// The 5 launchlab pairs without liquidity come last, by 24h volume.
	for _, m := range ms[25:] {
		if m.LiquidityUSD != nil {
			t.Errorf("%s has liquidity but sorts after unknown ones", m.Address)
		}
	}
	if ms[25].Address != "BhXM3pVx4NNNSn4KqqkpdBzpbApHbrFrfexaRcGXs1FE" {
		t.Errorf("first pair without liquidity %s, want the one with the most volume", ms[25].Address)
	}

	// limit
	ms, err = c.Markets(context.Background(), mintUSD1, 3)
	if err != nil || len(ms) != 3 {
		t.Errorf("limit 3: %d %v", len(ms), err)
	}
	ms, err = c.Markets(context.Background(), mintUSD1, 0)
	if err != nil || len(ms) != DefaultMarketsLimit {
		t.Errorf("default limit: %d %v", len(ms), err)
	}
}

func TestMarketsSnippetCreatedAt(t *testing.T) {
	// Works without the shared data: pairCreatedAt (unix ms) of the three
	// trimmed pairs, as unix seconds.
	c := newClient(t, providertest.JSON(200, testdata(t, "latest_dex_tokens_usd1.json")), nil)
	ms, err := c.Markets(context.Background(), mintUSD1, 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, m := range ms {
		if m.CreatedAt == nil {
			t.Fatalf("%s: CreatedAt nil", m.Address)
		}
		got[m.Address] = *m.CreatedAt
	}
	want := map[string]int64{
		"BCDdHonby65iduz3Ev3c9v5XjNkzyu5e56KRFHpBM4T9": 1756577941, // 1756577941000
		"6sEkZ73vph5AFYmQTzaV6H5vAQQLZ2C8WqeCQ6MhLqFk": 1758148287, // 1758148287000
		"BhXM3pVx4NNNSn4KqqkpdBzpbApHbrFrfexaRcGXs1FE": 1762364230, // 1762364230000
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CreatedAt by pair (-want +got):\n%s", diff)
	}
}

func TestPairCreatedAt(t *testing.T) {
	// Synthetic pairs: pairCreatedAt is optional and read leniently.
	tests := []struct {
		name string
		json string // the pairCreatedAt member, or "" for none
		want *int64
	}{
		{"unix ms", `"pairCreatedAt":1609459200999`, i64(1609459200)},
		{"numeric string", `"pairCreatedAt":"1609459200000"`, i64(1609459200)},
		{"absent", ``, nil},
		{"null", `"pairCreatedAt":null`, nil},
		{"zero", `"pairCreatedAt":0`, nil},
		{"negative", `"pairCreatedAt":-5000`, nil},
		{"under a second", `"pairCreatedAt":999`, nil},
		{"not a number", `"pairCreatedAt":"soon"`, nil},
		{"ISO string", `"pairCreatedAt":"2021-01-01T00:00:00Z"`, nil},
		{"huge", `"pairCreatedAt":1e300`, nil},
		{"object", `"pairCreatedAt":{"ms":1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			member := ""
			if tt.json != "" {
				member = "," + tt.json
			}
			body := `[{"chainId":"solana","dexId":"raydium","pairAddress":"P1","baseToken":{"address":"` + mintUSD1 +
				`"},"quoteToken":{"address":"` + mintUSDC + `"},"priceUsd":"1"` + member + `}]`
			ps, err := parsePairs([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != 1 {
				t.Fatalf("%d pairs, want 1", len(ps))
			}
			if diff := cmp.Diff(tt.want, ps[0].dexMarket().CreatedAt); diff != "" {
				t.Errorf("CreatedAt (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMarketsSearchLayoutFiltersChain(t *testing.T) {
	// The recorded search answer mixes chains; only solana pairs trading
	// USD1 stay.
	body := recorded(t, "search")
	c := newClient(t, providertest.JSON(200, body), nil)
	ms, err := c.Markets(context.Background(), mintUSD1, 50)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []struct {
		ChainID     string    `json:"chainId"`
		PairAddress string    `json:"pairAddress"`
		BaseToken   pairToken `json:"baseToken"`
		QuoteToken  pairToken `json:"quoteToken"`
	}
	var doc struct {
		Pairs json.RawMessage `json:"pairs"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.Pairs, &pairs); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, p := range pairs {
		if p.ChainID == "solana" && (p.BaseToken.Address == mintUSD1 || p.QuoteToken.Address == mintUSD1) {
			want++
		}
	}
	if want == 0 || len(ms) != want {
		t.Errorf("%d markets, want %d", len(ms), want)
	}
}

func TestMarketsUnknown(t *testing.T) {
	for name, h := range map[string]http.Handler{
		"null pairs": providertest.JSON(200, []byte(`{"schemaVersion":"1.0.0","pairs":null}`)),
		"no pairs":   providertest.JSON(200, []byte(`{"schemaVersion":"1.0.0","pairs":[]}`)),
		"404":        http.NotFoundHandler(),
	} {
		c := newClient(t, h, nil)
		ms, err := c.Markets(context.Background(), mintUnknown, 10)
		if err != nil || len(ms) != 0 {
			t.Errorf("%s: %v %v", name, ms, err)
		}
	}
	c := newClient(t, http.NotFoundHandler(), nil)
	if ms, err := c.Markets(context.Background(), "bad/mint", 10); err != nil || ms != nil {
		t.Errorf("malformed mint: %v %v", ms, err)
	}
}

type call struct {
	name string
	run  func(ctx context.Context, c *Client) error
}

var calls = []call{
	{"Snapshots", func(ctx context.Context, c *Client) error { _, err := c.Snapshots(ctx, []string{mintUSD1}); return err }},
	{"Markets", func(ctx context.Context, c *Client) error { _, err := c.Markets(ctx, mintUSD1, 10); return err }},
}

func TestErrors(t *testing.T) {
	retryAt := testNow.Add(45 * time.Second).Format(http.TimeFormat)
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		check  func(t *testing.T, err error)
	}{
		{"429 seconds", 429, map[string]string{"Retry-After": "60"}, "", providertest.WantRateLimited(time.Minute)},
		{"429 http date", 429, map[string]string{"Retry-After": retryAt}, "", providertest.WantRateLimited(45 * time.Second)},
		{"429 garbage Retry-After", 429, map[string]string{"Retry-After": "later"}, "", providertest.WantRateLimited(0)},
		{"500", 500, nil, "Internal Server Error", providertest.WantIs(market.ErrUpstream)},
		{"502", 502, nil, "", providertest.WantIs(market.ErrUpstream)},
		{"403", 403, nil, "cloudflare", providertest.WantIs(market.ErrUpstream)},
		{"malformed JSON", 200, nil, `{"schemaVersion":"1.0.0","pairs":[{"chainId":`, providertest.WantIs(market.ErrMalformed)},
		{"html", 200, nil, `<!DOCTYPE html>`, providertest.WantIs(market.ErrMalformed)},
		{"object without pairs", 200, nil, `{"schemaVersion":"1.0.0"}`, providertest.WantIs(market.ErrMalformed)},
		{"pairs not an array", 200, nil, `{"pairs":{"a":1}}`, providertest.WantIs(market.ErrMalformed)},
		{"priceUsd not a number", 200, nil, `[{"chainId":"solana","pairAddress":"p","baseToken":{"address":"` + mintUSD1 + `"},"priceUsd":"n/a"}]`, providertest.WantIs(market.ErrMalformed)},
		{"liquidity wrong type", 200, nil, `[{"chainId":"solana","pairAddress":"p","baseToken":{"address":"` + mintUSD1 + `"},"liquidity":5}]`, providertest.WantIs(market.ErrMalformed)},
		{"oversized", 200, nil, `[` + strings.Repeat(`{},`, 600) + `{}]`, providertest.WantIs(market.ErrMalformed)},
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

func TestRateLimitStopsChunks(t *testing.T) {
	mints := genMints(90)
	var n atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusTooManyRequests)
	}), func(cfg *Config) { cfg.Concurrency = 1 })
	_, err := c.Snapshots(context.Background(), mints)
	var rl *market.RateLimitedError
	if !errors.As(err, &rl) || rl.RetryAfter != 5*time.Second {
		t.Fatalf("err = %v", err)
	}
	if n.Load() != 1 {
		t.Errorf("%d calls, want 1", n.Load())
	}
}

func TestNewValidation(t *testing.T) {
	for _, cfg := range []Config{{BaseURL: "::"}, {ChainID: "sol/ana"}, {Concurrency: -2}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	c, err := New(Config{})
	if err != nil || c.chain != "solana" {
		t.Errorf("defaults: %v %v", c, err)
	}
}

func FuzzParsePairs(f *testing.F) {
	snippet := testdata(f, "latest_dex_tokens_usd1.json")
	f.Add(snippet)
	// Warm encoding/json's per-type caches so that coverage does not
	// differ between a worker's first and later runs (which makes the
	// fuzzer chase unreproducible "new" inputs).
	if ps, err := parsePairs(snippet); err == nil {
		_, _ = summarize(mintUSD1, ps, 1)
	}
	// Seeds from the recorded responses: a few pairs of each layout (large
	// seeds make the fuzzer's minimisation crawl).
	if b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "data", dexFixture)); err == nil {
		var doc map[string]map[string]json.RawMessage
		if json.Unmarshal(b, &doc) == nil {
			rec := doc["sample/dexscreener.json"]
			var raw struct {
				Pairs []json.RawMessage `json:"pairs"`
			}
			var batch []json.RawMessage
			if json.Unmarshal(rec["raw"], &raw) == nil && len(raw.Pairs) >= 14 {
				seed, _ := json.Marshal(map[string]any{"schemaVersion": "1.0.0", "pairs": raw.Pairs[11:14]})
				f.Add(seed)
			}
			if json.Unmarshal(rec["tokensBatch"], &batch) == nil {
				f.Add([]byte(rec["tokensBatch"]))
			}
		}
	}
	for _, s := range []string{``, `null`, `[]`, `{}`, `{"pairs":null}`, `[null]`, `[{"pairAddress":"p","baseToken":{"address":"a"},"txns":{"h24":null}}]`, `{"pairs":[{"priceUsd":"1e999"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ps, err := parsePairs(body)
		if err != nil {
			if !errors.Is(err, market.ErrMalformed) {
				t.Fatalf("error not ErrMalformed: %v", err)
			}
			return
		}
		for _, p := range ps {
			_ = p.dexMarket()
			for _, m := range []string{p.BaseToken.Address, p.QuoteToken.Address, mintUSD1} {
				if tok, ok := summarize(m, ps, 1); ok && tok.Market.Source != asset.SourceMarketDataB {
					t.Fatal("source not set")
				}
			}
		}
	})
}
