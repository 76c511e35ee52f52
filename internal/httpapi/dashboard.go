package httpapi

import (
	"context"
	"net/http"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/dashboard"
	"github.com/assetd/assetd/internal/lists"
)

// dashboard serves /dashboard/ (its own sessions, CSRF and errors).
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	s.dash.ServeHTTP(w, r)
	return nil
}

// SearchTokens implements dashboard.Tokens: the curator search of
// GET /v2/lists/search-tokens (its warnings and suppressed set) when it is
// configured, else the catalog search (one candidate per matching asset,
// advisory-blocked mints suppressed).
func (s *Server) SearchTokens(ctx context.Context, query string, limit int) ([]dashboard.Candidate, error) {
	if s.d.Curator != nil {
		res := s.d.Curator.Search(ctx, curator.Request{Query: query, Policy: curator.DefaultPolicy, Limit: min(limit, curator.MaxLimit)})
		out := make([]dashboard.Candidate, 0, len(res.Results)+len(res.Suppressed))
		for _, r := range res.Results {
			c := dashboard.Candidate{Mint: r.Mint, Symbol: deref(r.Claims.Symbol), Name: deref(r.Claims.Name), Warnings: r.Warnings, Verified: r.Verified}
			if r.Advisory != nil {
				c.Advisory = r.Advisory.Status
			}
			out = append(out, c)
		}
		for _, r := range res.Suppressed {
			out = append(out, dashboard.Candidate{Mint: r.Mint, Symbol: deref(r.Symbol), Name: deref(r.Name), Warnings: r.Warnings,
				Suppressed: true, SuppressedBy: r.SuppressedBy})
		}
		return out, nil
	}
	rows := s.d.Catalog.Search(catalog.SearchOptions{Query: query, Limit: limit})
	out := make([]dashboard.Candidate, 0, len(rows))
	for _, row := range rows {
		v := row.PrimaryVariant
		if v == nil || v.Mint == "" {
			continue
		}
		c := dashboard.Candidate{Mint: v.Mint, Symbol: v.Symbol, Name: v.Name, AssetID: row.AssetID}
		if c.Symbol == "" {
			c.Symbol = row.Symbol
		}
		if c.Name == "" {
			c.Name = row.Name
		}
		if a := s.d.Advisories.Get(v.Mint); a != nil {
			c.Advisory = a.Status
			c.Suppressed = a.Status == asset.AdvisoryBlocked
		}
		out = append(out, c)
	}
	return out, nil
}

// ResolveMints implements dashboard.Tokens with the member resolution of
// the v2 list writes.
func (s *Server) ResolveMints(ctx context.Context, mints []string) map[string]lists.Snapshot {
	return s.resolveMints(ctx, mints, s.d.ListsConfig.LookupsPerBatch)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
