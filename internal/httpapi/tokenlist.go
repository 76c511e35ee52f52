package httpapi

import (
	"context"
	"errors"
	"net/http"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/tokenlist"
)

// GET /v2/lists/{slug}/tokenlist.json: a readable list (curated or
// community, same visibility as GET /v2/lists/{slug}) in the tokenlists.org
// format, its version kept by tokenlist.Exporter. The export is encoded
// once per version of the list read (listDeps, which also decide its
// semver): only a request after the list moved reads and compares the
// previous export in the store.
func (s *Server) listTokenList(w http.ResponseWriter, r *http.Request) error {
	slug := r.PathValue("slug")
	e, err := s.listEntryFor(slug)
	if err != nil {
		return listErr(err)
	}
	if e != nil {
		e.mu.Lock()
		x := e.export
		e.mu.Unlock()
		if x == nil {
			// Built from the list read of the entry's versions (not a
			// later one): the export kept is the export of those deps.
			rl, err := s.d.ListReader.Read(slug)
			if err != nil {
				return listErr(err)
			}
			doc, err := s.exportList(r.Context(), slug, rl)
			if err != nil {
				return err
			}
			b, _, err := encodeJSON(doc)
			if err != nil {
				return err
			}
			x = newEncoded(b)
			e.mu.Lock()
			if e.export == nil {
				e.export = x
			}
			e.mu.Unlock()
		}
		return writeBody(w, http.StatusOK, x.plain, x)
	}
	rl, err := s.d.ListReader.Read(slug)
	if err != nil {
		return listErr(err)
	}
	doc, err := s.exportList(r.Context(), slug, rl)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, doc)
}

// exportList is the token-list document of rl, its version bumped and
// persisted when its tokens differ from the last export.
func (s *Server) exportList(ctx context.Context, slug string, rl *lists.Resolved) (tokenlist.List, error) {
	key := tokenlist.CuratedKey(slug)
	if !rl.Summary.Curated {
		v, ok := s.d.ListViews.Get(slug)
		if !ok {
			return tokenlist.List{}, apierr.New(apierr.NotFound, "list not found")
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
	doc, err := s.d.TokenLists.Export(ctx, key, rl.Summary.Name, tokens, omitted)
	if errors.Is(err, tokenlist.ErrEmpty) {
		// The schema needs at least one token: an empty document would be
		// invalid, so say why there is none (docs/lists.md).
		d := apierr.Details{"code": "empty_tokenlist", "members": len(entries)}
		if len(omitted) > 0 {
			d["x-omitted"] = omitted
		}
		return tokenlist.List{}, apierr.Newf(apierr.NotFound, "list %q has no member that can be exported as a token list (%d members, %d omitted: see details.x-omitted); "+
			"the token-list schema requires at least one token", slug, len(entries), len(omitted)).WithDetails(d)
	}
	if err != nil {
		return tokenlist.List{}, apierr.Wrap(err)
	}
	return doc, nil
}
