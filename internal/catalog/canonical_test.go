package catalog

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// mapCanonical is a CanonicalReader over maps of synthetic values.
type mapCanonical struct {
	coins  map[string]market.Coin
	quotes map[string]market.StockQuote
	marks  map[string]market.PreIPOMark
	at     time.Time // fetch time of everything
}

func (m mapCanonical) Coin(id string) (market.Coin, time.Time, bool) {
	c, ok := m.coins[id]
	return c, m.at, ok
}
func (m mapCanonical) StockQuote(t string) (market.StockQuote, time.Time, bool) {
	q, ok := m.quotes[strings.ToUpper(t)]
	return q, m.at, ok
}
func (m mapCanonical) PreIPOMark(s string) (market.PreIPOMark, time.Time, bool) {
	k, ok := m.marks[strings.ToUpper(s)]
	return k, m.at, ok
}

func detailOf(t *testing.T, c *Catalog, ref string) *Detail {
	t.Helper()
	res, err := c.Resolve(ref)
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Detail(res, DetailOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Asset
}

func TestCanonicalArms(t *testing.T) {
	c, mr := newSeedCatalog(t, "canonical")
	spacex, _ := c.Snapshot().Asset("spacex")
	if spacex == nil || spacex.PreIPO == nil {
		t.Fatal("seed has no pre-IPO spacex asset")
	}
	preMint := spacex.PreIPO.Mint
	mr.mu.Lock()
	mr.markets[preMint] = &asset.Market{Price: fp(250), Liquidity: fp(2e6), Volume24hUSD: fp(1e5)}
	mr.mu.Unlock()

	cr := mapCanonical{
		at:     testNow.Add(-time.Minute),
		coins:  map[string]market.Coin{"bitcoin": {ID: "bitcoin", PriceUSD: fp(90_000), MarketCapUSD: fp(1.8e12), Volume24hUSD: fp(3e10), PriceChange24hPercent: fp(1.5), LastUpdated: testNow.Add(-2 * time.Minute)}},
		quotes: map[string]market.StockQuote{"TSLA": {Ticker: "TSLA", PriceUSD: fp(400), Volume24hUSD: fp(3e10), PriceChange24hPercent: fp(-2.5), AsOf: testNow.Add(-time.Hour)}},
		marks:  map[string]market.PreIPOMark{"SPACEX": {Symbol: "SPACEX", MarkPriceUSD: fp(200), MarkValuationUSD: fp(400e9)}},
	}
	c.SetCanonical(cr)

	// analytics_stock: price, 24h volume and 24h change come from the quote.
	tesla := detailOf(t, c, "tesla")
	sm, ok := tesla.CanonicalMarket.(*StockMarket)
	if !ok {
		t.Fatalf("tesla canonicalMarket = %T; want *StockMarket", tesla.CanonicalMarket)
	}
	if sm.Source != asset.SourceAnalyticsStock || sm.Symbol != "TSLA" || *sm.Price != 400 || *sm.AsOf != testNow.Add(-time.Hour).Unix() {
		t.Errorf("stock arm: %+v", sm)
	}
	if *tesla.Stats.Price != 400 || *tesla.Stats.Volume24hUSD != 3e10 || *tesla.Stats.PriceChange24hPercent != -2.5 {
		t.Errorf("tesla stats not from the stock quote: %+v", tesla.Stats)
	}
	// Search and curated rows carry the same canonical stats.
	found := false
	for _, row := range c.Search(SearchOptions{Query: "tesla", Limit: 5, Strategy: asset.StrategyLiquidity}) {
		if row.AssetID == "tesla" {
			found = true
			if row.Stats == nil || *row.Stats.Price != 400 {
				t.Errorf("tesla search row stats %+v; want the stock price", row.Stats)
			}
		}
	}
	if !found {
		t.Error("search for tesla did not return the tesla asset")
	}

	// preipo: implied valuation = 400e9 × 250 / 200 = 500e9, premium +25 %.
	sx := detailOf(t, c, "spacex")
	pm, ok := sx.CanonicalMarket.(*PreIPOMarket)
	if !ok {
		t.Fatalf("spacex canonicalMarket = %T; want *PreIPOMarket", sx.CanonicalMarket)
	}
	if pm.Mint != preMint || *pm.MarketCap != 500e9 || *pm.ImpliedValuationUSD != 500e9 || math.Abs(*pm.PremiumToMarkPercent-25) > 1e-9 ||
		pm.AsOf != cr.at.Unix() || pm.ProviderLastUpdatedAt != cr.at.Unix() || pm.LastFetchedAt != cr.at.UnixMilli() {
		t.Errorf("preipo arm: %+v", pm)
	}
	if *sx.Stats.MarketCap != 500e9 {
		t.Errorf("spacex stats marketCap %v; want the implied valuation", *sx.Stats.MarketCap)
	}
	var block *PreIPOBlock
	for _, v := range sx.VariantGroups.TokenizedEquity {
		if v.Mint == preMint {
			block = v.PreIPO
		}
	}
	if block == nil || math.Abs(*block.PremiumToMarkPercent-25) > 1e-9 || block.Symbol != "SPACEX" {
		t.Errorf("variant preIpo block: %+v", block)
	}
	b, _ := json.Marshal(sx)
	if !strings.Contains(string(b), `"preIpo":{"symbol":"SPACEX"`) || !strings.Contains(string(b), `"source":"preipo"`) {
		t.Errorf("encoded spacex lacks the preIpo block or arm: %.400s", b)
	}

	// extprovider: market cap from the provider, price stays on-chain.
	btc := detailOf(t, c, "bitcoin")
	em, ok := btc.CanonicalMarket.(*ExtProviderMarket)
	if !ok {
		t.Fatalf("bitcoin canonicalMarket = %T; want *ExtProviderMarket", btc.CanonicalMarket)
	}
	if em.CoinID != "bitcoin" || *em.Price != 90_000 || *em.ProviderLastUpdatedAt != testNow.Add(-2*time.Minute).Unix() {
		t.Errorf("extprovider arm: %+v", em)
	}
	if *btc.Stats.MarketCap != 1.8e12 || (btc.Stats.Price != nil && *btc.Stats.Price == 90_000) {
		t.Errorf("bitcoin stats: marketCap %v price %v; want provider cap and on-chain price", *btc.Stats.MarketCap, *btc.Stats.Price)
	}

	// No canonical data: null arm.
	if d := detailOf(t, c, "usd"); d.CanonicalMarket != nil {
		t.Errorf("usd canonicalMarket = %+v; want null", d.CanonicalMarket)
	}
}

func TestStalePreIPOMarkIsOmitted(t *testing.T) {
	c, mr := newSeedCatalog(t, "canonical")
	spacex, _ := c.Snapshot().Asset("spacex")
	mr.mu.Lock()
	mr.markets[spacex.PreIPO.Mint] = &asset.Market{Price: fp(250), Liquidity: fp(2e6)}
	mr.mu.Unlock()
	mark := map[string]market.PreIPOMark{"SPACEX": {Symbol: "SPACEX", MarkPriceUSD: fp(200), MarkValuationUSD: fp(400e9)}}
	for _, tt := range []struct {
		age  time.Duration
		want bool
	}{{PreIPOMaxAge - time.Second, true}, {PreIPOMaxAge + time.Second, false}} {
		c.SetCanonical(mapCanonical{marks: mark, at: testNow.Add(-tt.age)})
		d := detailOf(t, c, "spacex")
		_, got := d.CanonicalMarket.(*PreIPOMarket)
		if got != tt.want {
			t.Errorf("mark fetched %v ago: preipo arm present=%v; want %v", tt.age, got, tt.want)
		}
		for _, v := range d.VariantGroups.TokenizedEquity {
			if (v.PreIPO != nil) && !tt.want {
				t.Errorf("stale mark still gives %s a preIpo block", v.Mint)
			}
		}
	}
}

func TestPreIPOMarkDatedByFeed(t *testing.T) {
	c, mr := newSeedCatalog(t, "canonical")
	spacex, _ := c.Snapshot().Asset("spacex")
	mr.mu.Lock()
	mr.markets[spacex.PreIPO.Mint] = &asset.Market{Price: fp(250), Liquidity: fp(2e6)}
	mr.mu.Unlock()
	for _, tt := range []struct {
		updated time.Duration
		want    bool
	}{{time.Hour, true}, {PreIPOMaxAge + time.Hour, false}} {
		mark := map[string]market.PreIPOMark{"SPACEX": {Symbol: "SPACEX", MarkPriceUSD: fp(200), UpdatedAt: testNow.Add(-tt.updated)}}
		c.SetCanonical(mapCanonical{marks: mark, at: testNow}) // fetched just now
		if _, got := detailOf(t, c, "spacex").CanonicalMarket.(*PreIPOMarket); got != tt.want {
			t.Errorf("mark dated %v ago, fetched now: arm present=%v; want %v", tt.updated, got, tt.want)
		}
	}
}
