package lists

import (
	"context"
	"log/slog"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Catalog is the part of the asset catalog the reader consults: the
// registry snapshot, the curated lists' effective membership and the
// catalog search (*catalog.Catalog).
type Catalog interface {
	Snapshot() *registry.Snapshot
	CuratedMembers(list string) ([]registry.CuratedMember, bool)
	Search(o catalog.SearchOptions) []catalog.Row
}

// Curator is the curator search (*curator.Service).
type Curator interface {
	Search(ctx context.Context, req curator.Request) curator.Response
}

// AdvisoryLookup answers the advisory of a mint from memory (nil: none).
type AdvisoryLookup interface {
	Get(mint string) *asset.Advisory
}

// Identities answers token identities the market cache already holds.
type Identities interface {
	TokenIdentity(mint string) (symbol, name string, ok bool)
}

// DefaultLookupTimeout bounds live provider lookups of member writes.
const DefaultLookupTimeout = 2 * time.Second

// DefaultLookupsPerBatch bounds live provider lookups of one bulk add.
const DefaultLookupsPerBatch = 50

// Reader is the read model of every list surface, from memory: curated
// lists (the catalog's effective membership), readable community lists
// (Views), composition, visible counts, member resolution and the
// dashboard's token search. Mints an advisory hides from lists
// (asset.HiddenFromLists) are left out everywhere, ranks stay dense.
// cmd/assetd builds one and hands it to the HTTP API and the dashboard.
type Reader struct {
	Catalog Catalog
	Views   *Views
	// Advisories annotates mints (nil: none flagged).
	Advisories AdvisoryLookup
	// Tokens is the token index (nil func or nil index: empty); member
	// resolution consults it after the registry.
	Tokens func() *tokenindex.Index
	// Identities are the market cache's token identities (nil: none).
	Identities Identities
	// Metadata is the live token metadata provider (nil: registry, token
	// index and identities only).
	Metadata market.MetadataProvider
	// Curator answers the dashboard's token search (nil: the catalog
	// search).
	Curator Curator
	// LookupsPerBatch bounds the live provider lookups of one bulk add
	// (default DefaultLookupsPerBatch); LookupTimeout bounds their wait
	// (default DefaultLookupTimeout).
	LookupsPerBatch int
	LookupTimeout   time.Duration
	Log             *slog.Logger
	// Decimals resolves the decimals of a member its row lacks
	// (internal/decimals: chain facts, token index, market cache); nil
	// leaves them missing.
	Decimals func(mint string) (int, bool)
}

// withDecimals fills a token's missing decimals from the resolver.
func (r *Reader) withDecimals(t *Token) {
	if t.Decimals != nil || r.Decimals == nil {
		return
	}
	if d, ok := r.Decimals(t.Mint); ok {
		t.Decimals = &d
	}
}

// CuratedOwner names the owner of curated lists.
const CuratedOwner = "assetd"

// Summary is the spec's List summary.
type Summary struct {
	Slug        string  `json:"slug"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Curated     bool    `json:"curated"`
	Owner       Owner   `json:"owner"`
	TokenCount  int     `json:"tokenCount"`
	UpdatedAt   *int64  `json:"updatedAt"`
	// Status is the community list's status (omitted for curated lists).
	Status string `json:"status,omitempty"`
}

// Owner is a list's owner: the operator's name or a project.
type Owner struct {
	Name      string `json:"name,omitempty"`
	ProjectID string `json:"projectId,omitempty"`
}

// Token is the spec's V2ListToken; Lists is set by compose, Note and
// AddedAt by list detail.
type Token struct {
	Mint     string          `json:"mint"`
	Symbol   *string         `json:"symbol"`
	Name     *string         `json:"name"`
	Decimals *int            `json:"decimals"`
	LogoURI  *string         `json:"logoURI"`
	Verified bool            `json:"verified"`
	Rank     int             `json:"rank"`
	Advisory *asset.Advisory `json:"advisory"`
	Note     *string         `json:"note,omitempty"`
	AddedAt  *int64          `json:"addedAt,omitempty"`
	Lists    []string        `json:"lists,omitempty"`
}

// Resolved is a readable list, curated or community, with its visible
// tokens in rank order (hidden mints omitted, ranks dense).
type Resolved struct {
	Summary Summary
	Tokens  []Token
}

func ms(v int64) *int64 { return &v }

// advisory is the advisory of mint (nil: none or no lookup).
func (r *Reader) advisory(mint string) *asset.Advisory {
	if r.Advisories == nil {
		return nil
	}
	return r.Advisories.Get(mint)
}

// Curated builds a curated list's summary and tokens: the registry's list
// text and the catalog's effective membership (the same mints as v1
// curated?list=<slug>&groupBy=mint, LST floor included).
func (r *Reader) Curated(slug string) (*Resolved, bool) {
	snap := r.Catalog.Snapshot()
	l, ok := snap.CuratedList(slug)
	if !ok {
		return nil, false
	}
	members, ok := r.Catalog.CuratedMembers(slug)
	if !ok {
		return nil, false
	}
	desc := l.Description
	rl := &Resolved{Summary: Summary{Slug: l.ID, Name: l.Name, Description: &desc, Curated: true, Owner: Owner{Name: CuratedOwner}}}
	var updated int64
	for _, m := range members {
		adv := r.advisory(m.Mint)
		if asset.HiddenFromLists(adv) {
			continue
		}
		_, v, known := snap.VariantByMint(m.Mint)
		t := Token{Mint: m.Mint, Verified: known, Rank: len(rl.Tokens) + 1, Advisory: adv}
		if known {
			t.Symbol, t.Name, t.Decimals, t.LogoURI = nonEmpty(v.Symbol), nonEmpty(v.Name), v.Decimals, nonEmpty(v.LogoURI)
		}
		r.withDecimals(&t)
		if m.AddedAt > 0 {
			t.AddedAt = ms(m.AddedAt)
			updated = max(updated, m.AddedAt)
		}
		rl.Tokens = append(rl.Tokens, t)
	}
	rl.Summary.TokenCount = len(rl.Tokens)
	if updated > 0 {
		rl.Summary.UpdatedAt = ms(updated)
	}
	return rl, true
}

// IsCurated reports whether slug names a curated list.
func (r *Reader) IsCurated(slug string) bool {
	_, ok := r.Catalog.Snapshot().CuratedList(slug)
	return ok
}

// CommunitySummary is the summary of a community list with visible
// tokens.
func CommunitySummary(l List, visible int) Summary {
	return Summary{Slug: l.Slug, Name: l.Name, Curated: false, Owner: Owner{ProjectID: l.Owner}, TokenCount: visible,
		UpdatedAt: ms(l.UpdatedAt), Status: l.Status}
}

// Community returns a readable community list with its visible tokens,
// from the in-memory views. Errors: storage.ErrNotFound.
func (r *Reader) Community(slug string) (*Resolved, error) {
	v, ok := r.Views.Get(slug)
	if !ok {
		return nil, storage.ErrNotFound
	}
	rl := &Resolved{Tokens: make([]Token, 0, len(v.Members))}
	for _, m := range v.Members {
		adv := r.advisory(m.Mint)
		if asset.HiddenFromLists(adv) {
			continue
		}
		t := MemberToken(m, adv)
		t.Rank = len(rl.Tokens) + 1
		r.withDecimals(&t)
		rl.Tokens = append(rl.Tokens, t)
	}
	rl.Summary = CommunitySummary(v.List, len(rl.Tokens))
	return rl, nil
}

// Read resolves any readable slug. Errors: storage.ErrNotFound.
func (r *Reader) Read(slug string) (*Resolved, error) {
	if rl, ok := r.Curated(slug); ok {
		return rl, nil
	}
	if !ValidSlug(slug) {
		return nil, storage.ErrNotFound
	}
	return r.Community(slug)
}

// VisibleCount is a list's member count without hidden mints.
func (r *Reader) VisibleCount(l List) int {
	v, ok := r.Views.Get(l.Slug)
	if !ok {
		return l.MemberCount
	}
	n := 0
	for _, m := range v.Members {
		if !asset.HiddenFromLists(r.advisory(m.Mint)) {
			n++
		}
	}
	return n
}

// MemberToken is a community member's token (rank as stored).
func MemberToken(m Member, adv *asset.Advisory) Token {
	t := Token{Mint: m.Mint, Symbol: m.Snapshot.Symbol, Name: m.Snapshot.Name, Decimals: m.Snapshot.Decimals, LogoURI: m.Snapshot.LogoURI,
		Verified: m.Snapshot.Verified, Rank: m.Rank, Advisory: adv, AddedAt: ms(m.AddedAt)}
	if m.Note != "" {
		note := m.Note
		t.Note = &note
	}
	return t
}

// Member is mint's token in a member write's answer: the stored member
// with the mint's advisory.
func (r *Reader) Member(m Member) Token { return MemberToken(m, r.advisory(m.Mint)) }

// MaxComposeLists is how many slugs one compose call may name.
const MaxComposeLists = 10

// Composition is the spec's compose answer.
type Composition struct {
	Lists    []Summary `json:"lists"`
	NotFound []string  `json:"notFound"`
	Total    int       `json:"total"`
	Tokens   []Token   `json:"tokens"`
}

// Compose is the union of the readable lists among slugs (at most
// MaxComposeLists, distinct), in request order deduplicated by mint, paged
// by offset and limit; each token names the requested lists holding it.
func (r *Reader) Compose(slugs []string, offset, limit int) Composition {
	summaries := []Summary{}
	notFound := []string{}
	// The union is built from the members themselves; Token rows are made
	// only for the page.
	type entry struct {
		curated *Token
		member  *Member
		adv     *asset.Advisory
		mask    uint16 // which requested lists hold the mint
	}
	var union []entry
	var index map[string]int
	found := make([]string, 0, len(slugs))
	add := func(mint string, e entry, bit uint16) {
		if i, ok := index[mint]; ok {
			union[i].mask |= bit
			return
		}
		e.mask = bit
		index[mint] = len(union)
		union = append(union, e)
	}
	for _, sl := range slugs {
		bit := uint16(1) << len(found)
		if rl, ok := r.Curated(sl); ok {
			found = append(found, sl)
			summaries = append(summaries, rl.Summary)
			if index == nil {
				index = make(map[string]int, len(rl.Tokens))
			}
			for i := range rl.Tokens {
				add(rl.Tokens[i].Mint, entry{curated: &rl.Tokens[i], adv: rl.Tokens[i].Advisory}, bit)
			}
			continue
		}
		v, ok := r.Views.Get(sl)
		if !ok || !ValidSlug(sl) {
			notFound = append(notFound, sl)
			continue
		}
		found = append(found, sl)
		if index == nil {
			index = make(map[string]int, len(v.Members)*len(slugs))
		}
		visible := 0
		for i := range v.Members {
			m := &v.Members[i]
			adv := r.advisory(m.Mint)
			if asset.HiddenFromLists(adv) {
				continue
			}
			visible++
			add(m.Mint, entry{member: m, adv: adv}, bit)
		}
		summaries = append(summaries, CommunitySummary(v.List, visible))
	}
	page := union[min(offset, len(union)):min(offset+limit, len(union))]
	tokens := make([]Token, len(page))
	for i, e := range page {
		var t Token
		if e.curated != nil {
			t = *e.curated
		} else {
			t = MemberToken(*e.member, e.adv)
		}
		t.Note, t.AddedAt = nil, nil
		t.Rank = offset + i + 1
		for j, sl := range found {
			if e.mask&(1<<j) != 0 {
				t.Lists = append(t.Lists, sl)
			}
		}
		tokens[i] = t
	}
	return Composition{summaries, notFound, len(union), tokens}
}

// Resolve resolves mints in the spec's order: the registry (verified), the
// token index, token identities the market cache already holds, then live
// provider lookups, at most maxLookups of them, waiting at most
// LookupTimeout. Unknown mints are absent from the result; every snapshot
// is cleaned (internal/metadata).
func (r *Reader) Resolve(ctx context.Context, mints []string, maxLookups int) map[string]Snapshot {
	out := make(map[string]Snapshot, len(mints))
	lookup := r.Unresolved(mints, out)
	if len(lookup) > maxLookups {
		lookup = lookup[:maxLookups]
	}
	if len(lookup) > 0 && r.Metadata != nil {
		timeout := r.LookupTimeout
		if timeout <= 0 {
			timeout = DefaultLookupTimeout
		}
		lctx, cancel := context.WithTimeout(ctx, timeout)
		res, err := r.Metadata.Lookup(lctx, lookup)
		cancel()
		if err != nil && r.Log != nil {
			r.Log.WarnContext(ctx, "token metadata lookup failed", "mints", len(lookup), "err", err)
		}
		for m, meta := range res {
			out[m] = Snapshot{Symbol: nonEmpty(meta.Symbol), Name: nonEmpty(meta.Name), Decimals: meta.Decimals, LogoURI: nonEmpty(meta.LogoURI)}.Clean()
		}
	}
	return out
}

// ResolveMints is Resolve with the bulk add's lookup bound
// (LookupsPerBatch): the dashboard's member resolution.
func (r *Reader) ResolveMints(ctx context.Context, mints []string) map[string]Snapshot {
	n := r.LookupsPerBatch
	if n <= 0 {
		n = DefaultLookupsPerBatch
	}
	return r.Resolve(ctx, mints, n)
}

// Unresolved fills out with the mints memory resolves (registry, token
// index, cached identities) and returns the others in order.
func (r *Reader) Unresolved(mints []string, out map[string]Snapshot) []string {
	var rest []string
	snap := r.Catalog.Snapshot()
	var idx *tokenindex.Index
	if r.Tokens != nil {
		idx = r.Tokens()
	}
	for _, m := range mints {
		if _, v, ok := snap.VariantByMint(m); ok {
			out[m] = Snapshot{Symbol: nonEmpty(v.Symbol), Name: nonEmpty(v.Name), Decimals: v.Decimals, LogoURI: nonEmpty(v.LogoURI), Verified: true}.Clean()
			continue
		}
		if t, ok := idx.Get(m); ok {
			out[m] = Snapshot{Symbol: nonEmpty(t.Symbol), Name: nonEmpty(t.Name), Decimals: t.Decimals, LogoURI: nonEmpty(t.LogoURI)}.Clean()
			continue
		}
		if r.Identities != nil {
			if sym, name, ok := r.Identities.TokenIdentity(m); ok {
				out[m] = Snapshot{Symbol: nonEmpty(sym), Name: nonEmpty(name)}.Clean()
				continue
			}
		}
		rest = append(rest, m)
	}
	return rest
}

// Candidate is one token search result of the dashboard's list editor.
type Candidate struct {
	Mint     string
	AssetID  string
	Symbol   string
	Name     string
	Verified bool
	Advisory string   // "" or the advisory status (caution, compromised, blocked)
	Warnings []string // the curator's warnings
	// Suppressed: gated by the search policy or hidden by an advisory;
	// shown, not addable.
	Suppressed bool
	// SuppressedBy names the gates that suppressed it.
	SuppressedBy []string
}

// SearchTokens is the dashboard's token search: the curator search of GET
// /v2/lists/search-tokens (its warnings and suppressed set) when it is
// configured, else the catalog search (one candidate per matching asset,
// mints hidden from lists suppressed).
func (r *Reader) SearchTokens(ctx context.Context, query string, limit int) ([]Candidate, error) {
	if r.Curator != nil {
		res := r.Curator.Search(ctx, curator.Request{Query: query, Policy: curator.DefaultPolicy, Limit: min(limit, curator.MaxLimit)})
		out := make([]Candidate, 0, len(res.Results)+len(res.Suppressed))
		for _, x := range res.Results {
			c := Candidate{Mint: x.Mint, Symbol: deref(x.Claims.Symbol), Name: deref(x.Claims.Name), Warnings: x.Warnings, Verified: x.Verified}
			if x.Advisory != nil {
				c.Advisory = x.Advisory.Status
			}
			out = append(out, c)
		}
		for _, x := range res.Suppressed {
			out = append(out, Candidate{Mint: x.Mint, Symbol: deref(x.Symbol), Name: deref(x.Name), Warnings: x.Warnings,
				Suppressed: true, SuppressedBy: x.SuppressedBy})
		}
		return out, nil
	}
	rows := r.Catalog.Search(catalog.SearchOptions{Query: query, Limit: limit})
	out := make([]Candidate, 0, len(rows))
	for _, row := range rows {
		v := row.PrimaryVariant
		if v == nil || v.Mint == "" {
			continue
		}
		c := Candidate{Mint: v.Mint, Symbol: v.Symbol, Name: v.Name, AssetID: row.AssetID}
		if c.Symbol == "" {
			c.Symbol = row.Symbol
		}
		if c.Name == "" {
			c.Name = row.Name
		}
		if a := r.advisory(v.Mint); a != nil {
			c.Advisory = a.Status
			c.Suppressed = asset.HiddenFromLists(a)
		}
		out = append(out, c)
	}
	return out, nil
}
