package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/chart"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/risk"
)

// DefaultIncludeDeadline bounds the include blocks of one asset detail
// call (Deps.IncludeDeadline); a block still running then answers
// {ok:false, reason:"timeout"}.
const DefaultIncludeDeadline = 250 * time.Millisecond

// includeScopes is the fine-grained scope of each include block.
var includeScopes = map[string]string{
	"profile": apikey.ScopeProfileRead,
	"risk":    apikey.ScopeRiskRead,
	"ohlcv":   apikey.ScopeOHLCVRead,
	"markets": apikey.ScopeMarketsRead,
	// The depeg guard's judgement is market data anyone reading assets sees.
	"stablecoinHealth": apikey.ScopeAssetsRead,
}

// includeParams are what the include blocks of one call depend on.
type includeParams struct {
	res                         registry.Resolution
	mint                        string // the include mint: mint param, path mint or primary
	explicitMint                bool   // the mint parameter was given
	interval                    market.Interval
	from, to                    int64
	marketsOffset, marketsLimit int
}

// computeIncludes computes the requested blocks concurrently under
// Deps.IncludeDeadline. A block never fails the call: a key without the block's
// scope (and without assets:read) gets reason "forbidden", a panic or a
// missed deadline its own reason.
func (s *Server) computeIncludes(r *http.Request, names []string, p includeParams) map[string]includeBlock {
	out := s.runIncludes(r, names, p)
	for name, b := range out {
		outcome := "ok"
		if !b.OK {
			outcome = b.Reason
		}
		s.d.Metrics.Includes.WithLabelValues(name, outcome).Inc()
	}
	return out
}

func (s *Server) runIncludes(r *http.Request, names []string, p includeParams) map[string]includeBlock {
	out := make(map[string]includeBlock, len(names))
	k := KeyFrom(r.Context())
	type result struct {
		name string
		b    includeBlock
	}
	ch := make(chan result, len(names))
	running := 0
	for _, name := range names {
		if k != nil && !k.HasScope(apikey.ScopeAssetsRead) && !k.HasScope(includeScopes[name]) {
			out[name] = includeBlock{Reason: reasonForbidden,
				Message: fmt.Sprintf("the API key lacks the %s or %s scope", apikey.ScopeAssetsRead, includeScopes[name])}
			continue
		}
		running++
		go func() {
			defer func() {
				if v := recover(); v != nil {
					s.d.Log.ErrorContext(r.Context(), "include block panicked", "block", name, "request_id", requestID(r.Context()), "panic", v)
					ch <- result{name, includeBlock{Reason: reasonError, Message: "the " + name + " block failed"}}
				}
			}()
			ch <- result{name, s.includeBlock(name, p)}
		}()
	}
	if running == 0 {
		return out
	}
	t := time.NewTimer(s.d.IncludeDeadline)
	defer t.Stop()
	for running > 0 {
		select {
		case res := <-ch:
			out[res.name] = res.b
			running--
		case <-t.C:
			for _, name := range names {
				if _, done := out[name]; !done {
					out[name] = includeBlock{Reason: reasonTimeout, Message: "the " + name + " block missed the include deadline"}
				}
			}
			return out
		}
	}
	return out
}

// includeBlock computes one block from memory; every decision is a domain
// call (chart source, risk inputs, markets page).
func (s *Server) includeBlock(name string, p includeParams) includeBlock {
	switch name {
	case "profile":
		return s.profileBlock(s.registryAsset(p.res))
	case "risk":
		return includeBlock{OK: true, Data: struct {
			Mint string `json:"mint"`
			risk.Details
		}{p.mint, s.risk().Assess(p.mint)}}
	case "ohlcv":
		return includeBlock{OK: true, Data: struct {
			Interval market.Interval `json:"interval"`
			From     int64           `json:"from"`
			To       int64           `json:"to"`
			chart.Chart
		}{p.interval, p.from, p.to, s.charts().Detail(s.registryAsset(p.res), p.mint, p.explicitMint, p.interval, p.from, p.to)}}
	case "markets":
		return includeBlock{OK: true, Data: s.marketsPage(p.mint, p.marketsOffset, p.marketsLimit)}
	case "stablecoinHealth":
		return s.stablecoinHealthBlock(s.registryAsset(p.res))
	}
	return includeBlock{Reason: reasonError, Message: "unknown block " + name}
}
