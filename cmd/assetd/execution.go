package main

import (
	"flag"
	"fmt"
	"github.com/assetd/assetd/internal/decimals"

	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/provider/jupiter"
	"github.com/assetd/assetd/internal/provider/simrouter"
	"github.com/assetd/assetd/internal/provider/titan"
	"github.com/assetd/assetd/internal/registry"
)

// executionFlags configure the /v2/execution/* family.
type executionFlags struct {
	jupiterURL  string
	jupiterKey  string
	titanURL    string
	titanToken  string
	quoteBudget string
}

func addExecutionFlags(fs *flag.FlagSet, f *executionFlags) {
	fs.StringVar(&f.jupiterURL, "jupiter-url", "", "base URL of the Jupiter-compatible /order quote API (default: the public API, keyless at 0.5 requests/s)")
	fs.StringVar(&f.jupiterKey, "jupiter-key", "", "API key of the Jupiter-compatible quote API")
	fs.StringVar(&f.titanURL, "titan-url", "", "base URL of a Titan-compatible quote API; with --titan-token, adds the titan quote provider")
	fs.StringVar(&f.titanToken, "titan-token", "", "bearer token of the Titan-compatible quote API")
	fs.StringVar(&f.quoteBudget, "quote-budget", "600/10m", "upstream quotes each key may spend on evaluate and route, N/WINDOW")
}

// newExecution wires the execution service: the two simulated routers in
// demo mode, else the Jupiter-compatible adapter and, when configured, the
// Titan-compatible one (in that order, which is also the tie-break).
func newExecution(cfg serveConfig, mp *marketPipeline, snap func() *registry.Snapshot, adv *lists.AdvisoryIndex, dec *decimals.Resolver) (*execution.Service, *execution.QuoteBudget, error) {
	var providers []execution.Provider
	if mp.world != nil {
		providers = simrouter.New(mp.world, dec.Decimals)
	} else {
		j, err := jupiter.New(jupiter.Config{BaseURL: cfg.execution.jupiterURL, APIKey: cfg.execution.jupiterKey})
		if err != nil {
			return nil, nil, fmt.Errorf("--jupiter-url: %w", err)
		}
		providers = []execution.Provider{j}
		if cfg.execution.titanURL != "" || cfg.execution.titanToken != "" {
			t, err := titan.New(titan.Config{BaseURL: cfg.execution.titanURL, Token: cfg.execution.titanToken})
			if err != nil {
				return nil, nil, fmt.Errorf("--titan-url/--titan-token: %w", err)
			}
			providers = append(providers, t)
		}
	}
	n, window, err := parseRate(cfg.execution.quoteBudget)
	if err != nil {
		return nil, nil, fmt.Errorf("--quote-budget: %w", err)
	}
	svc := &execution.Service{Registry: snap, Markets: mp.cache, Advisories: adv, Providers: providers, Decimals: dec.Decimals}
	return svc, execution.NewQuoteBudget(n, window), nil
}
