package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/storage"
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
	// BatchBudget and SearchBudget are each key's provider budget per
	// BudgetWindow (bulk add calls, curator searches).
	BatchBudget, SearchBudget int
	BudgetWindow              time.Duration
}

func (c ListsConfig) withDefaults() ListsConfig {
	if c.BatchBudget <= 0 {
		c.BatchBudget = 30
	}
	if c.SearchBudget <= 0 {
		c.SearchBudget = 120
	}
	if c.BudgetWindow <= 0 {
		c.BudgetWindow = 10 * time.Minute
	}
	return c
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
	deps, cacheable := s.setDeps()
	var kb [48]byte
	key := append(kb[:0], "\x00catalog\x00"...)
	key = strconv.AppendInt(key, int64(limit), 10)
	key = strconv.AppendInt(append(key, 0), int64(offset), 10)
	if cacheable {
		if e := s.listBodies.getKey(key, deps); e != nil {
			return writeBody(w, http.StatusOK, e.body.plain, e.body)
		}
	}
	var out []lists.Summary
	curated := s.d.Catalog.Snapshot().CuratedLists()
	if offset == 0 {
		for _, l := range curated {
			if rl, ok := s.d.ListReader.Curated(l.ID); ok {
				out = append(out, rl.Summary)
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
			out = append(out, lists.CommunitySummary(l, s.d.ListReader.VisibleCount(l)))
		}
	}
	if out == nil {
		out = []lists.Summary{}
	}
	doc := struct {
		Lists []lists.Summary `json:"lists"`
		Total int             `json:"total"`
	}{out, len(curated) + page.Total}
	if !cacheable {
		return writeJSON(w, http.StatusOK, doc)
	}
	b, _, err := encodeJSON(doc)
	if err != nil {
		return err
	}
	e := &listEntry{deps: deps, body: newEncoded(b)}
	s.listBodies.put(string(key), e)
	return writeBody(w, http.StatusOK, e.body.plain, e.body)
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
	q := query(r)
	limit, err := limitParam(q, "limit", 500, 1, 2000)
	if err != nil {
		return err
	}
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	e, err := s.listEntryFor(r.PathValue("slug"))
	if err != nil {
		return listErr(err)
	}
	if e != nil {
		p := e.page(pageBounds(offset, limit, len(e.rows)))
		return writeBody(w, http.StatusOK, p.plain, p)
	}
	rl, err := s.d.ListReader.Read(r.PathValue("slug"))
	if err != nil {
		return listErr(err)
	}
	page := rl.Tokens[min(offset, len(rl.Tokens)):min(offset+limit, len(rl.Tokens))]
	if page == nil {
		page = []lists.Token{}
	}
	return writeJSON(w, http.StatusOK, listDoc{rl.Summary, page})
}

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
	if len(slugs) > lists.MaxComposeLists {
		return badParam("lists", "at most 10 lists per call", apierr.Details{"max": lists.MaxComposeLists})
	}
	limit, err := limitParam(q, "limit", 500, 1, 2000)
	if err != nil {
		return err
	}
	offset, err := offsetParam(q, "offset")
	if err != nil {
		return err
	}
	if e := s.composeEntry(slugs); e != nil {
		p := e.page(pageBounds(offset, limit, len(e.rows)))
		return writeBody(w, http.StatusOK, p.plain, p)
	}
	return writeJSON(w, http.StatusOK, s.d.ListReader.Compose(slugs, offset, limit))
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
	if s.d.ListReader.IsCurated(body.Slug) {
		return apierr.New(apierr.BadRequest, "slug is reserved").WithDetails(apierr.Details{"code": lists.CodeReservedSlug})
	}
	l, err := s.d.Lists.Create(r.Context(), project(r), lists.CreateInput{Slug: body.Slug, Name: body.Name, Status: body.Status})
	if err != nil {
		return listErr(err)
	}
	s.refresh(r.Context(), l.Slug)
	return writeJSON(w, http.StatusCreated, lists.CommunitySummary(l, 0))
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
	if s.d.ListReader.IsCurated(slug) {
		return apierr.New(apierr.Forbidden, "curated lists are managed by the operator").WithDetails(apierr.Details{"code": "not_owner"})
	}
	l, err := s.d.Lists.Update(r.Context(), project(r), slug, lists.Patch{Name: body.Name, Slug: body.Slug, Status: body.Status})
	if err != nil {
		return listErr(err)
	}
	s.refresh(r.Context(), slug, l.Slug)
	return writeJSON(w, http.StatusOK, lists.CommunitySummary(l, s.d.ListReader.VisibleCount(l)))
}

// DELETE /v2/lists/{slug}
func (s *Server) listDelete(w http.ResponseWriter, r *http.Request) error {
	slug := r.PathValue("slug")
	if s.d.ListReader.IsCurated(slug) {
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
	if s.d.ListReader.IsCurated(slug) {
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
	if rest := s.d.ListReader.Unresolved([]string{mint}, snaps); len(rest) > 0 && s.d.ListReader.Metadata != nil {
		// A live lookup is charged to the key's batch budget.
		if err := s.chargeBudget(r, "batch", s.d.ListsConfig.BatchBudget); err != nil {
			return err
		}
		snaps = s.d.ListReader.Resolve(r.Context(), rest, 1)
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
	return writeJSON(w, status, s.d.ListReader.Member(m))
}

// DELETE /v2/lists/{slug}/members/{mint}
func (s *Server) memberDelete(w http.ResponseWriter, r *http.Request) error {
	slug, mint := r.PathValue("slug"), r.PathValue("mint")
	if s.d.ListReader.IsCurated(slug) {
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
	if s.d.ListReader.IsCurated(slug) {
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
	snaps := s.d.ListReader.ResolveMints(r.Context(), distinct)
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
