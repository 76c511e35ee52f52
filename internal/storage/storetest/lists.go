package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/lists/liststest"
	"github.com/assetd/assetd/internal/storage"
	"github.com/google/go-cmp/cmp"
)

// Conformance of community lists and advisories. The tests drive the
// engines through lists.Service (the rules that need no database plus the
// store's atomic ones) with an injected clock and small limits.

// clock is an injected, settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// smallLimits keep the caps reachable in tests.
var smallLimits = lists.Limits{ListsPerProject: 3, MembersPerList: 5, BatchSize: 4, SlugHold: 30 * 24 * time.Hour, NameLen: 20, NoteLen: 10}

func newService(t *testing.T, s Store, l lists.Limits) (*lists.Service, *clock) {
	t.Helper()
	c := &clock{t: t0}
	svc, err := lists.New(s, l, c.Now)
	if err != nil {
		t.Fatal(err)
	}
	return svc, c
}

func ptr[T any](v T) *T { return &v }

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := lists.Code(err); got != code {
		t.Fatalf("%s: error %v (code %q); want code %q", what, err, got, code)
	}
}

func wantIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v; want %v", what, err, target)
	}
}

func mustList(t *testing.T, svc *lists.Service, project, slug string) lists.List {
	t.Helper()
	l, err := svc.Create(context.Background(), project, lists.CreateInput{Slug: slug, Name: "List " + slug})
	if err != nil {
		t.Fatalf("Create %s by %s: %v", slug, project, err)
	}
	return l
}

func mustPut(t *testing.T, svc *lists.Service, project, slug, mint string, in lists.MemberInput) lists.Member {
	t.Helper()
	m, _, err := svc.PutMember(context.Background(), project, slug, mint, in)
	if err != nil {
		t.Fatalf("PutMember %s to %s: %v", mint, slug, err)
	}
	return m
}

// members returns the mints of slug in rank order after checking that the
// ranks are exactly 1..n, the mints distinct and n the list's count.
func members(t *testing.T, s Store, slug string) []string {
	t.Helper()
	l, ms, err := s.Members(context.Background(), slug, 0, 0)
	if err != nil {
		t.Fatalf("Members %s: %v", slug, err)
	}
	seen := map[string]bool{}
	out := make([]string, len(ms))
	for i, m := range ms {
		if m.Rank != i+1 {
			t.Fatalf("%s: member %d (%s) has rank %d; ranks must be 1..n", slug, i, m.Mint, m.Rank)
		}
		if seen[m.Mint] {
			t.Fatalf("%s: %s listed twice", slug, m.Mint)
		}
		seen[m.Mint] = true
		out[i] = m.Mint
	}
	if l.MemberCount != len(ms) {
		t.Fatalf("%s: MemberCount %d, %d members stored", slug, l.MemberCount, len(ms))
	}
	return out
}

func wantMembers(t *testing.T, s Store, slug string, want ...string) {
	t.Helper()
	if want == nil {
		want = []string{}
	}
	if d := cmp.Diff(want, members(t, s, slug)); d != "" {
		t.Fatalf("%s members (-want +got):\n%s", slug, d)
	}
}

func listsVersion(t *testing.T, s Store, topic string) int64 {
	t.Helper()
	v, err := s.Versions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v[topic]
}

func testListsCreateAndGet(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	l, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "my-list", Name: "  My list  "})
	if err != nil {
		t.Fatal(err)
	}
	want := lists.List{ID: l.ID, Slug: "my-list", Name: "My list", Status: lists.StatusPublished, Owner: "prj_a",
		CreatedAt: storage.Ms(t0), UpdatedAt: storage.Ms(t0)}
	if d := cmp.Diff(want, l); d != "" || !strings.HasPrefix(l.ID, "lst_") {
		t.Fatalf("Create (-want +got):\n%s (id %q)", d, l.ID)
	}
	got, err := svc.Get(ctx, "my-list")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Get (-want +got):\n%s", d)
	}
	for _, st := range []string{lists.StatusDraft, lists.StatusUnlisted, lists.StatusPublished} {
		l, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "list-" + st, Name: st, Status: st})
		if err != nil || l.Status != st {
			t.Fatalf("create with status %s: %+v, %v", st, l, err)
		}
	}
	_, err = svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "list-archived", Name: "x", Status: lists.StatusArchived})
	wantCode(t, "create archived", err, lists.CodeInvalidStatus)
	if _, err := svc.Get(ctx, "list-archived"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("rejected create left a list behind: %v", err)
	}
}

func testListsSlugRule(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	for _, tc := range []struct {
		slug, code string
	}{
		{"abc", ""},
		{"a" + strings.Repeat("b", 62), ""},
		{"a1-", ""},
		{"x-2-y", ""},
		{"ab", lists.CodeInvalidSlug},
		{"a" + strings.Repeat("b", 63), lists.CodeInvalidSlug},
		{"", lists.CodeInvalidSlug},
		{"1abc", lists.CodeInvalidSlug},
		{"-abc", lists.CodeInvalidSlug},
		{"Abc", lists.CodeInvalidSlug},
		{"ab_c", lists.CodeInvalidSlug},
		{"ab c", lists.CodeInvalidSlug},
		{"abç", lists.CodeInvalidSlug},
		{"abc\n", lists.CodeInvalidSlug},
		{"all", lists.CodeReservedSlug},
		{"majors", lists.CodeReservedSlug},
		{"lsts", lists.CodeReservedSlug},
		{"currencies", lists.CodeReservedSlug},
		{"rwas", lists.CodeReservedSlug},
		{"etfs", lists.CodeReservedSlug},
		{"metals", lists.CodeReservedSlug},
		{"stocks", lists.CodeReservedSlug},
		{"lists", lists.CodeReservedSlug},
		{"curated", lists.CodeReservedSlug},
		{"tokens", lists.CodeReservedSlug},
		{"search-tokens", lists.CodeReservedSlug},
	} {
		project := fmt.Sprintf("prj_%d", len(tc.slug)) // stay under the per-project cap
		_, err := svc.Create(ctx, project, lists.CreateInput{Slug: tc.slug, Name: "n"})
		if tc.code == "" {
			if err != nil {
				t.Fatalf("slug %q: %v; want created", tc.slug, err)
			}
			continue
		}
		wantCode(t, fmt.Sprintf("slug %q", tc.slug), err, tc.code)
	}
	// Renames obey the same rule.
	mustList(t, svc, "prj_r", "rename-me")
	_, err := svc.Update(ctx, "prj_r", "rename-me", lists.Patch{Slug: ptr("Bad")})
	wantCode(t, "rename to Bad", err, lists.CodeInvalidSlug)
	_, err = svc.Update(ctx, "prj_r", "rename-me", lists.Patch{Slug: ptr("tokens")})
	wantCode(t, "rename to tokens", err, lists.CodeReservedSlug)
}

func testListsSlugConflict(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "taken")
	mustList(t, svc, "prj_a", "other")
	_, err := svc.Create(ctx, "prj_b", lists.CreateInput{Slug: "taken", Name: "x"})
	wantCode(t, "other project, live slug", err, lists.CodeSlugConflict)
	_, err = svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "taken", Name: "x"})
	wantCode(t, "same project, live slug", err, lists.CodeSlugConflict)
	_, err = svc.Update(ctx, "prj_a", "other", lists.Patch{Slug: ptr("taken")})
	wantCode(t, "rename onto a live slug", err, lists.CodeSlugConflict)
	wantMembers(t, s, "other") // the failed rename changed nothing
	p, _ := s.ListLists(ctx, lists.Query{})
	if p.Total != 2 {
		t.Fatalf("%d lists; want 2", p.Total)
	}
}

func testListsProjectLimit(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, smallLimits) // 3 lists per project
	ctx := context.Background()
	mustList(t, svc, "prj_a", "one")
	mustList(t, svc, "prj_a", "two")
	mustList(t, svc, "prj_a", "three")
	if _, err := svc.Update(ctx, "prj_a", "three", lists.Patch{Status: ptr(lists.StatusArchived)}); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "four", Name: "x"})
	wantCode(t, "fourth list (an archived one counts)", err, lists.CodeProjectListsLimit)
	mustList(t, svc, "prj_b", "four") // another project is not affected
	if err := svc.Delete(ctx, "prj_a", "two"); err != nil {
		t.Fatal(err)
	}
	mustList(t, svc, "prj_a", "five") // deleting frees a slot
	got, err := svc.ProjectLists(ctx, "prj_a")
	if err != nil || len(got) != 3 {
		t.Fatalf("ProjectLists = %d, %v; want 3", len(got), err)
	}
}

// Concurrent creates by one project stop exactly at the cap.
func testListsProjectLimitConcurrent(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, smallLimits) // 3 lists per project
	ctx := context.Background()
	const n = 12
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = svc.Create(ctx, "prj_busy", lists.CreateInput{Slug: fmt.Sprintf("busy-%02d", i), Name: "x"})
		}()
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case lists.Code(err) != lists.CodeProjectListsLimit:
			t.Fatalf("create %d: %v; want nil or project_lists_limit", i, err)
		}
	}
	p, err := s.ListLists(ctx, lists.Query{Owner: "prj_busy"})
	if err != nil || ok != 3 || p.Total != 3 {
		t.Fatalf("%d creates succeeded, %d lists stored (%v); want 3", ok, p.Total, err)
	}
}

func testListsStatusTransitions(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "flip")
	for _, from := range lists.Statuses {
		for _, to := range lists.Statuses {
			if _, err := svc.Update(ctx, "prj_a", "flip", lists.Patch{Status: ptr(from)}); err != nil {
				t.Fatalf("-> %s: %v", from, err)
			}
			clk.Add(time.Millisecond)
			l, err := svc.Update(ctx, "prj_a", "flip", lists.Patch{Status: ptr(to)})
			if err != nil || l.Status != to {
				t.Fatalf("%s -> %s: %+v, %v", from, to, l, err)
			}
			got, _ := svc.Get(ctx, "flip")
			if got.Status != to || got.Readable() != (to == lists.StatusPublished || to == lists.StatusUnlisted) ||
				got.Listed() != (to == lists.StatusPublished) {
				t.Fatalf("%s -> %s: stored %+v", from, to, got)
			}
			cat, err := svc.Catalog(ctx, 0, 10)
			if err != nil || (cat.Total == 1) != (to == lists.StatusPublished) || len(cat.Lists) != cat.Total {
				t.Fatalf("%s -> %s: catalog %+v, %v", from, to, cat, err)
			}
		}
	}
	_, err := svc.Update(ctx, "prj_a", "flip", lists.Patch{Status: ptr("deleted")})
	wantCode(t, "unknown status", err, lists.CodeInvalidStatus)
}

func testListsValidation(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, smallLimits) // names up to 20, notes up to 10
	ctx := context.Background()
	for _, name := range []string{"", "   ", strings.Repeat("n", 21), "tab\there", "nul\x00", "bad\xffutf8"} {
		_, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "named", Name: name})
		wantCode(t, fmt.Sprintf("name %q", name), err, lists.CodeInvalidName)
	}
	l, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "named", Name: strings.Repeat("é", 20)})
	if err != nil || l.Name != strings.Repeat("é", 20) {
		t.Fatalf("20-character name: %+v, %v", l, err)
	}
	_, err = svc.Update(ctx, "prj_a", "named", lists.Patch{Name: ptr("")})
	wantCode(t, "rename to empty name", err, lists.CodeInvalidName)
	l, err = svc.Update(ctx, "prj_a", "named", lists.Patch{Name: ptr("New name")})
	if err != nil || l.Name != "New name" {
		t.Fatalf("update name: %+v, %v", l, err)
	}
	_, _, err = svc.PutMember(ctx, "prj_a", "named", liststest.Mint(1), lists.MemberInput{Note: ptr(strings.Repeat("x", 11))})
	wantCode(t, "long note", err, lists.CodeInvalidNote)
	_, _, err = svc.PutMember(ctx, "prj_a", "named", liststest.Mint(1), lists.MemberInput{Rank: ptr(0)})
	wantCode(t, "rank 0", err, lists.CodeInvalidRank)
	_, _, err = svc.PutMember(ctx, "prj_a", "named", "", lists.MemberInput{})
	wantCode(t, "empty mint", err, lists.CodeInvalidMint)
	wantMembers(t, s, "named")
}

func testListsOwnership(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "owned")
	mustPut(t, svc, "prj_a", "owned", liststest.Mint(1), lists.MemberInput{})
	v := listsVersion(t, s, storage.TopicLists)
	for _, project := range []string{"prj_b", ""} {
		_, err := svc.Update(ctx, project, "owned", lists.Patch{Name: ptr("Mine now")})
		wantIs(t, "update", err, lists.ErrForbidden)
		_, err = svc.Update(ctx, project, "owned", lists.Patch{Slug: ptr("stolen")})
		wantIs(t, "rename", err, lists.ErrForbidden)
		wantIs(t, "delete", svc.Delete(ctx, project, "owned"), lists.ErrForbidden)
		_, _, err = svc.PutMember(ctx, project, "owned", liststest.Mint(2), lists.MemberInput{})
		wantIs(t, "put member", err, lists.ErrForbidden)
		wantIs(t, "delete member", svc.DeleteMember(ctx, project, "owned", liststest.Mint(1)), lists.ErrForbidden)
		wantIs(t, "delete absent member", svc.DeleteMember(ctx, project, "owned", liststest.Mint(9)), lists.ErrForbidden)
		_, err = svc.AddMembers(ctx, project, "owned", []lists.NewMember{{Mint: liststest.Mint(3)}})
		wantIs(t, "bulk add", err, lists.ErrForbidden)
		_, err = svc.AddMembers(ctx, project, "owned", nil)
		wantIs(t, "empty bulk add", err, lists.ErrForbidden)
	}
	if lists.Code(lists.ErrForbidden) != "" {
		t.Fatal("ErrForbidden must not carry a rule code")
	}
	l, _ := svc.Get(ctx, "owned")
	if l.Name != "List owned" || l.Owner != "prj_a" {
		t.Fatalf("list changed by a stranger: %+v", l)
	}
	wantMembers(t, s, "owned", liststest.Mint(1))
	if _, err := svc.Get(ctx, "stolen"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("stranger's rename took effect: %v", err)
	}
	if listsVersion(t, s, storage.TopicLists) != v {
		t.Fatal("refused writes bumped the lists version")
	}
}

func testListsNotFound(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	for _, slug := range []string{"missing", "BAD", "majors", ""} {
		_, err := svc.Get(ctx, slug)
		wantIs(t, "get "+slug, err, storage.ErrNotFound)
		_, _, err = svc.Members(ctx, slug, 0, 10)
		wantIs(t, "members "+slug, err, storage.ErrNotFound)
		_, err = svc.Update(ctx, "prj_a", slug, lists.Patch{Name: ptr("x")})
		wantIs(t, "update "+slug, err, storage.ErrNotFound)
		wantIs(t, "delete "+slug, svc.Delete(ctx, "prj_a", slug), storage.ErrNotFound)
		_, _, err = svc.PutMember(ctx, "prj_a", slug, liststest.Mint(1), lists.MemberInput{})
		wantIs(t, "put member "+slug, err, storage.ErrNotFound)
		wantIs(t, "delete member "+slug, svc.DeleteMember(ctx, "prj_a", slug, liststest.Mint(1)), storage.ErrNotFound)
		_, err = svc.AddMembers(ctx, "prj_a", slug, []lists.NewMember{{Mint: liststest.Mint(1)}})
		wantIs(t, "bulk add "+slug, err, storage.ErrNotFound)
	}
	if _, err := s.GetList(ctx, "missing"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("store GetList missing: %v", err)
	}
}

func testListsRenameHold(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	orig := mustList(t, svc, "prj_a", "old-name")
	mustPut(t, svc, "prj_a", "old-name", liststest.Mint(1), lists.MemberInput{})
	clk.Add(time.Hour)
	l, err := svc.Update(ctx, "prj_a", "old-name", lists.Patch{Slug: ptr("new-name")})
	if err != nil || l.Slug != "new-name" || l.ID != orig.ID || l.UpdatedAt != storage.Ms(t0.Add(time.Hour)) {
		t.Fatalf("rename: %+v, %v", l, err)
	}
	// The old slug stops resolving, for reads and writes.
	_, err = svc.Get(ctx, "old-name")
	wantIs(t, "get old slug", err, storage.ErrNotFound)
	_, _, err = svc.PutMember(ctx, "prj_a", "old-name", liststest.Mint(2), lists.MemberInput{})
	wantIs(t, "put to old slug", err, storage.ErrNotFound)
	wantMembers(t, s, "new-name", liststest.Mint(1))
	// Held for the owner: others cannot take it, by create or rename.
	clk.Add(29 * 24 * time.Hour)
	_, err = svc.Create(ctx, "prj_b", lists.CreateInput{Slug: "old-name", Name: "x"})
	wantCode(t, "other project creates held slug", err, lists.CodeSlugConflict)
	mustList(t, svc, "prj_b", "b-list")
	_, err = svc.Update(ctx, "prj_b", "b-list", lists.Patch{Slug: ptr("old-name")})
	wantCode(t, "other project renames onto held slug", err, lists.CodeSlugConflict)
	// The owner reclaims it with another list.
	re, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "old-name", Name: "Reclaimed"})
	if err != nil || re.ID == orig.ID {
		t.Fatalf("owner reclaims held slug: %+v, %v", re, err)
	}
	wantMembers(t, s, "old-name")
	wantMembers(t, s, "new-name", liststest.Mint(1))
	// Now live again, it conflicts for everyone.
	_, err = svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "old-name", Name: "x"})
	wantCode(t, "reclaimed slug is live", err, lists.CodeSlugConflict)
}

func testListsRenameHoldExpiry(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "first")
	mustList(t, svc, "prj_b", "b-list")
	if _, err := svc.Update(ctx, "prj_a", "first", lists.Patch{Slug: ptr("second")}); err != nil {
		t.Fatal(err)
	}
	clk.Add(lists.DefaultSlugHold - time.Millisecond)
	_, err := svc.Create(ctx, "prj_b", lists.CreateInput{Slug: "first", Name: "x"})
	wantCode(t, "1 ms before expiry", err, lists.CodeSlugConflict)
	clk.Add(time.Millisecond)
	// Expired: anyone may take it, here by a rename.
	l, err := svc.Update(ctx, "prj_b", "b-list", lists.Patch{Slug: ptr("first")})
	if err != nil || l.Owner != "prj_b" {
		t.Fatalf("rename onto expired hold: %+v, %v", l, err)
	}
	_, err = svc.Update(ctx, "prj_a", "second", lists.Patch{Slug: ptr("first")})
	wantCode(t, "former owner after expiry", err, lists.CodeSlugConflict)
	// A configured hold applies; a created list's expired hold frees too.
	svc2, clk2 := newService(t, s, lists.Limits{SlugHold: time.Minute})
	clk2.t = clk.Now()
	mustList(t, svc2, "prj_c", "c-one")
	if _, err := svc2.Update(ctx, "prj_c", "c-one", lists.Patch{Slug: ptr("c-two")}); err != nil {
		t.Fatal(err)
	}
	_, err = svc2.Create(ctx, "prj_d", lists.CreateInput{Slug: "c-one", Name: "x"})
	wantCode(t, "within a 1-minute hold", err, lists.CodeSlugConflict)
	clk2.Add(time.Minute)
	if _, err := svc2.Create(ctx, "prj_d", lists.CreateInput{Slug: "c-one", Name: "x"}); err != nil {
		t.Fatalf("create after a 1-minute hold: %v", err)
	}
}

func testListsRenameBack(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "aaa")
	for _, step := range []string{"bbb", "ccc", "aaa", "bbb"} {
		clk.Add(time.Minute)
		if _, err := svc.Update(ctx, "prj_a", onlySlug(t, s, "prj_a"), lists.Patch{Slug: ptr(step)}); err != nil {
			t.Fatalf("rename to %s: %v", step, err)
		}
		if l, err := svc.Get(ctx, step); err != nil || l.Slug != step {
			t.Fatalf("after rename to %s: %+v, %v", step, l, err)
		}
	}
	// Every earlier slug is held for prj_a, none resolves.
	for _, slug := range []string{"aaa", "ccc"} {
		if _, err := svc.Get(ctx, slug); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("%s resolves: %v", slug, err)
		}
		_, err := svc.Create(ctx, "prj_b", lists.CreateInput{Slug: slug, Name: "x"})
		wantCode(t, "held "+slug, err, lists.CodeSlugConflict)
	}
	// A rename with the same slug, or an empty patch, changes nothing.
	v := listsVersion(t, s, storage.TopicLists)
	if _, err := svc.Update(ctx, "prj_a", "bbb", lists.Patch{Slug: ptr("bbb")}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Update(ctx, "prj_a", "bbb", lists.Patch{}); err != nil {
		t.Fatal(err)
	}
	if listsVersion(t, s, storage.TopicLists) != v {
		t.Fatal("no-op updates bumped the lists version")
	}
}

// onlySlug returns the live slug of project's only list.
func onlySlug(t *testing.T, s Store, project string) string {
	t.Helper()
	p, err := s.ListLists(context.Background(), lists.Query{Owner: project})
	if err != nil || len(p.Lists) != 1 {
		t.Fatalf("lists of %s: %+v, %v", project, p, err)
	}
	return p.Lists[0].Slug
}

func testListsDeleteReleasesSlug(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "doomed")
	if _, err := svc.AddMembers(ctx, "prj_a", "doomed", []lists.NewMember{{Mint: liststest.Mint(1)}, {Mint: liststest.Mint(2)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Update(ctx, "prj_a", "doomed", lists.Patch{Slug: ptr("doomed-two")}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, "prj_a", "doomed-two"); err != nil {
		t.Fatal(err)
	}
	wantIs(t, "second delete", svc.Delete(ctx, "prj_a", "doomed-two"), storage.ErrNotFound)
	_, _, err := svc.Members(ctx, "doomed-two", 0, 0)
	wantIs(t, "members of deleted list", err, storage.ErrNotFound)
	// Both the live slug and the hold are free for anyone at once.
	mustList(t, svc, "prj_b", "doomed")
	mustList(t, svc, "prj_b", "doomed-two")
	wantMembers(t, s, "doomed-two")
	got, err := s.ListsContaining(ctx, []string{liststest.Mint(1)}, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("members of the deleted list remain: %v, %v", got, err)
	}
}

func testListsMemberRanks(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "ranked")
	m := func(i int) string { return liststest.Mint(i) }
	steps := []struct {
		mint int
		rank *int
		want []int
	}{
		{1, nil, []int{1}},                    // append
		{2, nil, []int{1, 2}},                 // append
		{3, ptr(1), []int{3, 1, 2}},           // insert first
		{4, ptr(2), []int{3, 4, 1, 2}},        // insert in the middle
		{5, ptr(5), []int{3, 4, 1, 2, 5}},     // rank n+1 appends
		{6, ptr(99), []int{3, 4, 1, 2, 5, 6}}, // beyond n+1 clamps to the end
		{5, ptr(1), []int{5, 3, 4, 1, 2, 6}},  // move up
		{5, ptr(4), []int{3, 4, 1, 5, 2, 6}},  // move down
		{3, ptr(99), []int{4, 1, 5, 2, 6, 3}}, // move beyond n clamps to last
		{3, ptr(6), []int{4, 1, 5, 2, 6, 3}},  // move to its own rank
		{4, nil, []int{4, 1, 5, 2, 6, 3}},     // update without rank stays
	}
	seen := map[int]bool{}
	for i, st := range steps {
		clk.Add(time.Millisecond)
		got, added, err := svc.PutMember(ctx, "prj_a", "ranked", m(st.mint), lists.MemberInput{Rank: st.rank})
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		var want []string
		for _, w := range st.want {
			want = append(want, m(w))
		}
		order := members(t, s, "ranked")
		if d := cmp.Diff(want, order); d != "" {
			t.Fatalf("step %d: order (-want +got):\n%s", i, d)
		}
		if got.Rank < 1 || got.Rank > len(order) || order[got.Rank-1] != m(st.mint) {
			t.Fatalf("step %d: returned rank %d is not where the member is stored", i, got.Rank)
		}
		if added != !seen[st.mint] {
			t.Fatalf("step %d: added = %v; want %v", i, added, !seen[st.mint])
		}
		seen[st.mint] = true
	}
	// Deletes close the gaps wherever they are.
	for _, d := range []int{5, 4, 3} {
		if err := svc.DeleteMember(ctx, "prj_a", "ranked", m(d)); err != nil {
			t.Fatal(err)
		}
	}
	wantMembers(t, s, "ranked", m(1), m(2), m(6))
	mustPut(t, svc, "prj_a", "ranked", m(7), lists.MemberInput{Rank: ptr(2)})
	wantMembers(t, s, "ranked", m(1), m(7), m(2), m(6))
}

func testListsMemberUpdate(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "notes")
	snap := lists.Snapshot{Symbol: ptr("SOL"), Name: ptr("Wrapped SOL"), Decimals: ptr(9), LogoURI: ptr("https://x/sol.png"), Verified: true}
	first, added, err := svc.PutMember(ctx, "prj_a", "notes", liststest.Mint(1), lists.MemberInput{Note: ptr("hello"), Snapshot: &snap})
	if err != nil || !added {
		t.Fatalf("put: %v, added %v", err, added)
	}
	want := lists.Member{Mint: liststest.Mint(1), Rank: 1, Note: "hello", AddedAt: storage.Ms(t0), Snapshot: snap}
	if d := cmp.Diff(want, first); d != "" {
		t.Fatalf("put (-want +got):\n%s", d)
	}
	mustPut(t, svc, "prj_a", "notes", liststest.Mint(2), lists.MemberInput{}) // no note, empty snapshot
	clk.Add(time.Hour)
	// A put of an existing member without note or snapshot keeps both.
	got, added, err := svc.PutMember(ctx, "prj_a", "notes", liststest.Mint(1), lists.MemberInput{Rank: ptr(2)})
	want.Rank = 2
	if err != nil || added {
		t.Fatalf("move: %v, added %v", err, added)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("move (-want +got):\n%s", d)
	}
	// A new note and snapshot replace the old ones; addedAt stays.
	snap2 := lists.Snapshot{Symbol: ptr("SOL2")}
	mustPut(t, svc, "prj_a", "notes", liststest.Mint(1), lists.MemberInput{Note: ptr("bye"), Snapshot: &snap2})
	_, ms, err := svc.Members(ctx, "notes", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantAll := []lists.Member{
		{Mint: liststest.Mint(2), Rank: 1, AddedAt: storage.Ms(t0)},
		{Mint: liststest.Mint(1), Rank: 2, Note: "bye", AddedAt: storage.Ms(t0), Snapshot: snap2},
	}
	if d := cmp.Diff(wantAll, ms); d != "" {
		t.Fatalf("members (-want +got):\n%s", d)
	}
	// An empty note clears it.
	mustPut(t, svc, "prj_a", "notes", liststest.Mint(1), lists.MemberInput{Note: ptr("")})
	_, ms, _ = svc.Members(ctx, "notes", 1, 1)
	if len(ms) != 1 || ms[0].Note != "" || ms[0].Snapshot.Symbol == nil {
		t.Fatalf("after clearing the note: %+v", ms)
	}
	l, _ := svc.Get(ctx, "notes")
	if l.UpdatedAt != storage.Ms(t0.Add(time.Hour)) {
		t.Fatalf("UpdatedAt %d; want the last member write", l.UpdatedAt)
	}
}

func testListsMemberDelete(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "dels")
	for i := 1; i <= 4; i++ {
		mustPut(t, svc, "prj_a", "dels", liststest.Mint(i), lists.MemberInput{})
	}
	wantIs(t, "absent member", svc.DeleteMember(ctx, "prj_a", "dels", liststest.Mint(9)), storage.ErrNotFound)
	for _, tc := range []struct {
		del  int
		want []string
	}{
		{1, []string{liststest.Mint(2), liststest.Mint(3), liststest.Mint(4)}}, // first
		{4, []string{liststest.Mint(2), liststest.Mint(3)}},                    // last
		{2, []string{liststest.Mint(3)}},
		{3, nil},
	} {
		if err := svc.DeleteMember(ctx, "prj_a", "dels", liststest.Mint(tc.del)); err != nil {
			t.Fatal(err)
		}
		wantMembers(t, s, "dels", tc.want...)
	}
	wantIs(t, "delete twice", svc.DeleteMember(ctx, "prj_a", "dels", liststest.Mint(3)), storage.ErrNotFound)
}

func testListsListFullOnPut(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, smallLimits) // 5 members per list
	ctx := context.Background()
	mustList(t, svc, "prj_a", "small")
	for i := 1; i <= 5; i++ {
		mustPut(t, svc, "prj_a", "small", liststest.Mint(i), lists.MemberInput{})
	}
	_, _, err := svc.PutMember(ctx, "prj_a", "small", liststest.Mint(6), lists.MemberInput{Rank: ptr(1)})
	wantCode(t, "sixth member", err, lists.CodeListFull)
	// Updating and moving members of a full list still works.
	mustPut(t, svc, "prj_a", "small", liststest.Mint(5), lists.MemberInput{Rank: ptr(1), Note: ptr("top")})
	wantMembers(t, s, "small", liststest.Mint(5), liststest.Mint(1), liststest.Mint(2), liststest.Mint(3), liststest.Mint(4))
	if err := svc.DeleteMember(ctx, "prj_a", "small", liststest.Mint(2)); err != nil {
		t.Fatal(err)
	}
	mustPut(t, svc, "prj_a", "small", liststest.Mint(6), lists.MemberInput{})
	wantMembers(t, s, "small", liststest.Mint(5), liststest.Mint(1), liststest.Mint(3), liststest.Mint(4), liststest.Mint(6))
}

func testListsBulkAdd(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "bulk")
	mustPut(t, svc, "prj_a", "bulk", liststest.Mint(2), lists.MemberInput{Note: ptr("keep")})
	clk.Add(time.Second)
	v := listsVersion(t, s, storage.TopicLists)
	snap := lists.Snapshot{Symbol: ptr("ONE"), Decimals: ptr(6), Verified: true}
	res, err := svc.AddMembers(ctx, "prj_a", "bulk", []lists.NewMember{
		{Mint: liststest.Mint(1), Snapshot: snap},
		{Mint: liststest.Mint(2)}, // already a member
		{Mint: liststest.Mint(3)},
		{Mint: liststest.Mint(1)}, // repeated: counts once
		{Mint: ""},                // not a mint
		{Mint: liststest.Mint(4)},
	})
	if err != nil {
		t.Fatal(err)
	}
	now := storage.Ms(t0.Add(time.Second))
	want := lists.AddResult{
		Added: []lists.Member{
			{Mint: liststest.Mint(1), Rank: 2, AddedAt: now, Snapshot: snap},
			{Mint: liststest.Mint(3), Rank: 3, AddedAt: now},
			{Mint: liststest.Mint(4), Rank: 4, AddedAt: now},
		},
		Present: []string{liststest.Mint(2)},
		Failed:  []lists.Failure{{Mint: "", Code: lists.CodeInvalidMint}},
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Fatalf("AddMembers (-want +got):\n%s", d)
	}
	wantMembers(t, s, "bulk", liststest.Mint(2), liststest.Mint(1), liststest.Mint(3), liststest.Mint(4))
	_, ms, _ := svc.Members(ctx, "bulk", 0, 2)
	if len(ms) != 2 || ms[0].Note != "keep" || ms[1].Snapshot.Symbol == nil || *ms[1].Snapshot.Symbol != "ONE" {
		t.Fatalf("members after bulk add: %+v", ms)
	}
	if got := listsVersion(t, s, storage.TopicLists); got != v+1 {
		t.Fatalf("lists version moved %d; want 1 per bulk add", got-v)
	}
	// Nothing new: no write, no bump.
	res, err = svc.AddMembers(ctx, "prj_a", "bulk", []lists.NewMember{{Mint: liststest.Mint(3)}})
	if err != nil || len(res.Added) != 0 || len(res.Present) != 1 {
		t.Fatalf("re-add: %+v, %v", res, err)
	}
	if got := listsVersion(t, s, storage.TopicLists); got != v+1 {
		t.Fatal("a bulk add that added nothing bumped the version")
	}
}

func testListsBulkAddListFull(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, smallLimits) // 5 per list, 4 per batch
	ctx := context.Background()
	mustList(t, svc, "prj_a", "fills")
	for i := 1; i <= 3; i++ {
		mustPut(t, svc, "prj_a", "fills", liststest.Mint(i), lists.MemberInput{})
	}
	res, err := svc.AddMembers(ctx, "prj_a", "fills", []lists.NewMember{
		{Mint: liststest.Mint(4)}, {Mint: liststest.Mint(1)}, {Mint: liststest.Mint(5)}, {Mint: liststest.Mint(6)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 2 || len(res.Present) != 1 {
		t.Fatalf("added %d, present %d; want 2, 1", len(res.Added), len(res.Present))
	}
	if d := cmp.Diff([]lists.Failure{{Mint: liststest.Mint(6), Code: lists.CodeListFull}}, res.Failed); d != "" {
		t.Fatalf("failed (-want +got):\n%s", d)
	}
	wantMembers(t, s, "fills", liststest.Mint(1), liststest.Mint(2), liststest.Mint(3), liststest.Mint(4), liststest.Mint(5))
	// A full list fails every new mint, still reports present ones, and
	// writes nothing.
	v := listsVersion(t, s, storage.TopicLists)
	res, err = svc.AddMembers(ctx, "prj_a", "fills", []lists.NewMember{{Mint: liststest.Mint(7)}, {Mint: liststest.Mint(2)}, {Mint: liststest.Mint(8)}})
	want := lists.AddResult{Present: []string{liststest.Mint(2)},
		Failed: []lists.Failure{{Mint: liststest.Mint(7), Code: lists.CodeListFull}, {Mint: liststest.Mint(8), Code: lists.CodeListFull}}}
	if d := cmp.Diff(want, res); d != "" || err != nil {
		t.Fatalf("full list (-want +got):\n%s %v", d, err)
	}
	if listsVersion(t, s, storage.TopicLists) != v {
		t.Fatal("a bulk add that added nothing bumped the version")
	}
	// Deleting one frees one slot.
	if err := svc.DeleteMember(ctx, "prj_a", "fills", liststest.Mint(3)); err != nil {
		t.Fatal(err)
	}
	res, err = svc.AddMembers(ctx, "prj_a", "fills", []lists.NewMember{{Mint: liststest.Mint(9)}, {Mint: liststest.Mint(10)}})
	if err != nil || len(res.Added) != 1 || res.Added[0].Rank != 5 || len(res.Failed) != 1 || res.Failed[0].Mint != liststest.Mint(10) {
		t.Fatalf("after a delete: %+v, %v", res, err)
	}
	wantMembers(t, s, "fills", liststest.Mint(1), liststest.Mint(2), liststest.Mint(4), liststest.Mint(5), liststest.Mint(9))
}

func testListsBulkAddTooLarge(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, smallLimits) // 4 per batch
	ctx := context.Background()
	mustList(t, svc, "prj_a", "batch")
	var five, dup []lists.NewMember
	for i := 1; i <= 5; i++ {
		five = append(five, lists.NewMember{Mint: liststest.Mint(i)})
		dup = append(dup, lists.NewMember{Mint: liststest.Mint(i % 2)})
	}
	_, err := svc.AddMembers(ctx, "prj_a", "batch", five)
	wantCode(t, "5 distinct mints", err, lists.CodeBatchTooLarge)
	wantMembers(t, s, "batch")
	// The cap counts distinct mints.
	res, err := svc.AddMembers(ctx, "prj_a", "batch", dup)
	if err != nil || len(res.Added) != 2 {
		t.Fatalf("5 mints, 2 distinct: %+v, %v", res, err)
	}
}

func testListsFailedBatch(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_a", "atomic")
	mustPut(t, svc, "prj_a", "atomic", liststest.Mint(0), lists.MemberInput{})
	v := listsVersion(t, s, storage.TopicLists)
	// Straight to the store: 1,000 members whose last one breaks a
	// constraint (an empty mint), after several insert batches went in.
	var ms []lists.NewMember
	for i := 1; i < 1000; i++ {
		ms = append(ms, lists.NewMember{Mint: liststest.Mint(i)})
	}
	ms = append(ms, lists.NewMember{Mint: ""})
	if _, err := s.AddMembers(ctx, lists.AddMembersParams{Project: "prj_a", Slug: "atomic", Members: ms, Now: t0}); err == nil {
		t.Fatal("AddMembers with an empty mint succeeded")
	}
	wantMembers(t, s, "atomic", liststest.Mint(0))
	if listsVersion(t, s, storage.TopicLists) != v {
		t.Fatal("failed batch bumped the lists version")
	}
	// Same for a single put.
	if _, _, err := s.PutMember(ctx, lists.PutMemberParams{Project: "prj_a", Slug: "atomic", Mint: "", Rank: ptr(1), Now: t0}); err == nil {
		t.Fatal("PutMember with an empty mint succeeded")
	}
	wantMembers(t, s, "atomic", liststest.Mint(0))
}

func testListsPages(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, clk := newService(t, s, lists.Limits{})
	ctx := context.Background()
	for i := range 5 {
		clk.Add(time.Second)
		l := mustList(t, svc, fmt.Sprintf("prj_%d", i%2), fmt.Sprintf("page-%d", i))
		if i == 2 {
			if _, err := svc.Update(ctx, l.Owner, l.Slug, lists.Patch{Status: ptr(lists.StatusDraft)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	slugs := func(p lists.Page) []string {
		var out []string
		for _, l := range p.Lists {
			out = append(out, l.Slug)
		}
		return out
	}
	for _, tc := range []struct {
		q     lists.Query
		want  []string
		total int
	}{
		{lists.Query{}, []string{"page-0", "page-1", "page-2", "page-3", "page-4"}, 5},
		{lists.Query{Statuses: []string{lists.StatusPublished}, Offset: 1, Limit: 2}, []string{"page-1", "page-3"}, 4},
		{lists.Query{Statuses: []string{lists.StatusPublished}, Offset: 3}, []string{"page-4"}, 4},
		{lists.Query{Statuses: []string{lists.StatusPublished}, Offset: 9}, nil, 4},
		{lists.Query{Owner: "prj_0"}, []string{"page-0", "page-2", "page-4"}, 3},
		{lists.Query{Owner: "prj_0", Statuses: []string{lists.StatusDraft, lists.StatusArchived}}, []string{"page-2"}, 1},
		{lists.Query{Owner: "prj_x"}, nil, 0},
	} {
		p, err := s.ListLists(ctx, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, slugs(p)); d != "" || p.Total != tc.total {
			t.Fatalf("%+v: total %d (want %d), slugs (-want +got):\n%s", tc.q, p.Total, tc.total, d)
		}
	}
	cat, err := svc.Catalog(ctx, 0, 100)
	if err != nil || cat.Total != 4 {
		t.Fatalf("catalog: %+v, %v", cat, err)
	}
	// Member pages are rank ranges.
	for i := 1; i <= 7; i++ {
		mustPut(t, svc, "prj_1", "page-1", liststest.Mint(i), lists.MemberInput{})
	}
	for _, tc := range []struct{ offset, limit, first, n int }{
		{0, 3, 1, 3}, {3, 3, 4, 3}, {6, 3, 7, 1}, {7, 3, 0, 0}, {2, 0, 3, 5}, {-1, 2, 1, 2},
	} {
		l, ms, err := svc.Members(ctx, "page-1", tc.offset, tc.limit)
		if err != nil || l.MemberCount != 7 || len(ms) != tc.n {
			t.Fatalf("Members(%d, %d) = %d members (list %+v), %v; want %d", tc.offset, tc.limit, len(ms), l, err, tc.n)
		}
		if tc.n > 0 && (ms[0].Rank != tc.first || ms[0].Mint != liststest.Mint(tc.first)) {
			t.Fatalf("Members(%d, %d) starts at %+v; want rank %d", tc.offset, tc.limit, ms[0], tc.first)
		}
	}
}

func testListsContaining(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	for _, st := range []string{lists.StatusPublished, lists.StatusUnlisted, lists.StatusDraft} {
		slug := "with-" + st
		if _, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: slug, Name: "x", Status: st}); err != nil {
			t.Fatal(err)
		}
		mustPut(t, svc, "prj_a", slug, liststest.Mint(1), lists.MemberInput{})
	}
	mustList(t, svc, "prj_b", "another")
	mustPut(t, svc, "prj_b", "another", liststest.Mint(1), lists.MemberInput{})
	mustPut(t, svc, "prj_b", "another", liststest.Mint(2), lists.MemberInput{})
	mints := []string{liststest.Mint(1), liststest.Mint(2), liststest.Mint(3)}
	got, err := svc.ListsContaining(ctx, mints)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{liststest.Mint(1): {"another", "with-published"}, liststest.Mint(2): {"another"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("published (-want +got):\n%s", d)
	}
	got, err = s.ListsContaining(ctx, mints, nil)
	if err != nil || len(got[liststest.Mint(1)]) != 4 {
		t.Fatalf("every status: %v, %v", got, err)
	}
	got, err = s.ListsContaining(ctx, nil, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("no mints: %v, %v", got, err)
	}
}

func testListsVersions(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	steps := []struct {
		name string
		do   func() error
	}{
		{"create", func() error {
			_, err := svc.Create(ctx, "prj_a", lists.CreateInput{Slug: "vers", Name: "v"})
			return err
		}},
		{"rename", func() error { _, err := svc.Update(ctx, "prj_a", "vers", lists.Patch{Slug: ptr("vers-2")}); return err }},
		{"status", func() error {
			_, err := svc.Update(ctx, "prj_a", "vers-2", lists.Patch{Status: ptr(lists.StatusDraft)})
			return err
		}},
		{"put", func() error {
			_, _, err := svc.PutMember(ctx, "prj_a", "vers-2", liststest.Mint(1), lists.MemberInput{})
			return err
		}},
		{"bulk", func() error {
			_, err := svc.AddMembers(ctx, "prj_a", "vers-2", []lists.NewMember{{Mint: liststest.Mint(2)}})
			return err
		}},
		{"delete member", func() error { return svc.DeleteMember(ctx, "prj_a", "vers-2", liststest.Mint(1)) }},
		{"delete", func() error { return svc.Delete(ctx, "prj_a", "vers-2") }},
	}
	adv := listsVersion(t, s, storage.TopicAdvisories)
	for _, st := range steps {
		before := listsVersion(t, s, storage.TopicLists)
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if after := listsVersion(t, s, storage.TopicLists); after <= before {
			t.Fatalf("%s: lists version %d -> %d; want an increase", st.name, before, after)
		}
	}
	if listsVersion(t, s, storage.TopicAdvisories) != adv {
		t.Fatal("list writes bumped the advisories version")
	}
}

func testListsSecondHandle(t *testing.T, h Harness) {
	s, another := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	mustList(t, svc, "prj_a", "shared")
	mustPut(t, svc, "prj_a", "shared", liststest.Mint(1), lists.MemberInput{})
	s2 := another()
	svc2, _ := newService(t, s2, lists.Limits{})
	mustPut(t, svc2, "prj_a", "shared", liststest.Mint(2), lists.MemberInput{Rank: ptr(1)})
	wantMembers(t, s, "shared", liststest.Mint(2), liststest.Mint(1))
	_, err := svc2.Create(context.Background(), "prj_b", lists.CreateInput{Slug: "shared", Name: "x"})
	wantCode(t, "create through a second handle", err, lists.CodeSlugConflict)
}

// testListsRace runs 50 writers creating one slug and, at the same time,
// 50 writers putting, moving, bulk-adding and deleting members of one list
// (each on its own mints, so the end state is known). Exactly one create
// wins; every acknowledged member write is in the end state; ranks are
// dense and unique.
func testListsRace(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	mustList(t, svc, "prj_owner", "race-members")
	const writers = 50
	mintOf := func(w, k int) string { return liststest.Mint(1000*w + k) }
	var wg sync.WaitGroup
	createErrs := make([]error, writers)
	memberErrs := make([]error, writers)
	start := make(chan struct{})
	for w := range writers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, createErrs[w] = svc.Create(ctx, fmt.Sprintf("prj_%02d", w), lists.CreateInput{Slug: "race-slug", Name: "race"})
		}()
		go func() {
			defer wg.Done()
			<-start
			memberErrs[w] = func() error {
				p := "prj_owner"
				if _, _, err := svc.PutMember(ctx, p, "race-members", mintOf(w, 1), lists.MemberInput{Rank: ptr(w%7 + 1)}); err != nil {
					return fmt.Errorf("put a: %w", err)
				}
				res, err := svc.AddMembers(ctx, p, "race-members", []lists.NewMember{{Mint: mintOf(w, 2)}, {Mint: mintOf(w, 3)}, {Mint: mintOf(w, 1)}})
				if err != nil {
					return fmt.Errorf("bulk: %w", err)
				}
				if len(res.Added) != 2 || len(res.Present) != 1 || len(res.Failed) != 0 {
					return fmt.Errorf("bulk: %+v", res)
				}
				if _, _, err := svc.PutMember(ctx, p, "race-members", mintOf(w, 1), lists.MemberInput{Rank: ptr(1), Note: ptr(fmt.Sprintf("w%d", w))}); err != nil {
					return fmt.Errorf("move a: %w", err)
				}
				if err := svc.DeleteMember(ctx, p, "race-members", mintOf(w, 2)); err != nil {
					return fmt.Errorf("delete b: %w", err)
				}
				if _, _, err := svc.PutMember(ctx, p, "race-members", mintOf(w, 4), lists.MemberInput{Rank: ptr(w%3 + 1)}); err != nil {
					return fmt.Errorf("put d: %w", err)
				}
				if _, _, err := svc.PutMember(ctx, p, "race-members", mintOf(w, 3), lists.MemberInput{Rank: ptr(1000)}); err != nil {
					return fmt.Errorf("move c: %w", err)
				}
				return nil
			}()
		}()
	}
	close(start)
	wg.Wait()
	winners := 0
	for w, err := range createErrs {
		switch {
		case err == nil:
			winners++
		case lists.Code(err) != lists.CodeSlugConflict:
			t.Fatalf("create %d: %v; want nil or slug_conflict", w, err)
		}
	}
	if winners != 1 {
		t.Fatalf("%d creates of one slug succeeded; want exactly 1", winners)
	}
	p, err := s.ListLists(ctx, lists.Query{})
	if err != nil || p.Total != 2 {
		t.Fatalf("lists after the race: %d, %v; want 2", p.Total, err)
	}
	if err := errors.Join(memberErrs...); err != nil {
		t.Fatalf("member writers: %v", err)
	}
	order := members(t, s, "race-members") // dense, unique, count matches
	want := map[string]bool{}
	for w := range writers {
		want[mintOf(w, 1)], want[mintOf(w, 3)], want[mintOf(w, 4)] = true, true, true
	}
	if len(order) != len(want) {
		t.Fatalf("%d members; want %d", len(order), len(want))
	}
	for _, m := range order {
		if !want[m] {
			t.Fatalf("unexpected member %s (a deleted one?)", m)
		}
	}
	_, ms, _ := s.Members(ctx, "race-members", 0, 0)
	notes := 0
	for _, m := range ms {
		if m.Note != "" {
			notes++
		}
	}
	if notes != writers {
		t.Fatalf("%d notes survived; want %d", notes, writers)
	}
}

func testListsFill(t *testing.T, h Harness) {
	if testing.Short() {
		t.Skip("fills 50,000 members")
	}
	s, _ := h.Fresh(t)
	ctx := context.Background()
	spec := liststest.FillSpec{Owner: "prj_fill", Lists: 10, Members: 5000, Overlap: 1000, Now: t0}
	begin := time.Now()
	ls, err := liststest.Fill(ctx, s, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("filled %d lists x %d members in %v", spec.Lists, spec.Members, time.Since(begin))
	if len(ls) != 10 {
		t.Fatalf("%d lists", len(ls))
	}
	for j, l := range ls {
		if l.MemberCount != 5000 {
			t.Fatalf("%s: %d members", l.Slug, l.MemberCount)
		}
		_, ms, err := s.Members(ctx, l.Slug, 4990, 100)
		if err != nil || len(ms) != 10 || ms[9].Rank != 5000 || ms[9].Mint != spec.FillMint(j, 5000) {
			t.Fatalf("%s tail: %d members, %v", l.Slug, len(ms), err)
		}
	}
	in, err := s.ListsContaining(ctx, []string{spec.FillMint(1, 1)}, nil)
	if err != nil || len(in[spec.FillMint(1, 1)]) != 2 {
		t.Fatalf("overlap: %v, %v; want the mint in 2 lists", in, err)
	}
	if len(members(t, s, ls[9].Slug)) != 5000 {
		t.Fatal("dense check")
	}
}

func testAdvisories(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	c := &clock{t: t0}
	adv := lists.NewAdvisories(s, c.Now)
	ctx := context.Background()
	v := listsVersion(t, s, storage.TopicAdvisories)
	lv := listsVersion(t, s, storage.TopicLists)
	url := "https://status.example/incident"
	a, err := adv.Set(ctx, "MintB", asset.AdvisoryCompromised, "drained", &url, "ops@example")
	if err != nil {
		t.Fatal(err)
	}
	want := lists.Advisory{Mint: "MintB", Advisory: asset.Advisory{Status: "compromised", Reason: "drained", URL: &url, Since: storage.Ms(t0)},
		SetBy: "ops@example", UpdatedAt: storage.Ms(t0)}
	if d := cmp.Diff(want, a); d != "" {
		t.Fatalf("Set (-want +got):\n%s", d)
	}
	if _, err := adv.Set(ctx, "MintA", asset.AdvisoryCaution, "new listing", ptr(""), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := adv.Set(ctx, "MintC", asset.AdvisoryBlocked, "scam", nil, ""); err != nil {
		t.Fatal(err)
	}
	_, err = adv.Set(ctx, "MintD", "suspicious", "x", nil, "")
	wantCode(t, "unknown advisory status", err, lists.CodeInvalidStatus)
	_, err = adv.Set(ctx, " ", asset.AdvisoryCaution, "x", nil, "")
	wantCode(t, "empty mint", err, lists.CodeInvalidMint)
	got, err := s.GetAdvisory(ctx, "MintB")
	if d := cmp.Diff(want, got); d != "" || err != nil {
		t.Fatalf("GetAdvisory (-want +got):\n%s %v", d, err)
	}
	all, err := adv.List(ctx)
	if err != nil || len(all) != 3 || all[0].Mint != "MintA" || all[2].Mint != "MintC" || all[0].URL != nil {
		t.Fatalf("List: %+v, %v", all, err)
	}
	snap, err := adv.Snapshot(ctx)
	wantSnap := map[string]asset.Advisory{
		"MintA": {Status: "caution", Reason: "new listing", Since: storage.Ms(t0)},
		"MintB": want.Advisory,
		"MintC": {Status: "blocked", Reason: "scam", Since: storage.Ms(t0)},
	}
	if d := cmp.Diff(wantSnap, snap); d != "" || err != nil {
		t.Fatalf("Snapshot (-want +got):\n%s %v", d, err)
	}
	if err := adv.Clear(ctx, "MintA"); err != nil {
		t.Fatal(err)
	}
	wantIs(t, "clear twice", adv.Clear(ctx, "MintA"), storage.ErrNotFound)
	_, err = s.GetAdvisory(ctx, "MintA")
	wantIs(t, "get cleared", err, storage.ErrNotFound)
	if got := listsVersion(t, s, storage.TopicAdvisories); got != v+4 {
		t.Fatalf("advisories version moved %d; want 4 (3 sets, 1 clear)", got-v)
	}
	if listsVersion(t, s, storage.TopicLists) != lv {
		t.Fatal("advisory writes bumped the lists version")
	}
}

func testAdvisoriesSince(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	c := &clock{t: t0}
	adv := lists.NewAdvisories(s, c.Now)
	ctx := context.Background()
	if _, err := adv.Set(ctx, "MintX", asset.AdvisoryCaution, "watch", nil, ""); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Hour)
	// Same status, new reason and url: since stays.
	a, err := adv.Set(ctx, "MintX", asset.AdvisoryCaution, "still watching", ptr("https://x"), "")
	if err != nil || a.Since != storage.Ms(t0) || a.UpdatedAt != storage.Ms(t0.Add(time.Hour)) || a.Reason != "still watching" {
		t.Fatalf("same status: %+v, %v", a, err)
	}
	c.Add(time.Hour)
	// New status: since restarts.
	a, err = adv.Set(ctx, "MintX", asset.AdvisoryBlocked, "confirmed", nil, "")
	if err != nil || a.Since != storage.Ms(t0.Add(2*time.Hour)) || a.URL != nil || a.Status != "blocked" {
		t.Fatalf("new status: %+v, %v", a, err)
	}
	// Cleared and flagged again: a new since.
	if err := adv.Clear(ctx, "MintX"); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Hour)
	a, err = adv.Set(ctx, "MintX", asset.AdvisoryBlocked, "again", nil, "")
	if err != nil || a.Since != storage.Ms(t0.Add(3*time.Hour)) {
		t.Fatalf("re-flag: %+v, %v", a, err)
	}
}
