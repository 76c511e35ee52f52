package httpapi

import (
	"context"
	"net/http"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/dashboard"
	"github.com/assetd/assetd/internal/lists"
)

// dashboard serves /dashboard/ (its own sessions, CSRF and errors).
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	s.dash.ServeHTTP(w, r)
	return nil
}

// SearchTokens implements dashboard.Tokens over the catalog search: one
// candidate per matching asset (its primary variant), advisory-blocked
// mints marked suppressed.
func (s *Server) SearchTokens(_ context.Context, query string, limit int) ([]dashboard.Candidate, error) {
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
