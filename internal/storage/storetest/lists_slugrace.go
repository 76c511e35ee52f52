package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/assetd/assetd/internal/lists"
)

// Issue 12 item 14: a create and a rename racing for one slug have one
// winner; the loser gets slug_conflict (400), never an internal error
// (PostgreSQL used to deadlock into a 500 in some rounds).
func testListsSlugCreateRenameRace(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	svc, _ := newService(t, s, lists.Limits{})
	ctx := context.Background()
	const rounds = 40
	for i := range rounds {
		src, target := fmt.Sprintf("race-src-%02d", i), fmt.Sprintf("race-dst-%02d", i)
		mustList(t, svc, "prj_rename", src)
		var createErr, renameErr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, createErr = svc.Create(ctx, "prj_create", lists.CreateInput{Slug: target, Name: "created"})
		}()
		go func() {
			defer wg.Done()
			<-start
			_, renameErr = svc.Update(ctx, "prj_rename", src, lists.Patch{Slug: &target})
		}()
		close(start)
		wg.Wait()
		for what, err := range map[string]error{"create": createErr, "rename": renameErr} {
			if err != nil && lists.Code(err) != lists.CodeSlugConflict {
				t.Fatalf("round %d: %s: %v; want nil or slug_conflict", i, what, err)
			}
		}
		if (createErr == nil) == (renameErr == nil) {
			t.Fatalf("round %d: create %v, rename %v; want exactly one winner", i, createErr, renameErr)
		}
		l, err := s.GetList(ctx, target)
		if err != nil {
			t.Fatalf("round %d: the winner's slug does not resolve: %v", i, err)
		}
		if want := map[bool]string{true: "prj_create", false: "prj_rename"}[createErr == nil]; l.Owner != want {
			t.Fatalf("round %d: %s owned by %s; want %s", i, target, l.Owner, want)
		}
	}
}
