package marketb

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

// TestImplausibleValuesNulled: a pair's negative liquidity and a price of
// 1e308 (served as they came before the bounds) become null and are
// counted, in snapshots and in the pool list.
func TestImplausibleValuesNulled(t *testing.T) {
	body := testdata(t, "latest_dex_tokens_usd1.json")
	body = providertest.Patch(t, body, `"1e308"`, "pairs", 0, "priceUsd")
	body = providertest.Patch(t, body, "-15059888.24", "pairs", 0, "liquidity", "usd")
	var nulled providertest.Nulled
	c := newClient(t, providertest.JSON(200, body), func(cfg *Config) { cfg.Implausible = nulled.Report })
	got, err := c.Snapshots(context.Background(), []string{mintUSD1})
	if err != nil {
		t.Fatal(err)
	}
	m := got[mintUSD1].Market
	if m.Price != nil && *m.Price > 1e9 || m.Liquidity != nil && *m.Liquidity < 0 {
		t.Errorf("implausible snapshot values served: price %v liquidity %v", m.Price, m.Liquidity)
	}
	ms, err := c.Markets(context.Background(), mintUSD1, 30)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ms {
		if p.PriceUSD != nil && *p.PriceUSD > 1e9 || p.LiquidityUSD != nil && *p.LiquidityUSD < 0 {
			t.Errorf("implausible pool served: %+v", p)
		}
	}
	if n := nulled.Counts(); n["marketb/priceUsd"] != 1 || n["marketb/liquidityUsd"] != 1 {
		t.Errorf("counts %v", n)
	}
}
