package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/contracttest"
)

// TestContractEveryEndpoint is the black-box contract check: a client
// against a running `assetd serve` (the demo world, and real mode fed by
// recorded provider responses) calls every operation of the contract with
// typical parameters, every include block and its combinations, and
// validates each response against api/openapi.yaml. It fails on any
// response that breaks the contract and on any operation no conforming
// success was validated for, so neither a drifting handler nor an
// untested endpoint can hide.
func TestContractEveryEndpoint(t *testing.T) {
	t.Run("demo", func(t *testing.T) {
		dir := t.TempDir()
		key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "contract", "--scopes", allScopes, "--data-dir", dir))
		tok := strings.TrimSpace(mustCLI(t, "sessions", "create", "--user-id", "user_contract", "--email", "contract@example.com", "--data-dir", dir))
		s := startServer(t, "--data-dir", dir, "--demo", "--quote-budget", "100000/10m", "--webhook-allow-private")
		c := newContractClient(t, s, key, tok)
		// The demo world prices every curated asset within seconds: wait
		// for it so the responses carry the data clients will see.
		eventually(t, time.Minute, "curated assets priced", func() bool {
			_, body := c.get("/v1/assets/curated?list=majors")
			rows, _ := body["assets"].([]any)
			for _, r := range rows {
				if st, _ := r.(map[string]any)["stats"].(map[string]any); st == nil || st["price"] == nil {
					return false
				}
			}
			return len(rows) > 0
		})
		c.exercise(demoPlan)
		c.exerciseWebhooks(dir)
		c.verdict()
	})
	t.Run("real", func(t *testing.T) {
		const ref = "../../../shared/data/reference-registry.json"
		if _, err := os.Stat(ref); err != nil {
			t.Skip("../shared/data is absent: skipping real mode")
		}
		up := newRecordedUpstream(t)
		dir := t.TempDir()
		mustCLI(t, "registry", "import", ref, "--data-dir", dir)
		key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "contract", "--scopes", allScopes, "--data-dir", dir))
		tok := strings.TrimSpace(mustCLI(t, "sessions", "create", "--user-id", "user_contract", "--email", "contract@example.com", "--data-dir", dir))
		s := startServer(t, "--data-dir", dir, "--quote-budget", "100000/10m", "--provider-budget", "1000", "--webhook-allow-private",
			"--marketdata-a-key", "recorded", "--marketdata-a-url", up.URL+"/birdeye",
			"--marketdata-b=true", "--marketdata-b-url", up.URL+"/dexscreener",
			"--token-metadata-url", up.URL+"/jupiter", "--token-metadata-key", "recorded",
			"--extprovider", "--extprovider-url", up.URL+"/coingecko", "--extprovider-budget", "1000",
			"--jupiter-url", up.URL+"/jupiter", "--jupiter-key", "recorded")
		c := newContractClient(t, s, key, tok)
		// The recorded answers reach the cache: SOL's overview (Birdeye)
		// and bitcoin's coin document (CoinGecko).
		eventually(t, time.Minute, "recorded provider data served", func() bool {
			_, sol := c.get("/v1/assets/solana/variant-market")
			_, btc := c.get("/v1/assets/bitcoin/profile")
			mk, _ := sol["market"].(map[string]any)
			prof, _ := btc["profile"].(map[string]any)
			return mk != nil && mk["price"] != nil && prof["ok"] == true
		})
		c.exercise(realPlan)
		c.exerciseWebhooks(dir)
		// The one quote the recording holds: 0.1 SOL sold for USDC. (The
		// reference registry gives wSOL no decimals, so today this is a
		// validated 404 "decimals unknown"; the demo walk validates the
		// available branches of evaluate and route.)
		c.get("/v2/execution/evaluate?mint=So11111111111111111111111111111111111111112&side=sell&tokenAmount=0.1")
		c.verdict()
	})
}

var realPlan = plan{
	lists:   []string{"all", "majors", "lsts", "currencies", "rwas", "etfs", "metals", "stocks"},
	queries: []string{"sol", "bitcoin", "usdc", "usd1", "jitosol", "jup", "tesla", "spacex", "gold", "zzzz-no-such-asset"},
	coinIDs: []string{"bitcoin"},
	perList: 6,
}

// newRecordedUpstream serves the vendors' own recorded responses from
// ../shared/data, each for the request it was recorded for (the mint,
// coin or pair of the example) and the vendor's not-found answer for
// everything else: Birdeye (marketdata_a) SOL's token overview, SOL's
// candles and JitoSOL's markets; DexScreener (marketdata_b) the USD1
// pairs; CoinGecko (extprovider) bitcoin's coin, tickers and the coin
// list; Jupiter the token search and the SOL→USDC /order quote.
func newRecordedUpstream(t *testing.T) *httptest.Server {
	t.Helper()
	data := func(name string) map[string]any {
		raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "data", name))
		if err != nil {
			t.Skipf("shared data not present (%v)", err)
		}
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	dig := func(x any, path ...any) any {
		for _, p := range path {
			switch k := p.(type) {
			case string:
				m, _ := x.(map[string]any)
				x = m[k]
			case int:
				a, _ := x.([]any)
				x = nil
				if k < len(a) {
					x = a[k]
				}
			}
		}
		if x == nil {
			t.Fatalf("recorded fixture lacks %v", path)
		}
		return x
	}
	birdeye, gecko, jup, dex := data("fixtures-birdeye-doc-examples.json"), data("fixtures-coingecko-oas-examples.json"),
		data("fixtures-jupiter-doc-examples.json"), data("fixtures-dexscreener-recorded-usd1.json")
	page := func(p string) any { return dig(birdeye, "pages", p, "examples", 0) }
	overview, markets, ohlcv := page("defi/get-defi-token_overview.md"), page("defi/get-defi-v2-markets.md"), page("defi/get-defi-v3-ohlcv.md")
	overviewMint := dig(overview, "data", "address").(string)
	marketsMint := dig(markets, "data", "items", 0, "base", "address").(string)
	ohlcvMint := dig(ohlcv, "data", "items", 0, "address").(string)
	coinEx := func(ep string) any { return dig(gecko, "endpoints", ep, "example") }
	coin, tickers, coinList := coinEx("GET /coins/{id}"), coinEx("GET /coins/{id}/tickers"), coinEx("GET /coins/list")
	coinID := dig(coin, "id").(string)
	var order, search any
	for _, sp := range []string{"openapi-spec/ultra/ultra.yaml", "openapi-spec/tokens/v2/tokens.yaml"} {
		for _, ep := range dig(jup, "specs", sp, "endpoints").([]any) {
			e := ep.(map[string]any)
			switch e["method"].(string) + " " + e["path"].(string) {
			case "GET /order":
				order = dig(e, "examples", 0)
			case "GET /search":
				search = dig(e, "examples", 0)
			}
		}
	}
	if order == nil || search == nil {
		t.Fatal("jupiter fixture lacks the /order or /search example")
	}
	pairs, _ := dig(dex, "sample/dexscreener1.json", "pairs").([]any)
	pairsOf := func(mints []string) []any {
		var out []any
		for _, p := range pairs {
			base, _ := p.(map[string]any)["baseToken"].(map[string]any)
			quote, _ := p.(map[string]any)["quoteToken"].(map[string]any)
			for _, m := range mints {
				if base["address"] == m || quote["address"] == m {
					out = append(out, p)
					break
				}
			}
		}
		return out
	}
	notFound := func(w http.ResponseWriter) {
		http.Error(w, `{"success":false,"message":"not found"}`, http.StatusNotFound)
	}
	write := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		vendor, path, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		path = "/" + path
		switch {
		case vendor == "birdeye" && path == "/defi/token_overview" && q.Get("address") == overviewMint:
			write(w, overview)
		case vendor == "birdeye" && path == "/defi/v2/markets" && q.Get("address") == marketsMint:
			write(w, markets)
		case vendor == "birdeye" && path == "/defi/v3/ohlcv" && q.Get("address") == ohlcvMint:
			write(w, ohlcv)
		case vendor == "dexscreener" && strings.HasPrefix(path, "/tokens/v1/solana/"):
			ps := pairsOf(strings.Split(strings.TrimPrefix(path, "/tokens/v1/solana/"), ","))
			if ps == nil {
				ps = []any{}
			}
			write(w, ps)
		case vendor == "dexscreener" && strings.HasPrefix(path, "/latest/dex/tokens/"):
			write(w, map[string]any{"schemaVersion": "1.0.0", "pairs": pairsOf([]string{strings.TrimPrefix(path, "/latest/dex/tokens/")})})
		case vendor == "coingecko" && path == "/coins/list":
			write(w, coinList)
		case vendor == "coingecko" && path == "/coins/"+coinID:
			write(w, coin)
		case vendor == "coingecko" && path == "/coins/"+coinID+"/tickers" && q.Get("page") == "1":
			write(w, tickers)
		case vendor == "coingecko" && path == "/coins/"+coinID+"/tickers":
			write(w, map[string]any{"name": dig(coin, "name"), "tickers": []any{}})
		case vendor == "jupiter" && path == "/tokens/v2/search":
			var out []any
			for _, tok := range search.([]any) {
				if tok.(map[string]any)["id"] == q.Get("query") {
					out = append(out, tok)
				}
			}
			if out == nil {
				out = []any{}
			}
			write(w, out)
		case vendor == "jupiter" && path == "/order" && q.Get("inputMint") == dig(order, "inputMint") &&
			q.Get("outputMint") == dig(order, "outputMint") && q.Get("amount") == dig(order, "inAmount"):
			write(w, order)
		case vendor == "jupiter" && path == "/order":
			http.Error(w, `{"error":"no route"}`, http.StatusBadRequest)
		default:
			notFound(w)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// allScopes is every scope a key can hold, so no request is refused for
// want of one.
const allScopes = "assets:read,assets:profile:read,assets:risk:read,assets:ohlcv:read,assets:markets:read,trades:write,execution:read"

// plan names what a mode's world holds: the assets to walk, the search
// queries and the mints to add to a list.
type plan struct {
	lists   []string // curated lists whose assets are walked
	queries []string // asset and token searches
	coinIDs []string // news coin ids
	perList int      // assets walked per curated list (0: all)
}

var demoPlan = plan{
	lists:   []string{"all", "majors", "lsts", "currencies", "rwas", "etfs", "metals", "stocks"},
	queries: []string{"sol", "SOL", "bitcoin", "usd", "jup", "bonk", "tesla", "gold", "zzzz-no-such-asset"},
	coinIDs: []string{"bitcoin", "solana"},
}

// contractClient is the black-box client: every response goes through the
// tally (validated, counted, never failing the test on its own).
type contractClient struct {
	t       *testing.T
	s       *server
	tally   *contracttest.Tally
	http    *http.Client
	key     string
	session string
	// includesOK counts the asset detail include blocks answered with
	// data ({ok: true}), per block.
	includesOK map[string]int
}

func newContractClient(t *testing.T, s *server, key, session string) *contractClient {
	tally := contracttest.NewTally()
	return &contractClient{t: t, s: s, tally: tally, http: &http.Client{Transport: tally.Transport(nil)}, key: key, session: session, includesOK: map[string]int{}}
}

func (c *contractClient) do(method, path string, hdr map[string]string, body any) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.s.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, raw
}

func (c *contractClient) keyed(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	st, raw := c.do(method, path, map[string]string{"X-Api-Key": c.key}, body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return st, m
}

// streamHead opens an event stream, records its status and headers with
// the tally (the body of an open stream never ends) and closes it.
func (c *contractClient) streamHead(path string) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", c.s.base+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", c.key)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		c.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		c.t.Errorf("GET %s: %d %s", path, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	_ = c.tally.Record(req, resp.StatusCode, resp.Header, nil)
}

func (c *contractClient) get(path string) (int, map[string]any) {
	c.t.Helper()
	return c.keyed("GET", path, nil)
}

// walked is one asset the plan visits: its id, its primary mint and every
// variant mint.
type walked struct {
	id      string
	primary string
	mints   []string
}

// exercise calls every operation of the contract.
func (c *contractClient) exercise(p plan) {
	t := c.t
	t.Helper()
	// Meta.
	c.do("GET", "/v1/health", nil, nil)
	c.do("GET", "/readyz", nil, nil)
	c.do("GET", "/openapi.json", nil, nil)
	c.do("GET", "/", nil, nil)
	c.do("GET", "/", map[string]string{"Accept": "text/html"}, nil)
	c.do("GET", "/v1/whoami", map[string]string{"Authorization": "Bearer " + c.session}, nil)

	// Collections: curated lists in every shape, and the assets they hold.
	var assets []walked
	seen := map[string]bool{}
	for _, l := range p.lists {
		for _, q := range []string{"", "&groupBy=mint", "&variants=all", "&variantsMode=all", "&primaryVariantStrategy=execution_quality", "&primaryVariantStrategy=stock_redeemability", "&limit=5&offset=2"} {
			c.get("/v1/assets/curated?list=" + l + q)
		}
		_, body := c.get("/v1/assets/curated?list=" + l)
		rows, _ := body["assets"].([]any)
		n := 0
		for _, r := range rows {
			row, _ := r.(map[string]any)
			id, _ := row["assetId"].(string)
			if id == "" || seen[id] || (p.perList > 0 && n >= p.perList) {
				continue
			}
			seen[id] = true
			n++
			w := walked{id: id}
			if pv, _ := row["primaryVariant"].(map[string]any); pv != nil {
				w.primary, _ = pv["mint"].(string)
			}
			assets = append(assets, w)
		}
	}
	for _, q := range p.queries {
		qe := url.QueryEscape(q)
		for _, extra := range []string{"", "&variants=all", "&limit=50", "&category=crypto", "&primaryVariantStrategy=execution_quality"} {
			c.get("/v1/assets/search?q=" + qe + extra)
		}
		c.get("/v1/assets/resolve?ref=" + qe)
		for _, policy := range []string{"strict", "default", "degen"} {
			c.get("/v2/lists/search-tokens?q=" + qe + "&policy=" + policy + "&limit=50")
		}
	}

	// Every asset: detail with each include alone, all of them, and the
	// per-asset routes.
	var allMints []string
	for i := range assets {
		a := &assets[i]
		_, vs := c.get("/v1/assets/" + a.id + "/variants?variantsMode=all")
		for _, v := range anySlice(vs["variants"]) {
			if m, _ := v.(map[string]any)["mint"].(string); m != "" {
				a.mints = append(a.mints, m)
			}
		}
		allMints = append(allMints, a.mints...)
		id := url.PathEscape(a.id)
		c.get("/v1/assets/" + id)
		for _, inc := range []string{"profile", "risk", "ohlcv", "markets", "stablecoinHealth", "profile,risk,ohlcv,markets"} {
			_, det := c.get("/v1/assets/" + id + "?include=" + inc)
			includes, _ := det["includes"].(map[string]any)
			for name, b := range includes {
				if blk, _ := b.(map[string]any); blk["ok"] == true {
					c.includesOK[name]++
				}
			}
		}
		c.get("/v1/assets/" + id + "?include=ohlcv,markets&ohlcvInterval=1D&marketsLimit=50&variantsMode=all&primaryVariantStrategy=execution_quality")
		for _, sort := range []string{"liquidity", "execution_quality", "stock_redeemability"} {
			c.get("/v1/assets/" + id + "/variants?sortBy=" + sort)
		}
		for _, sub := range []string{"variant-market", "markets", "variant-top-markets", "ohlcv", "price-chart", "profile", "tickers", "description", "risk-summary", "risk-details", "changes"} {
			c.get("/v1/assets/" + id + "/" + sub)
		}
		c.get("/v1/assets/" + id + "/ohlcv?interval=1D")
		c.get("/v1/assets/" + id + "/price-chart?interval=15m")
		c.get("/v1/assets/" + id + "/price-chart?interval=1H&fill=previous")
		c.get("/v1/assets/" + id + "/ohlcv?interval=1H&fill=previous")
		c.get("/v1/assets/" + id + "/price-at?ts=" + strconv.FormatInt(time.Now().Unix()-3600, 10))
		c.get("/v1/assets/" + id + "/price-at?ts=1700000000&searchWidth=3600")
		c.get("/v1/assets/" + id + "/markets?limit=50")
		c.get("/v1/assets/" + id + "/variant-top-markets?limit=100&variantsMode=all")
		c.get("/v1/assets/" + id + "/tickers?limit=50&order=volume_desc")
		// Every variant's own blocks (the mint param), a few per asset.
		for j, m := range a.mints {
			if j >= 3 || m == a.primary {
				continue
			}
			me := url.QueryEscape(m)
			c.get("/v1/assets/" + id + "?mint=" + me + "&include=profile,risk,ohlcv,markets")
			for _, sub := range []string{"variant-market", "markets", "ohlcv", "risk-summary", "risk-details", "description"} {
				c.get("/v1/assets/" + id + "/" + sub + "?mint=" + me)
			}
		}
		// Execution.
		c.get("/v2/execution/links?assetId=" + url.QueryEscape(a.id))
		c.get("/v2/execution/route?assetId=" + url.QueryEscape(a.id))
		c.get("/v2/execution/route?assetId=" + url.QueryEscape(a.id) + "&side=sell&amountUsd=250000&maxVariants=3")
		c.get("/v2/execution/route?assetId=" + url.QueryEscape(a.id) + "&allocate=false")
		if a.primary != "" {
			me := url.QueryEscape(a.primary)
			c.get("/v1/assets/risk-summary?mint=" + me)
			c.get("/v2/execution/links?mint=" + me)
			c.get("/v2/execution/evaluate?mint=" + me)
			c.get("/v2/execution/evaluate?mint=" + me + "&side=sell&amountUsd=1000,100000")
		}
	}

	// Batches.
	if len(allMints) > 0 {
		c.keyed("POST", "/v1/assets/market-snapshots", map[string]any{"mints": capped(allMints, 250)})
		c.keyed("POST", "/v1/assets/verdicts", map[string]any{"mints": capped(allMints, 100)})
		c.get("/v1/assets/variant-markets?mints=" + strings.Join(capped(allMints, 50), ","))
		now := time.Now().Unix()
		var queries []map[string]any
		for _, m := range capped(allMints, 100) {
			queries = append(queries, map[string]any{"mint": m, "timestamps": []int64{now - 86400, now - 3600, now - 60, 1700000000}})
		}
		c.keyed("POST", "/v1/assets/price-history", map[string]any{"queries": queries})
	}
	for _, q := range []string{"", "?limit=10", "?category=crypto", "?category=stablecoin", "?offset=5&limit=5"} {
		c.get("/v1/assets/trending" + q)
	}

	// News.
	c.get("/v1/news/feed")
	c.get("/v1/advisories")
	c.get("/v1/advisories?since=0&limit=5")
	c.get("/v1/advisories/current")
	// The event stream: a refusal, and the head of an open stream.
	c.get("/v1/stream?topics=price:not-a-mint")
	c.streamHead("/v1/stream?topics=trending,advisories,depeg")
	if st, rep := c.keyed("POST", "/v1/advisories/reports", map[string]string{"mint": "So11111111111111111111111111111111111111112", "kind": "other", "note": "contract walk"}); st == 201 {
		id, _ := rep["id"].(string)
		c.get("/v1/advisories/reports/" + url.PathEscape(id))
	}
	c.get("/v1/news/feed?source=news&limit=50")
	c.get("/v1/news/feed?source=tweets")
	for _, id := range p.coinIDs {
		c.get("/v1/news/feed?coin_id=" + id + "&symbol=" + id + "&term=" + id + "&tweet_reserve=2")
	}

	// Trade ingest: one trade at the market's own price, visibly synthetic.
	if len(assets) > 0 && assets[0].primary != "" {
		_, snap := c.keyed("POST", "/v1/assets/market-snapshots", map[string]any{"mints": []string{assets[0].primary}})
		price := 1.0
		for _, r := range anySlice(snap["snapshots"]) {
			if mk, _ := r.(map[string]any)["market"].(map[string]any); mk != nil {
				if p, ok := mk["price"].(float64); ok && p > 0 {
					price = p
				}
			}
		}
		trade := map[string]any{
			"signature": "contractTestSyntheticSignature" + strconv.FormatInt(time.Now().UnixNano(), 10),
			"blockTime": time.Now().Unix(), "mint": assets[0].primary, "side": "buy",
			"tokenAmount": 10.0, "usdAmount": 10 * price, "priceUsd": price,
		}
		c.keyed("POST", "/v1/internal/trades", []any{trade})
	}
	// The chain trade source's status (none configured here: state off).
	c.keyed("GET", "/v1/internal/trades/source", nil)

	// Lists: the whole lifecycle of a community list.
	c.get("/v2/lists")
	c.get("/v2/lists?limit=5&offset=0")
	for _, l := range p.lists {
		c.get("/v2/lists/" + l)
		c.get("/v2/lists/" + l + "/tokenlist.json")
	}
	c.keyed("POST", "/v2/lists", map[string]any{"slug": "contract-check", "name": "Contract check", "status": "published"})
	for i, m := range capped(allMints, 5) {
		c.keyed("PUT", "/v2/lists/contract-check/members/"+m, map[string]any{"rank": i + 1, "note": "contract test"})
	}
	c.keyed("POST", "/v2/lists/contract-check/members", map[string]any{"mints": capped(allMints, 40)})
	c.get("/v2/lists/contract-check")
	c.get("/v2/lists/contract-check/tokenlist.json")
	c.get("/v2/lists/tokens?lists=contract-check," + strings.Join(capped(p.lists[1:], 8), ",") + ",no-such-list")
	c.keyed("PATCH", "/v2/lists/contract-check", map[string]any{"name": "Contract check, renamed"})
	if len(allMints) > 0 {
		c.keyed("DELETE", "/v2/lists/contract-check/members/"+allMints[0], nil)
	}
	c.keyed("DELETE", "/v2/lists/contract-check", nil)
}

// verdict fails the test on every broken response and every operation
// without a validated success, and logs the figures.
func (c *contractClient) verdict() {
	t := c.t
	t.Helper()
	fails := c.tally.Failures()
	t.Logf("contract: %d responses validated, %d broke the contract; include blocks with data %v\n%s", c.tally.Checked(), len(fails), c.includesOK, c.tally.Summary())
	// One line per distinct problem (operation and error), with a count.
	type key struct{ op, err string }
	counts := map[key]int{}
	first := map[key]contracttest.Failure{}
	var order []key
	for _, f := range fails {
		k := key{f.Operation, schemaError(f.Err)}
		if counts[k] == 0 {
			order = append(order, k)
			first[k] = f
		}
		counts[k]++
	}
	for _, k := range order {
		t.Errorf("%d× %s: %s\nfirst: %s", counts[k], k.op, k.err, first[k])
	}
	unc, err := c.tally.Uncovered()
	if err != nil {
		t.Fatal(err)
	}
	if len(unc) > 0 {
		t.Errorf("operations of the contract without a validated answer:\n%s", strings.Join(unc, "\n"))
	}
	// Every include block was validated with data, not only its
	// unavailable answer.
	for _, b := range []string{"profile", "risk", "ohlcv", "markets"} {
		if c.includesOK[b] == 0 {
			t.Errorf("include=%s never answered with data (blocks with data: %v)", b, c.includesOK)
		}
	}
}

// schemaError names what broke, without the instance's values and
// indexes, so that the same broken member on many responses is reported
// once: the validator's "- at '/path' [...]: message" lines with array
// indexes replaced by *, or the error's first line.
func schemaError(err error) string {
	var at []string
	seen := map[string]bool{}
	for _, line := range strings.Split(err.Error(), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "- at '") {
			continue
		}
		path, rest, _ := strings.Cut(strings.TrimPrefix(line, "- at '"), "'")
		if _, msg, ok := strings.Cut(rest, "]: "); ok {
			rest = msg
		}
		if rest == "validation failed" {
			continue // a parent of the lines that say what failed
		}
		k := arrayIndex.ReplaceAllString(path, "/*") + ": " + rest
		if !seen[k] {
			seen[k] = true
			at = append(at, k)
		}
	}
	if len(at) == 0 {
		s, _, _ := strings.Cut(err.Error(), "\n")
		return s
	}
	slices.Sort(at)
	return strings.Join(at, "; ")
}

var arrayIndex = regexp.MustCompile(`/[0-9]+`)

func anySlice(x any) []any { s, _ := x.([]any); return s }

func capped[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}
