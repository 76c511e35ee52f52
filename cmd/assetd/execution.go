package main

import (
	"flag"
	"fmt"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/provider/jupiter"
	"github.com/assetd/assetd/internal/provider/simrouter"
	"github.com/assetd/assetd/internal/registry"
)

// executionFlags configure the /v2/execution/* family.
type executionFlags struct {
	jupiterURL  string
	jupiterKey  string
	quoteBudget string
}

func (c *cli) addExecutionFlags(fs *flag.FlagSet, f *executionFlags) {
	fs.StringVar(&f.jupiterURL, "jupiter-url", c.env("ASSETD_JUPITER_URL", ""), "base URL of the Jupiter-compatible /order quote API (default: the public API, keyless at 0.5 requests/s) (env ASSETD_JUPITER_URL)")
	fs.StringVar(&f.jupiterKey, "jupiter-key", c.env("ASSETD_JUPITER_KEY", ""), "API key of the Jupiter-compatible quote API (env ASSETD_JUPITER_KEY)")
	fs.StringVar(&f.quoteBudget, "quote-budget", c.env("ASSETD_QUOTE_BUDGET", "600/10m"), "upstream quotes each key may spend on evaluate and route, N/WINDOW (env ASSETD_QUOTE_BUDGET)")
}

// newExecution wires the execution service: the two simulated routers in
// demo mode, else the Jupiter-compatible adapter.
func newExecution(cfg serveConfig, mp *marketPipeline, snap func() *registry.Snapshot, adv *lists.AdvisoryIndex) (*execution.Service, *execution.QuoteBudget, error) {
	var providers []execution.Provider
	if mp.world != nil {
		providers = simrouter.New(mp.world, func(mint string) (int, bool) {
			if _, v, ok := snap().VariantByMint(mint); ok && v.Decimals != nil {
				return *v.Decimals, true
			}
			return 0, false
		})
	} else {
		j, err := jupiter.New(jupiter.Config{BaseURL: cfg.execution.jupiterURL, APIKey: cfg.execution.jupiterKey})
		if err != nil {
			return nil, nil, fmt.Errorf("--jupiter-url: %w", err)
		}
		providers = []execution.Provider{j}
	}
	n, window, err := parseRate(cfg.execution.quoteBudget)
	if err != nil {
		return nil, nil, fmt.Errorf("--quote-budget: %w", err)
	}
	svc := &execution.Service{Registry: snap, Markets: mp.cache, Advisories: adv, Providers: providers}
	return svc, execution.NewQuoteBudget(n, window), nil
}
