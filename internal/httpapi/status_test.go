package httpapi

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// statusMarkets overrides the market cache's token of some mints.
type statusMarkets struct {
	MarketData
	tokens map[string]market.Token
}

func (s statusMarkets) Token(mint string) (market.Token, bool) {
	if t, ok := s.tokens[mint]; ok {
		return t, true
	}
	return s.MarketData.Token(mint)
}

// Every row of market-snapshots and variant-markets says why: a priced, an
// unknown, a never-priced, a stale, a thin and a blocked mint give one row
// each with its status, and a null market never comes with ok.
func TestMarketRowStatus(t *testing.T) {
	h, cache, snap := marketHarness(t)
	now := h.now
	var listed []string
	for _, a := range snap.Assets() {
		for _, v := range a.Variants {
			if v.Mint != mkUSDC && v.Mint != mkSOL {
				listed = append(listed, v.Mint)
			}
		}
	}
	neverPriced, stale, thin := listed[0], listed[1], listed[2]
	unknown := syntheticMints(40)[39]
	price, liq := 2.0, 10.0
	old := now.Add(-asset.StaleAfter - time.Minute).UnixMilli()
	fresh := now.UnixMilli()
	h.srv.d.Markets = statusMarkets{MarketData: cache, tokens: map[string]market.Token{
		neverPriced: {Mint: neverPriced, Market: asset.Market{LastFetchedAt: &fresh}},
		stale:       {Mint: stale, Market: asset.Market{Price: &price, LastFetchedAt: &old}},
		thin:        {Mint: thin, Market: asset.Market{Price: &price, Liquidity: &liq, LastFetchedAt: &fresh}},
	}}
	h.srv.d.Advisories = advMap{mkSOL: {Status: asset.AdvisoryBlocked, Reason: "synthetic test advisory", Since: 1_790_000_000}}
	mints := []string{mkUSDC, unknown, neverPriced, stale, thin, mkSOL}
	want := []string{"ok", "unknown_mint", "no_market", "stale", "below_liquidity_floor", "advisory_blocked"}

	var rows []snapshotRow
	r := h.postJSON(t, "/v1/assets/market-snapshots", fmt.Sprintf(`{"mints":["%s"]}`, strings.Join(mints, `","`)))
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	decodeStrict(t, r, &rows)
	if len(rows) != len(mints) {
		t.Fatalf("%d rows for %d mints: %s", len(rows), len(mints), r.raw)
	}
	for i, row := range rows {
		if row.Address != mints[i] || row.Status != want[i] {
			t.Errorf("market-snapshots row %d (%s): status %q, want %q", i, row.Address, row.Status, want[i])
		}
		if row.Market == nil && row.Status == "ok" {
			t.Errorf("row %d: null market with ok", i)
		}
	}

	var vm struct {
		Variants []variantMarketRow `json:"variants"`
	}
	r = h.get(t, "/v1/assets/variant-markets?mints="+strings.Join(mints, ","))
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	decodeStrict(t, r, &vm)
	if len(vm.Variants) != len(mints) {
		t.Fatalf("%d variant rows: %s", len(vm.Variants), r.raw)
	}
	for i, row := range vm.Variants {
		if row.Mint != mints[i] || row.Status != want[i] {
			t.Errorf("variant-markets row %d (%s): status %q, want %q", i, row.Mint, row.Status, want[i])
		}
		if row.Market == nil && row.Status == "ok" {
			t.Errorf("variant row %d: null market with ok", i)
		}
	}
}
