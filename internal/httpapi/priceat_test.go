package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

type priceAtResp struct {
	AssetID  string   `json:"assetId"`
	Mint     string   `json:"mint"`
	TS       int64    `json:"ts"`
	Price    *float64 `json:"price"`
	At       *int64   `json:"at"`
	Interval *string  `json:"interval"`
	Source   *string  `json:"source"`
	Status   string   `json:"status"`
}

// price-at and price-history over the harness's trades (one a 5 minutes
// from now-60m, at 5.0, 5.1, ... 6.1).
func TestPriceAtEndpoints(t *testing.T) {
	h, _, crypto := analyticsHarness(t)
	mint := crypto.Variants[0].Mint
	now := h.now.Unix()
	third := now - 3600 + 3*300 // the trade at 5.3
	for _, tc := range []struct {
		query  string
		status string
		price  float64
	}{
		{fmt.Sprintf("ts=%d", third+10), "ok", 5.3},
		{fmt.Sprintf("ts=%d&mint=%s", third+10, mint), "ok", 5.3},
		{fmt.Sprintf("ts=%d", third+200), "ok", 5.3}, // the 5m bar holding it (the 1m bar is over 60 s before)
		{fmt.Sprintf("ts=%d", now-2*86400), "no_data", 0},
		{fmt.Sprintf("ts=%d&searchWidth=60", now+3*86400), "out_of_range", 0},
	} {
		r := h.get(t, "/v1/assets/"+crypto.AssetID+"/price-at?"+tc.query)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", tc.query, r.status, r.raw)
		}
		var out priceAtResp
		decodeStrict(t, r, &out)
		if out.Status != tc.status || out.AssetID != crypto.AssetID || out.Mint != mint {
			t.Errorf("%s: %s", tc.query, r.raw)
		}
		if tc.status == "ok" && (out.Price == nil || *out.Price != tc.price || *out.Source != "analytics_trades") {
			t.Errorf("%s: %s, want price %v", tc.query, r.raw, tc.price)
		}
		if tc.status != "ok" && (out.Price != nil || out.At != nil || out.Interval != nil || out.Source != nil) {
			t.Errorf("%s: %s, want nulls", tc.query, r.raw)
		}
	}
	for q, code := range map[string]string{"": "missing_param", "ts=x": "invalid_param", "ts=1&searchWidth=0": "invalid_param", "ts=1&searchWidth=9999999": "invalid_param"} {
		if r := h.get(t, "/v1/assets/"+crypto.AssetID+"/price-at?"+q); r.status != 400 || errCode(r) != code {
			t.Errorf("%q: %d %s, want 400 %s", q, r.status, r.raw, code)
		}
	}

	// The batch: request order, one row per (mint, ts); a mint the
	// registry does not list and nothing stored is unknown_mint.
	unknown := syntheticMints(30)[29]
	body := fmt.Sprintf(`{"queries":[{"mint":%q,"timestamps":[%d,%d]},{"mint":%q,"timestamps":[%d]},{"mint":%q,"timestamps":[%d]}]}`,
		mint, third+10, now-2*86400, unknown, third, mint, third+10)
	r := h.postJSON(t, "/v1/assets/price-history", body)
	if r.status != 200 {
		t.Fatalf("price-history: %d %s", r.status, r.raw)
	}
	var out struct {
		Prices []priceAtResp `json:"prices"`
	}
	decodeStrict(t, r, &out)
	want := []string{"ok", "no_data", "unknown_mint", "ok"}
	if len(out.Prices) != len(want) {
		t.Fatalf("price-history: %s", r.raw)
	}
	for i, p := range out.Prices {
		if p.Status != want[i] {
			t.Errorf("row %d: %+v, want %s", i, p, want[i])
		}
	}
	if out.Prices[2].Mint != unknown || out.Prices[0].TS != third+10 || *out.Prices[3].Price != 5.3 {
		t.Errorf("rows out of order: %s", r.raw)
	}

	// 100 mints x 100 timestamps in one call; one more of either is a 400.
	batch := func(mints, stamps int) string {
		ts := make([]int64, stamps)
		for i := range ts {
			ts[i] = now - 3600 + int64(i*36)
		}
		tsj, _ := json.Marshal(ts)
		qs := make([]string, mints)
		for i := range qs {
			qs[i] = fmt.Sprintf(`{"mint":%q,"timestamps":%s}`, mint, tsj)
		}
		return `{"queries":[` + strings.Join(qs, ",") + `]}`
	}
	r = h.postJSON(t, "/v1/assets/price-history", batch(100, 100))
	out.Prices = nil
	decodeStrict(t, r, &out)
	if r.status != 200 || len(out.Prices) != 10_000 {
		t.Fatalf("100x100: %d, %d rows", r.status, len(out.Prices))
	}
	for _, tc := range []struct {
		body, code string
	}{{batch(101, 1), "batch_too_large"}, {batch(1, 101), "batch_too_large"}, {`{"queries":[{"mint":"nope","timestamps":[1]}]}`, "invalid_mint"}, {`{}`, "missing_param"}} {
		if r := h.postJSON(t, "/v1/assets/price-history", tc.body); r.status != 400 || errCode(r) != tc.code {
			t.Errorf("%.60s: %d %s, want 400 %s", tc.body, r.status, r.raw, tc.code)
		}
	}
}
