package httpapi

import (
	"errors"
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
	tokens, omitted := tokenlist.Tokens(entries)
	doc, err := s.d.TokenLists.Export(r.Context(), key, rl.Summary.Name, tokens, omitted)
	if errors.Is(err, tokenlist.ErrEmpty) {
		// The schema needs at least one token: an empty document would be
		// invalid, so say why there is none (docs/lists.md).
		d := apierr.Details{"code": "empty_tokenlist", "members": len(entries)}
		if len(omitted) > 0 {
			d["x-omitted"] = omitted
		}
		return apierr.Newf(apierr.NotFound, "list %q has no member that can be exported as a token list (%d members, %d omitted: see details.x-omitted); "+
			"the token-list schema requires at least one token", slug, len(entries), len(omitted)).WithDetails(d)
	}
	if err != nil {
		return apierr.Wrap(err)
	}
	return writeJSON(w, http.StatusOK, doc)
}
