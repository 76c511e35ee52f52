package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
)

// AdvisoryLookup answers the advisory of a mint from memory (nil: none).
type AdvisoryLookup interface {
	Get(mint string) *asset.Advisory
}

type noAdvisories struct{}

func (noAdvisories) Get(string) *asset.Advisory { return nil }
func (noAdvisories) Version() uint64            { return 0 }

// ListsConfig tunes the v2 list endpoints.
type ListsConfig struct {
	// LookupsPerBatch bounds live provider lookups in one bulk add; the rest
	// of the unknown mints fail as unknown_mint (retryable later).
	LookupsPerBatch int
	// BatchBudget and SearchBudget are each key's provider budget per
	// BudgetWindow (bulk add calls, curator searches).
	BatchBudget, SearchBudget int
	BudgetWindow              time.Duration
	// LookupTimeout bounds the wait for live provider lookups of one member
	// PUT or bulk add; mints still unresolved fail as unknown_mint.
	LookupTimeout time.Duration
}

func (c ListsConfig) withDefaults() ListsConfig {
	if c.LookupsPerBatch <= 0 {
		c.LookupsPerBatch = 50
	}
	if c.BatchBudget <= 0 {
		c.BatchBudget = 30
	}
	if c.SearchBudget <= 0 {
		c.SearchBudget = 120
	}
	if c.BudgetWindow <= 0 {
		c.BudgetWindow = 10 * time.Minute
	}
	if c.LookupTimeout <= 0 {
		c.LookupTimeout = DefaultLookupTimeout
	}
	return c
}

// DefaultLookupTimeout bounds live provider lookups of member writes.
const DefaultLookupTimeout = 2 * time.Second

// curatedOwner names the owner of curated lists.
const curatedOwner = "assetd"

// listSummary is the spec's List summary.
type listSummary struct {
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Description *string   `json:"description"`
	Curated     bool      `json:"curated"`
	Owner       listOwner `json:"owner"`
	TokenCount  int       `json:"tokenCount"`
	UpdatedAt   *int64    `json:"updatedAt"`
	// Status is the community list's status (omitted for curated lists).
	Status string `json:"status,omitempty"`
}

type listOwner struct {
	Name      string `json:"name,omitempty"`
	ProjectID string `json:"projectId,omitempty"`
}

// listToken is the spec's V2ListToken; Lists is set by compose, Note and
// AddedAt by list detail.
type listToken struct {
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

func listErr(err error) error {
	var re *lists.RuleError
	switch {
	case errors.As(err, &re):
		return apierr.New(apierr.BadRequest, re.Message).WithDetails(apierr.Details{"code": re.Code})
	case errors.Is(err, lists.ErrForbidden):
		return apierr.New(apierr.Forbidden, "this list belongs to another project").WithDetails(apierr.Details{"code": "not_owner"})
	case errors.Is(err, storage.ErrNotFound):
		return apierr.New(apierr.NotFound, "list not found")
	}
	return apierr.Wrap(err)
}

// resolvedList is a readable list, curated or community, with its visible
// tokens in rank order (blocked mints omitted, ranks dense).
type resolvedList struct {
	summary listSummary
	tokens  []listToken
}

func ms(v int64) *int64 { return &v }

// curatedList builds a curated list's summary and tokens: the registry's
// list text and the catalog's effective membership (the same mints as v1
// curated?list=<slug>&groupBy=mint, LST floor included).
func (s *Server) curatedList(slug string) (*resolvedList, bool) {
	l, ok := s.d.Catalog.Snapshot().CuratedList(slug)
	if !ok {
		return nil, false
	}
	members, ok := s.d.Catalog.CuratedMembers(slug)
	if !ok {
		return nil, false
	}
	desc := l.Description
	rl := &resolvedList{summary: listSummary{Slug: l.ID, Name: l.Name, Description: &desc, Curated: true, Owner: listOwner{Name: curatedOwner}}}
	var updated int64
	for _, m := range members {
		adv := s.d.Advisories.Get(m.Mint)
		if adv != nil && adv.Status == asset.AdvisoryBlocked {
			continue
		}
		_, v, known := s.d.Catalog.Snapshot().VariantByMint(m.Mint)
		t := listToken{Mint: m.Mint, Verified: known, Rank: len(rl.tokens) + 1, Advisory: adv}
		if known {
			t.Symbol, t.Name, t.Decimals, t.LogoURI = nonEmptyPtr(v.Symbol), nonEmptyPtr(v.Name), v.Decimals, nonEmptyPtr(v.LogoURI)
		}
		if m.AddedAt > 0 {
			t.AddedAt = ms(m.AddedAt)
			updated = max(updated, m.AddedAt)
		}
		rl.tokens = append(rl.tokens, t)
	}
	rl.summary.TokenCount = len(rl.tokens)
	if updated > 0 {
		rl.summary.UpdatedAt = ms(updated)
	}
	return rl, true
}

func communitySummary(l lists.List, visible int) listSummary {
	return listSummary{Slug: l.Slug, Name: l.Name, Curated: false, Owner: listOwner{ProjectID: l.Owner}, TokenCount: visible,
		UpdatedAt: ms(l.UpdatedAt), Status: l.Status}
}

// communityList returns a readable community list with its visible
// tokens, from the in-memory views.
func (s *Server) communityList(_ context.Context, slug string) (*resolvedList, error) {
	v, ok := s.d.ListViews.Get(slug)
	if !ok {
		return nil, storage.ErrNotFound
	}
	rl := &resolvedList{tokens: make([]listToken, 0, len(v.Members))}
	for _, m := range v.Members {
		adv := s.d.Advisories.Get(m.Mint)
		if adv != nil && adv.Status == asset.AdvisoryBlocked {
			continue
		}
		t := memberToken(m, adv)
		t.Rank = len(rl.tokens) + 1
		rl.tokens = append(rl.tokens, t)
	}
	rl.summary = communitySummary(v.List, len(rl.tokens))
	return rl, nil
}

// readList resolves any readable slug.
func (s *Server) readList(ctx context.Context, slug string) (*resolvedList, error) {
	if rl, ok := s.curatedList(slug); ok {
		return rl, nil
	}
	if !lists.ValidSlug(slug) {
		return nil, storage.ErrNotFound
	}
	return s.communityList(ctx, slug)
}

// GET /v2/lists
func (s *Server) listCatalog(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := limitParam(q, "limit", 100, 1, 500)
	if err != nil {
		return err
	}
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	var out []listSummary
	curated := s.d.Catalog.Snapshot().CuratedLists()
	if offset == 0 {
		for _, l := range curated {
			if rl, ok := s.curatedList(l.ID); ok {
				out = append(out, rl.summary)
			}
		}
	}
	room := limit - len(out)
	page, err := s.d.Lists.Catalog(r.Context(), offset, max(room, 0))
	if err != nil {
		return apierr.Wrap(err)
	}
	if room > 0 {
		for _, l := range page.Lists {
			out = append(out, communitySummary(l, s.visibleCount(r.Context(), l)))
		}
	}
	if out == nil {
		out = []listSummary{}
	}
	return writeJSON(w, http.StatusOK, struct {
		Lists []listSummary `json:"lists"`
		Total int           `json:"total"`
	}{out, len(curated) + page.Total})
}

// visibleCount is a list's member count without blocked mints.
func (s *Server) visibleCount(_ context.Context, l lists.List) int {
	v, ok := s.d.ListViews.Get(l.Slug)
	if !ok {
		return l.MemberCount
	}
	n := 0
	for _, m := range v.Members {
		if a := s.d.Advisories.Get(m.Mint); a == nil || a.Status != asset.AdvisoryBlocked {
			n++
		}
	}
	return n
}

// refresh updates the read model for lists this request wrote, so the
// writer reads its own writes at once.
func (s *Server) refresh(ctx context.Context, slugs ...string) {
	if err := s.d.ListViews.Refresh(ctx, slugs...); err != nil {
		s.d.Log.WarnContext(ctx, "list view refresh failed; the change poller will retry", "slugs", slugs, "err", err)
	}
}

// GET /v2/lists/{slug}
func (s *Server) listDetail(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := limitParam(q, "limit", 500, 1, 2000)
	if err != nil {
		return err
	}
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	rl, err := s.readList(r.Context(), r.PathValue("slug"))
	if err != nil {
		return listErr(err)
	}
	page := rl.tokens[min(offset, len(rl.tokens)):min(offset+limit, len(rl.tokens))]
	if page == nil {
		page = []listToken{}
	}
	return writeJSON(w, http.StatusOK, struct {
		listSummary
		Tokens []listToken `json:"tokens"`
	}{rl.summary, page})
}

// MaxComposeLists is how many slugs one compose call may name.
const MaxComposeLists = 10

// GET /v2/lists/tokens
func (s *Server) listCompose(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	raw := strings.TrimSpace(q.Get("lists"))
	if raw == "" {
		return missingParam("lists", "lists is required: comma-separated list slugs")
	}
	var slugs []string
	for _, sl := range strings.Split(raw, ",") {
		if sl = strings.TrimSpace(sl); sl != "" && !containsStr(slugs, sl) {
			slugs = append(slugs, sl)
		}
	}
	if len(slugs) > MaxComposeLists {
		return badParam("lists", "at most 10 lists per call", apierr.Details{"max": MaxComposeLists})
	}
	limit, err := limitParam(q, "limit", 500, 1, 2000)
	if err != nil {
		return err
	}
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	summaries := []listSummary{}
	notFound := []string{}
	// The union is built from the members themselves; V2ListToken rows are
	// made only for the page.
	type entry struct {
		curated *listToken
		member  *lists.Member
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
		if rl, ok := s.curatedList(sl); ok {
			found = append(found, sl)
			summaries = append(summaries, rl.summary)
			if index == nil {
				index = make(map[string]int, len(rl.tokens))
			}
			for i := range rl.tokens {
				add(rl.tokens[i].Mint, entry{curated: &rl.tokens[i], adv: rl.tokens[i].Advisory}, bit)
			}
			continue
		}
		v, ok := s.d.ListViews.Get(sl)
		if !ok || !lists.ValidSlug(sl) {
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
			adv := s.d.Advisories.Get(m.Mint)
			if adv != nil && adv.Status == asset.AdvisoryBlocked {
				continue
			}
			visible++
			add(m.Mint, entry{member: m, adv: adv}, bit)
		}
		summaries = append(summaries, communitySummary(v.List, visible))
	}
	page := union[min(offset, len(union)):min(offset+limit, len(union))]
	tokens := make([]listToken, len(page))
	for i, e := range page {
		var t listToken
		if e.curated != nil {
			t = *e.curated
		} else {
			t = memberToken(*e.member, e.adv)
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
	return writeJSON(w, http.StatusOK, struct {
		Lists    []listSummary `json:"lists"`
		NotFound []string      `json:"notFound"`
		Total    int           `json:"total"`
		Tokens   []listToken   `json:"tokens"`
	}{summaries, notFound, len(union), tokens})
}

// project is the calling key's project id.
func project(r *http.Request) string { return KeyFrom(r.Context()).ProjectID }

// POST /v2/lists
func (s *Server) listCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Slug   string `json:"slug"`
		Name   string `json:"name"`
		Status string `json:"status"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if s.isCuratedSlug(body.Slug) {
		return apierr.New(apierr.BadRequest, "slug is reserved").WithDetails(apierr.Details{"code": lists.CodeReservedSlug})
	}
	l, err := s.d.Lists.Create(r.Context(), project(r), lists.CreateInput{Slug: body.Slug, Name: body.Name, Status: body.Status})
	if err != nil {
		return listErr(err)
	}
	s.refresh(r.Context(), l.Slug)
	return writeJSON(w, http.StatusCreated, communitySummary(l, 0))
}

func (s *Server) isCuratedSlug(slug string) bool {
	_, ok := s.d.Catalog.Snapshot().CuratedList(slug)
	return ok
}

// PATCH /v2/lists/{slug}
func (s *Server) listUpdate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name   *string `json:"name"`
		Slug   *string `json:"slug"`
		Status *string `json:"status"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	slug := r.PathValue("slug")
	if s.isCuratedSlug(slug) {
		return apierr.New(apierr.Forbidden, "curated lists are managed by the operator").WithDetails(apierr.Details{"code": "not_owner"})
	}
	l, err := s.d.Lists.Update(r.Context(), project(r), slug, lists.Patch{Name: body.Name, Slug: body.Slug, Status: body.Status})
	if err != nil {
		return listErr(err)
	}
	s.refresh(r.Context(), slug, l.Slug)
	return writeJSON(w, http.StatusOK, communitySummary(l, s.visibleCount(r.Context(), l)))
}

// DELETE /v2/lists/{slug}
func (s *Server) listDelete(w http.ResponseWriter, r *http.Request) error {
	slug := r.PathValue("slug")
	if s.isCuratedSlug(slug) {
		return apierr.New(apierr.Forbidden, "curated lists are managed by the operator").WithDetails(apierr.Details{"code": "not_owner"})
	}
	if err := s.d.Lists.Delete(r.Context(), project(r), slug); err != nil {
		return listErr(err)
	}
	s.refresh(r.Context(), slug)
	return writeJSON(w, http.StatusOK, struct {
		Slug    string `json:"slug"`
		Deleted bool   `json:"deleted"`
	}{slug, true})
}

// resolveMints resolves mints in the spec's order: the registry
// (verified), the token index, token identities the market cache already
// holds, then live provider lookups, at most maxLookups of them, waiting
// at most ListsConfig.LookupTimeout. Unknown mints are absent from the
// result; every snapshot is cleaned (internal/metadata).
func (s *Server) resolveMints(ctx context.Context, mints []string, maxLookups int) map[string]lists.Snapshot {
	out := make(map[string]lists.Snapshot, len(mints))
	lookup := s.unresolved(mints, out)
	if len(lookup) > maxLookups {
		lookup = lookup[:maxLookups]
	}
	if len(lookup) > 0 && s.d.Metadata != nil {
		lctx, cancel := context.WithTimeout(ctx, s.d.ListsConfig.LookupTimeout)
		res, err := s.d.Metadata.Lookup(lctx, lookup)
		cancel()
		if err != nil {
			s.d.Log.WarnContext(ctx, "token metadata lookup failed", "mints", len(lookup), "err", err)
		}
		for m, meta := range res {
			out[m] = lists.Snapshot{Symbol: nonEmptyPtr(meta.Symbol), Name: nonEmptyPtr(meta.Name), Decimals: meta.Decimals, LogoURI: nonEmptyPtr(meta.LogoURI)}.Clean()
		}
	}
	return out
}

// unresolved fills out with the mints memory resolves (registry, token
// index, cached identities) and returns the others in order.
func (s *Server) unresolved(mints []string, out map[string]lists.Snapshot) []string {
	var rest []string
	snap := s.d.Catalog.Snapshot()
	idx := s.tokenIndex()
	ids, _ := s.d.Markets.(interface {
		TokenIdentity(string) (string, string, bool)
	})
	for _, m := range mints {
		if _, v, ok := snap.VariantByMint(m); ok {
			out[m] = lists.Snapshot{Symbol: nonEmptyPtr(v.Symbol), Name: nonEmptyPtr(v.Name), Decimals: v.Decimals, LogoURI: nonEmptyPtr(v.LogoURI), Verified: true}.Clean()
			continue
		}
		if t, ok := idx.Get(m); ok {
			out[m] = lists.Snapshot{Symbol: nonEmptyPtr(t.Symbol), Name: nonEmptyPtr(t.Name), Decimals: t.Decimals, LogoURI: nonEmptyPtr(t.LogoURI)}.Clean()
			continue
		}
		if ids != nil {
			if sym, name, ok := ids.TokenIdentity(m); ok {
				out[m] = lists.Snapshot{Symbol: nonEmptyPtr(sym), Name: nonEmptyPtr(name)}.Clean()
				continue
			}
		}
		rest = append(rest, m)
	}
	return rest
}

// tokenIndex is the current token index (nil: empty).
func (s *Server) tokenIndex() *tokenindex.Index {
	if s.d.Tokens == nil {
		return nil
	}
	return s.d.Tokens()
}

func memberToken(m lists.Member, adv *asset.Advisory) listToken {
	t := listToken{Mint: m.Mint, Symbol: m.Snapshot.Symbol, Name: m.Snapshot.Name, Decimals: m.Snapshot.Decimals, LogoURI: m.Snapshot.LogoURI,
		Verified: m.Snapshot.Verified, Rank: m.Rank, Advisory: adv, AddedAt: ms(m.AddedAt)}
	if m.Note != "" {
		note := m.Note
		t.Note = &note
	}
	return t
}

// PUT /v2/lists/{slug}/members/{mint}
func (s *Server) memberPut(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Rank *int    `json:"rank"`
		Note *string `json:"note"`
	}
	if r.ContentLength != 0 {
		if err := decodeJSON(w, r, &body); err != nil {
			return err
		}
	}
	slug, mint := r.PathValue("slug"), r.PathValue("mint")
	if s.isCuratedSlug(slug) {
		return apierr.New(apierr.Forbidden, "curated lists are managed by the operator").WithDetails(apierr.Details{"code": "not_owner"})
	}
	if !registry.ValidMint(mint) {
		return apierr.Newf(apierr.BadRequest, "Invalid mint: %q is not a base58 32-byte address", mint).WithDetails(apierr.Details{"code": "invalid_mint", "mint": mint})
	}
	// Existence and ownership first: a missing list or a foreign key costs
	// no lookup and no budget.
	l, err := s.d.Lists.Get(r.Context(), slug)
	if err != nil {
		return listErr(err)
	}
	if l.Owner != project(r) {
		return listErr(lists.ErrForbidden)
	}
	snaps := map[string]lists.Snapshot{}
	if rest := s.unresolved([]string{mint}, snaps); len(rest) > 0 && s.d.Metadata != nil {
		// A live lookup is charged to the key's batch budget.
		if err := s.chargeBudget(r, "batch", s.d.ListsConfig.BatchBudget); err != nil {
			return err
		}
		snaps = s.resolveMints(r.Context(), rest, 1)
	}
	sn, ok := snaps[mint]
	if !ok {
		return apierr.Newf(apierr.BadRequest, "Unknown mint: %s is not in the registry, the token index or the metadata provider", mint).
			WithDetails(apierr.Details{"code": "unknown_mint", "mint": mint})
	}
	var m lists.Member
	var added bool
	m, added, err = s.d.Lists.PutMember(r.Context(), project(r), slug, mint, lists.MemberInput{Rank: body.Rank, Note: body.Note, Snapshot: &sn})
	if err != nil {
		return listErr(err)
	}
	s.refresh(r.Context(), slug)
	status := http.StatusOK
	if added {
		status = http.StatusCreated
	}
	return writeJSON(w, status, memberToken(m, s.d.Advisories.Get(mint)))
}

// DELETE /v2/lists/{slug}/members/{mint}
func (s *Server) memberDelete(w http.ResponseWriter, r *http.Request) error {
	slug, mint := r.PathValue("slug"), r.PathValue("mint")
	if s.isCuratedSlug(slug) {
		return apierr.New(apierr.Forbidden, "curated lists are managed by the operator").WithDetails(apierr.Details{"code": "not_owner"})
	}
	if !registry.ValidMint(mint) {
		// As PUT: a malformed address is a bad request, not an absent member.
		return invalidMemberMint(mint)
	}
	if err := s.d.Lists.DeleteMember(r.Context(), project(r), slug, mint); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.Newf(apierr.NotFound, "%s is not a member of %s", mint, slug)
		}
		return listErr(err)
	}
	s.refresh(r.Context(), slug)
	return writeJSON(w, http.StatusOK, struct {
		Slug    string `json:"slug"`
		Mint    string `json:"mint"`
		Deleted bool   `json:"deleted"`
	}{slug, mint, true})
}

// invalidMemberMint is the 400 of a member path holding a malformed mint.
func invalidMemberMint(mint string) error {
	return apierr.Newf(apierr.BadRequest, "Invalid mint: %q is not a base58 32-byte address", mint).
		WithDetails(apierr.Details{"code": "invalid_mint", "mint": mint})
}

type addedRow struct {
	Mint     string     `json:"mint"`
	Verified bool       `json:"verified"`
	Snapshot *snapshotJ `json:"snapshot"`
}

type snapshotJ struct {
	Symbol   *string `json:"symbol"`
	Name     *string `json:"name"`
	Decimals *int    `json:"decimals"`
	LogoURI  *string `json:"logoURI"`
}

type failedRow struct {
	Mint  string `json:"mint"`
	Error string `json:"error"`
}

// POST /v2/lists/{slug}/members
func (s *Server) memberBulk(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Mints []string `json:"mints"`
	}
	if err := decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Mints == nil {
		return missingParam("mints", "mints is required: an array of mint addresses")
	}
	slug := r.PathValue("slug")
	if s.isCuratedSlug(slug) {
		return apierr.New(apierr.Forbidden, "curated lists are managed by the operator").WithDetails(apierr.Details{"code": "not_owner"})
	}
	// Ownership first: a 403 costs no budget.
	l, err := s.d.Lists.Get(r.Context(), slug)
	if err != nil {
		return listErr(err)
	}
	if l.Owner != project(r) {
		return listErr(lists.ErrForbidden)
	}
	distinct, bad := dedupeMints(body.Mints)
	if len(distinct)+len(bad) > s.d.Lists.Limits().BatchSize {
		return apierr.Newf(apierr.BadRequest, "at most %d mints per call", s.d.Lists.Limits().BatchSize).
			WithDetails(apierr.Details{"code": "batch_too_large", "max": s.d.Lists.Limits().BatchSize})
	}
	if err := s.chargeBudget(r, "batch", s.d.ListsConfig.BatchBudget); err != nil {
		return err
	}
	snaps := s.resolveMints(r.Context(), distinct, s.d.ListsConfig.LookupsPerBatch)
	failed := []failedRow{}
	for _, m := range bad {
		failed = append(failed, failedRow{m, "invalid_mint"})
	}
	var toAdd []lists.NewMember
	for _, m := range distinct {
		sn, ok := snaps[m]
		if !ok {
			failed = append(failed, failedRow{m, "unknown_mint"})
			continue
		}
		toAdd = append(toAdd, lists.NewMember{Mint: m, Snapshot: sn})
	}
	res, err := s.d.Lists.AddMembers(r.Context(), project(r), slug, toAdd)
	if err != nil {
		return listErr(err)
	}
	s.refresh(r.Context(), slug)
	added := []addedRow{}
	for _, m := range res.Added {
		sn := m.Snapshot
		added = append(added, addedRow{Mint: m.Mint, Verified: sn.Verified, Snapshot: &snapshotJ{sn.Symbol, sn.Name, sn.Decimals, sn.LogoURI}})
	}
	for _, m := range res.Present {
		sn := snaps[m]
		added = append(added, addedRow{Mint: m, Verified: sn.Verified, Snapshot: &snapshotJ{sn.Symbol, sn.Name, sn.Decimals, sn.LogoURI}})
	}
	for _, f := range res.Failed {
		failed = append(failed, failedRow{f.Mint, f.Code})
	}
	return writeJSON(w, http.StatusOK, struct {
		Added  []addedRow  `json:"added"`
		Failed []failedRow `json:"failed"`
	}{added, failed})
}

// chargeBudget spends one unit of the key's provider budget of kind.
func (s *Server) chargeBudget(r *http.Request, kind string, n int) error {
	k := KeyFrom(r.Context())
	d, err := s.budget.Allow(r.Context(), kind+":"+k.ID, ratelimit.Policy{Requests: n, Window: s.d.ListsConfig.BudgetWindow}, s.d.Now())
	if err != nil || d.Allowed {
		return nil
	}
	return apierr.Newf(apierr.RateLimited, "provider budget exhausted: %d %s calls per %s per key", n, kind, s.d.ListsConfig.BudgetWindow).
		WithDetails(apierr.Details{"code": "provider_budget", "retryAfterSeconds": ceilSeconds(d.RetryAfter)}).
		WithRetryAfter(d.RetryAfter)
}
