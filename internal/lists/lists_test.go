package lists_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
	"github.com/google/go-cmp/cmp"
)

func TestCheckSlug(t *testing.T) {
	for _, tc := range []struct {
		slug, code string
	}{
		{"abc", ""},
		{"my-list-2", ""},
		{"a" + strings.Repeat("z", 62), ""},
		{"ab", lists.CodeInvalidSlug},
		{"a" + strings.Repeat("z", 63), lists.CodeInvalidSlug},
		{"9abc", lists.CodeInvalidSlug},
		{"aBc", lists.CodeInvalidSlug},
		{"ab.c", lists.CodeInvalidSlug},
		{"all", lists.CodeReservedSlug},
		{"stocks", lists.CodeReservedSlug},
		{"search-tokens", lists.CodeReservedSlug},
		{"curated", lists.CodeReservedSlug},
		{"lists", lists.CodeReservedSlug},
		{"tokens", lists.CodeReservedSlug},
	} {
		if got := lists.Code(lists.CheckSlug(tc.slug)); got != tc.code {
			t.Errorf("CheckSlug(%q) code %q; want %q", tc.slug, got, tc.code)
		}
	}
}

func TestLimits(t *testing.T) {
	if d := cmp.Diff(lists.DefaultLimits(), lists.Limits{}.WithDefaults()); d != "" {
		t.Fatalf("zero limits (-want +got):\n%s", d)
	}
	l := lists.Limits{MembersPerList: 7}.WithDefaults()
	if l.MembersPerList != 7 || l.ListsPerProject != 100 || l.BatchSize != 250 || l.SlugHold != 30*24*time.Hour {
		t.Fatalf("WithDefaults: %+v", l)
	}
	if err := (lists.Limits{BatchSize: -1}).Validate(); err == nil {
		t.Fatal("negative limit accepted")
	}
	if _, err := lists.New(nil, lists.Limits{NoteLen: -1}, nil); err == nil {
		t.Fatal("New accepted a negative limit")
	}
}

func TestPlanAdd(t *testing.T) {
	ms := []lists.NewMember{{Mint: "a"}, {Mint: "b"}, {Mint: "a"}, {Mint: "c"}, {Mint: "d"}}
	added, present, failed := lists.PlanAdd(ms, map[string]bool{"b": true}, 3, 5, 42)
	want := []lists.Member{{Mint: "a", Rank: 4, AddedAt: 42}, {Mint: "c", Rank: 5, AddedAt: 42}}
	if d := cmp.Diff(want, added); d != "" {
		t.Fatalf("added (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b", "a"}, present); d != "" {
		t.Fatalf("present (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]lists.Failure{{Mint: "d", Code: lists.CodeListFull}}, failed); d != "" {
		t.Fatalf("failed (-want +got):\n%s", d)
	}
	if added, _, failed := lists.PlanAdd(ms, nil, 0, 0, 1); len(added) != 4 || failed != nil {
		t.Fatalf("no cap: added %d, failed %v", len(added), failed)
	}
}

func TestRuleErrorCode(t *testing.T) {
	err := fmt.Errorf("sqlite: create: %w", lists.SlugConflict("x"))
	if lists.Code(err) != lists.CodeSlugConflict || lists.Code(errors.New("x")) != "" || lists.Code(nil) != "" {
		t.Fatal("Code does not see through wrapping")
	}
	var re *lists.RuleError
	if !errors.As(err, &re) || re.Message == "" {
		t.Fatal("RuleError without message")
	}
}

func TestListVisibility(t *testing.T) {
	for _, tc := range []struct {
		status           string
		readable, listed bool
	}{
		{lists.StatusDraft, false, false},
		{lists.StatusUnlisted, true, false},
		{lists.StatusPublished, true, true},
		{lists.StatusArchived, false, false},
	} {
		l := lists.List{Status: tc.status}
		if l.Readable() != tc.readable || l.Listed() != tc.listed {
			t.Errorf("%s: readable %v listed %v", tc.status, l.Readable(), l.Listed())
		}
	}
}

// refusing is a Store that fails the test when called: input the Service
// rejects must never reach the database.
type refusing struct {
	lists.Store
	t *testing.T
}

func (r refusing) CreateList(context.Context, lists.CreateParams) (lists.List, error) {
	r.t.Fatal("CreateList reached the store")
	return lists.List{}, nil
}

func (r refusing) UpdateList(context.Context, lists.UpdateParams) (lists.List, error) {
	r.t.Fatal("UpdateList reached the store")
	return lists.List{}, nil
}

func (r refusing) PutMember(context.Context, lists.PutMemberParams) (lists.Member, bool, error) {
	r.t.Fatal("PutMember reached the store")
	return lists.Member{}, false, nil
}

func (r refusing) AddMembers(context.Context, lists.AddMembersParams) (lists.AddResult, error) {
	r.t.Fatal("AddMembers reached the store")
	return lists.AddResult{}, nil
}

func (r refusing) DeleteList(context.Context, string, string) error {
	r.t.Fatal("DeleteList reached the store")
	return nil
}

func (r refusing) GetList(context.Context, string) (lists.List, error) {
	r.t.Fatal("GetList reached the store")
	return lists.List{}, nil
}

func TestServiceRejectsBeforeStore(t *testing.T) {
	svc, err := lists.New(refusing{t: t}, lists.Limits{BatchSize: 2, NameLen: 5, NoteLen: 3}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name string
		err  error
		code string
		is   error
	}{
		{"bad slug", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "A", Name: "n"})), lists.CodeInvalidSlug, nil},
		{"reserved", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "majors", Name: "n"})), lists.CodeReservedSlug, nil},
		{"long name", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "abc", Name: "toolong"})), lists.CodeInvalidName, nil},
		{"name with a bidi override", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "abc", Name: "ab\u202ecd"})), lists.CodeInvalidName, nil},
		{"name with a bidi isolate", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "abc", Name: "a\u2066b"})), lists.CodeInvalidName, nil},
		{"name with a zero-width space", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "abc", Name: "a\u200bb"})), lists.CodeInvalidName, nil},
		{"name with a noncharacter", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "abc", Name: "a\uffffb"})), lists.CodeInvalidName, nil},
		{"rename with a bidi override", second(svc.Update(ctx, "p", "abc", lists.Patch{Name: s("\u202eab")})), lists.CodeInvalidName, nil},
		{"archived create", second(svc.Create(ctx, "p", lists.CreateInput{Slug: "abc", Name: "n", Status: "archived"})), lists.CodeInvalidStatus, nil},
		{"no project", second(svc.Create(ctx, "", lists.CreateInput{Slug: "abc", Name: "n"})), "", lists.ErrForbidden},
		{"bad status", second(svc.Update(ctx, "p", "abc", lists.Patch{Status: s("gone")})), lists.CodeInvalidStatus, nil},
		{"bad rename", second(svc.Update(ctx, "p", "abc", lists.Patch{Slug: s("all")})), lists.CodeReservedSlug, nil},
		{"update unknown slug", second(svc.Update(ctx, "p", "A!", lists.Patch{})), "", storage.ErrNotFound},
		{"delete reserved slug", svc.Delete(ctx, "p", "rwas"), "", storage.ErrNotFound},
		{"get bad slug", second(svc.Get(ctx, "x")), "", storage.ErrNotFound},
		{"long note", third(svc.PutMember(ctx, "p", "abc", "mint", lists.MemberInput{Note: s("four")})), lists.CodeInvalidNote, nil},
		{"bad mint", third(svc.PutMember(ctx, "p", "abc", "has space", lists.MemberInput{})), lists.CodeInvalidMint, nil},
		{"too many", second(svc.AddMembers(ctx, "p", "abc", []lists.NewMember{{Mint: "a"}, {Mint: "b"}, {Mint: "c"}})), lists.CodeBatchTooLarge, nil},
	} {
		if tc.is != nil {
			if !errors.Is(tc.err, tc.is) {
				t.Errorf("%s: %v; want %v", tc.name, tc.err, tc.is)
			}
			continue
		}
		if got := lists.Code(tc.err); got != tc.code {
			t.Errorf("%s: %v (code %q); want %q", tc.name, tc.err, got, tc.code)
		}
	}
}

func second[A any](_ A, err error) error { return err }

func third[A, B any](_ A, _ B, err error) error { return err }
