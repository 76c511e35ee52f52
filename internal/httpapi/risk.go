package httpapi

import (
	"net/http"
	"strings"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/registry"
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
