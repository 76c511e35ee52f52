package extprovider

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

// TestImplausibleValuesNulled: a coin price of 1e308 and a negative
// market cap (served as they came before the bounds) become null and are
// counted.
func TestImplausibleValuesNulled(t *testing.T) {
	body := testdata(t, "coin_edge.json")
	body = providertest.Patch(t, body, "1e308", "market_data", "current_price", "usd")
	body = providertest.Patch(t, body, "-5", "market_data", "market_cap", "usd")
	var nulled providertest.Nulled
	c := newClient(t, providertest.JSON(200, body), func(cfg *Config) { cfg.Implausible = nulled.Report })
	got, err := c.Coin(context.Background(), "example-coin")
	if err != nil {
		t.Fatal(err)
	}
	if got.PriceUSD != nil || got.MarketCapUSD != nil || got.TotalSupply == nil {
		t.Errorf("coin %+v", got)
	}
	if n := nulled.Counts(); n["extprovider/price"] != 1 || n["extprovider/marketCap"] != 1 {
		t.Errorf("counts %v", n)
	}
}
