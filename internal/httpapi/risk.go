package httpapi

import (
	"net/http"
	"strings"

	"github.com/assetd/assetd/internal/apierr"
)

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
	return writeJSON(w, http.StatusOK, s.risk().Assess(raw).Summary)
}

// GET /v1/assets/{assetId}/risk-summary and /risk-details: the risk of the
// mint parameter, else of the primary variant (the spec's default, for a
// mint path too, as the other per-asset endpoints).
func (s *Server) assetRisk(details bool) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		res, mint, err := s.assetMint(r)
		if err != nil {
			return err
		}
		d := s.risk().Assess(mint)
		var body any = d.Summary
		if details {
			body = d
		}
		return writeJSON(w, http.StatusOK, struct {
			AssetID       string `json:"assetId"`
			Mint          string `json:"mint"`
			Risk          any    `json:"risk"`
			LastUpdatedAt *int64 `json:"lastUpdatedAt"`
		}{res.AssetID, mint, body, d.Inputs.MarketAsOf})
	}
}
