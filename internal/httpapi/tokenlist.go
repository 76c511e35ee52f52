package httpapi

import (
	"net/http"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/tokenlist"
)

// GET /v2/lists/{slug}/tokenlist.json: a readable list (curated or
// community, same visibility as GET /v2/lists/{slug}) in the tokenlists.org
// format, its version kept by tokenlist.Exporter.
func (s *Server) listTokenList(w http.ResponseWriter, r *http.Request) error {
	slug := r.PathValue("slug")
	rl, err := s.d.ListReader.Read(slug)
	if err != nil {
		return listErr(err)
	}
	key := tokenlist.CuratedKey(slug)
	if !rl.Summary.Curated {
		v, ok := s.d.ListViews.Get(slug)
		if !ok {
			return apierr.New(apierr.NotFound, "list not found")
		}
		key = tokenlist.CommunityKey(v.List.ID)
	}
	entries := make([]tokenlist.Entry, len(rl.Tokens))
	for i, t := range rl.Tokens {
		entries[i] = tokenlist.Entry{Mint: t.Mint, Symbol: t.Symbol, Name: t.Name, Decimals: t.Decimals, LogoURI: t.LogoURI, Verified: t.Verified}
		if t.Advisory != nil {
			entries[i].Advisory = string(t.Advisory.Status)
		}
	}
	doc, err := s.d.TokenLists.Export(r.Context(), key, rl.Summary.Name, tokenlist.Tokens(entries))
	if err != nil {
		return apierr.Wrap(err)
	}
	return writeJSON(w, http.StatusOK, doc)
}
