package httpapi

import (
	"math"
	"net/http"
	"strings"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/risk"
)

// Curated lists whose members are exempt from concentration rules, and
// those whose new members count as trusted launches (docs/risk.md).
var (
	riskExemptLists  = []string{"currencies", "stocks", "lsts"}
	riskTrustedLists = []string{"majors", "lsts", "currencies", "rwas", "stocks"}
)

// riskInput gathers the model's inputs for mint from memory: the cached
// snapshot, the advisory, curated membership and the oldest known pool.
func (s *Server) riskInput(mint string) risk.Input {
	in := risk.Input{Mint: mint, Advisory: s.d.Advisories.Get(mint),
		Exempt:      s.d.Catalog.InCuratedList(mint, riskExemptLists...),
		TrustedList: s.d.Catalog.InCuratedList(mint, riskTrustedLists...)}
	if tok, ok := s.d.Markets.Token(mint); ok {
		m := tok.Market
		in.Market = &m
	}
	if pools, _, ok := s.d.Markets.DEXMarkets(mint); ok {
		oldest := int64(math.MaxInt64)
		for _, p := range pools {
			if p.CreatedAt != nil && *p.CreatedAt > 0 && *p.CreatedAt < oldest {
				oldest = *p.CreatedAt
			}
		}
		if oldest != math.MaxInt64 {
			age := max(0, float64(s.d.Now().Unix()-oldest)/86400)
			in.TokenAgeDays = &age
		}
	}
	return in
}

// GET /v1/assets/risk-summary (mint-scoped): the summary of any mint.
func (s *Server) mintRiskSummary(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	param := "mint"
	raw := strings.TrimSpace(q.Get("mint"))
	if raw == "" {
		param, raw = "address", strings.TrimSpace(q.Get("address"))
	}
	if raw == "" {
		return missingParam("mint", "mint is required (or its alias address)")
	}
	if _, err := s.d.Catalog.ResolveMint(raw); err != nil {
		return apierr.Newf(apierr.BadRequest, "Invalid mint: %q is not a base58 32-byte address", raw).
			WithDetails(apierr.Details{"code": "invalid_mint", "param": param, "mint": raw})
	}
	return writeJSON(w, http.StatusOK, risk.Score(s.riskInput(raw)).Summary)
}

// riskMint resolves the path asset and the risk mint: the mint parameter,
// else the path mint of a mint ref, else the liquidity primary.
func (s *Server) riskMint(r *http.Request) (registry.Resolution, string, error) {
	if r.URL.Query().Get("mint") == "" {
		res, err := s.pathAsset(r)
		if err != nil {
			return res, "", err
		}
		if res.Mint != "" {
			return res, res.Mint, nil
		}
	}
	return s.assetMint(r)
}

// GET /v1/assets/{assetId}/risk-summary and /risk-details
func (s *Server) assetRisk(details bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		res, mint, err := s.riskMint(r)
		if err != nil {
			return err
		}
		in := s.riskInput(mint)
		d := risk.Score(in)
		var lastUpdated *int64
		if in.Market != nil {
			lastUpdated = in.Market.LastFetchedAt
		}
		var body any = d.Summary
		if details {
			body = d
		}
		return writeJSON(w, http.StatusOK, struct {
			AssetID       string `json:"assetId"`
			Mint          string `json:"mint"`
			Risk          any    `json:"risk"`
			LastUpdatedAt *int64 `json:"lastUpdatedAt"`
		}{res.AssetID, mint, body, lastUpdated})
	}
}
