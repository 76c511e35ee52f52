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
	"github.com/assetd/assetd/internal/storage"
)

// AdvisoryFeedTests are the advisory feed's conformance tests (run by Run).
var AdvisoryFeedTests = []struct {
	Name string
	Fn   func(*testing.T, Harness)
}{
	{"AdvisoryFeedEvents", testAdvisoryFeedEvents},
	{"AdvisoryFeedOwned", testAdvisoryFeedOwned},
	{"AdvisoryFeedConcurrentExactlyOnce", testAdvisoryFeedConcurrent},
	{"AdvisoryReports", testAdvisoryReports},
}

func feedAll(t *testing.T, s Store) []lists.AdvisoryEvent {
	t.Helper()
	var out []lists.AdvisoryEvent
	var since int64
	for {
		page, err := s.AdvisoryEvents(context.Background(), since, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		since = page[len(page)-1].Cursor
	}
}

func testAdvisoryFeedEvents(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	c := &clock{t: t0}
	adv := lists.NewAdvisories(s, c.Now)
	ctx := context.Background()
	must := func(_ lists.Advisory, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(adv.Set(ctx, "MintF", asset.AdvisoryCaution, "watch", nil, "ops"))
	c.Add(time.Minute)
	must(adv.Set(ctx, "MintF", asset.AdvisoryCaution, "watch", nil, "ops")) // identical: no event
	c.Add(time.Minute)
	must(adv.Set(ctx, "MintF", asset.AdvisoryBlocked, "scam", nil, "ops"))
	c.Add(time.Minute)
	if err := adv.Clear(ctx, "MintF"); err != nil {
		t.Fatal(err)
	}
	if err := s.ClearAdvisory(ctx, "MintF"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("ClearAdvisory of an unflagged mint: %v, want storage.ErrNotFound", err)
	}
	evs := feedAll(t, s)
	type ev struct {
		action, status, reason string
		at                     int64
	}
	var got []ev
	for i, e := range evs {
		if i > 0 && e.Cursor <= evs[i-1].Cursor {
			t.Fatalf("cursor %d after %d", e.Cursor, evs[i-1].Cursor)
		}
		if e.Mint != "MintF" || e.Source() != lists.SourceOperator {
			t.Fatalf("event %+v", e)
		}
		got = append(got, ev{e.Action, e.Status, e.Reason, e.At})
	}
	want := []ev{
		{lists.ActionSet, "caution", "watch", storage.Ms(t0)},
		{lists.ActionChanged, "blocked", "scam", storage.Ms(t0.Add(2 * time.Minute))},
		{lists.ActionLifted, "blocked", "scam", storage.Ms(t0.Add(3 * time.Minute))},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	// A page after the last cursor is empty; limit bounds a page.
	if evs2, _, err := adv.Events(ctx, evs[2].Cursor, 10); err != nil || len(evs2) != 0 {
		t.Fatalf("after last: %v %v", evs2, err)
	}
	if evs2, next, err := adv.Events(ctx, 0, 2); err != nil || len(evs2) != 2 || next != evs[1].Cursor {
		t.Fatalf("limit 2: %v next %d %v", evs2, next, err)
	}
}

func testAdvisoryFeedOwned(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	c := &clock{t: t0}
	adv := lists.NewAdvisories(s, c.Now)
	ctx := context.Background()
	// The guard flags an unflagged mint and may update its own flag.
	if _, ok, err := adv.SetOwned(ctx, "MintG", asset.AdvisoryCaution, "depeg", nil, lists.SetByDepegGuard); err != nil || !ok {
		t.Fatalf("guard set: %v %v", ok, err)
	}
	if _, ok, err := adv.SetOwned(ctx, "MintG", asset.AdvisoryCaution, "depeg worse", nil, lists.SetByDepegGuard); err != nil || !ok {
		t.Fatalf("guard update: %v %v", ok, err)
	}
	// An operator takes over: the guard can neither change nor lift it.
	if _, err := adv.Set(ctx, "MintG", asset.AdvisoryCompromised, "exploit", nil, "ops"); err != nil {
		t.Fatal(err)
	}
	if a, ok, err := adv.SetOwned(ctx, "MintG", asset.AdvisoryCaution, "depeg", nil, lists.SetByDepegGuard); err != nil || ok || a.Status != asset.AdvisoryCompromised {
		t.Fatalf("guard over operator: %+v %v %v", a, ok, err)
	}
	if ok, err := adv.LiftOwned(ctx, "MintG", lists.SetByDepegGuard); err != nil || ok {
		t.Fatalf("guard lift of operator flag: %v %v", ok, err)
	}
	if a, err := s.GetAdvisory(ctx, "MintG"); err != nil || a.Status != asset.AdvisoryCompromised || a.SetBy != "ops" {
		t.Fatalf("after guard attempts: %+v %v", a, err)
	}
	evs := feedAll(t, s)
	var sources []string
	for _, e := range evs {
		sources = append(sources, e.Action+"/"+e.Source())
	}
	if want := "[set/depeg_guard changed/depeg_guard changed/operator]"; fmt.Sprint(sources) != want {
		t.Fatalf("events %v, want %s", sources, want)
	}
}

// testAdvisoryFeedConcurrent: two store handles (two processes) make 500
// advisory changes each, interleaved on shared mints, while a cursor
// client follows the feed and restarts twice (a new handle resuming from
// its last cursor). The client sees every change exactly once, in each
// writer's order, with strictly increasing cursors, and exactly the
// feed's final content. On PostgreSQL a reader following cursor > since
// would skip events if cursors could commit out of order.
func testAdvisoryFeedConcurrent(t *testing.T, h Harness) {
	s, open2 := h.Fresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const writers, perWriter = 2, 500
	handles := []Store{s, open2()}
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := range writers {
		wg.Add(1)
		go func(w int, st Store) {
			defer wg.Done()
			for k := 0; k < perWriter; {
				id := int64(w*1_000_000 + k) // the event's At names writer and step
				mint := fmt.Sprintf("FeedMint%d", k%7)
				if k%4 == 3 {
					_, err := st.LiftAdvisory(ctx, mint, "", id)
					if err != nil && !errors.Is(err, storage.ErrNotFound) {
						errs <- err
						return
					}
					if err != nil { // not flagged (the other writer lifted it): flag it instead
						if _, _, err := st.SetAdvisoryOwned(ctx, lists.Advisory{Mint: mint, Advisory: asset.Advisory{Status: asset.AdvisoryCaution, Reason: fmt.Sprintf("w%d-%d", w, k), Since: id}, SetBy: "w", UpdatedAt: id}, ""); err != nil {
							errs <- err
							return
						}
					}
				} else {
					status := lists.AdvisoryStatuses[k%3]
					if _, _, err := st.SetAdvisoryOwned(ctx, lists.Advisory{Mint: mint, Advisory: asset.Advisory{Status: status, Reason: fmt.Sprintf("w%d-%d", w, k), Since: id}, SetBy: "w", UpdatedAt: id}, ""); err != nil {
						errs <- err
						return
					}
				}
				k++
			}
		}(w, handles[w])
	}
	// The cursor client: three lives (two restarts), each on its own
	// handle, resuming from the cursor the previous one persisted.
	var seen []lists.AdvisoryEvent
	var cursor int64
	stops := []int{300, 700, writers * perWriter}
	for life, stop := range stops {
		st := s
		if life > 0 {
			st = open2()
		}
		tick := time.NewTicker(time.Millisecond)
		for len(seen) < stop {
			page, err := st.AdvisoryEvents(ctx, cursor, 37)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				select {
				case <-ctx.Done():
					t.Fatalf("life %d: saw %d events: %v", life, len(seen), ctx.Err())
				case err := <-errs:
					t.Fatal(err)
				case <-tick.C:
				}
				continue
			}
			for _, e := range page {
				if len(seen) == stop {
					break // the process "dies" before handling the rest
				}
				seen = append(seen, e)
				cursor = e.Cursor
			}
		}
		tick.Stop()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	next := make([]int64, writers)
	for i, e := range seen {
		if i > 0 && e.Cursor <= seen[i-1].Cursor {
			t.Fatalf("event %d: cursor %d after %d", i, e.Cursor, seen[i-1].Cursor)
		}
		w, k := e.At/1_000_000, e.At%1_000_000
		if w < 0 || w >= writers || k != next[w] {
			t.Fatalf("event %d (cursor %d): writer %d step %d, want step %d (a change skipped, repeated or reordered)", i, e.Cursor, w, k, next[w])
		}
		next[w]++
	}
	for w, n := range next {
		if n != perWriter {
			t.Fatalf("writer %d: %d changes seen, want %d", w, n, perWriter)
		}
	}
	final := feedAll(t, s)
	if len(final) != len(seen) {
		t.Fatalf("feed holds %d events, client saw %d", len(final), len(seen))
	}
	for i := range final {
		if final[i].Cursor != seen[i].Cursor || final[i].At != seen[i].At {
			t.Fatalf("event %d: feed %+v, client saw %+v", i, final[i], seen[i])
		}
	}
	if more, err := s.AdvisoryEvents(ctx, cursor, 10); err != nil || len(more) != 0 {
		t.Fatalf("after the last change: %d more events, %v", len(more), err)
	}
}

func testAdvisoryReports(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	c := &clock{t: t0}
	rs := lists.NewReports(s, c.Now)
	ctx := context.Background()
	r1, err := rs.File(ctx, "prj_a", "key_a", lists.ReportInput{Mint: "MintR", Kind: "impersonation", ClaimedAsset: "usdc", EvidenceURL: "https://x.example/thread", Note: "fake USDC\nsee thread"})
	if err != nil {
		t.Fatal(err)
	}
	c.Add(time.Minute)
	r2, err := rs.File(ctx, "prj_b", "key_b", lists.ReportInput{Mint: "MintS", Kind: "scam"})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		in         lists.ReportInput
		code, para string
	}{
		{lists.ReportInput{Mint: "", Kind: "scam"}, lists.CodeInvalidMint, "mint"},
		{lists.ReportInput{Mint: "M", Kind: "rugpull"}, "invalid_param", "kind"},
		{lists.ReportInput{Mint: "M", Kind: "scam", EvidenceURL: "javascript:alert(1)"}, "invalid_param", "evidenceUrl"},
		{lists.ReportInput{Mint: "M", Kind: "scam", ClaimedAsset: "us\u202edc"}, "invalid_param", "claimedAsset"},
		{lists.ReportInput{Mint: "M", Kind: "scam", Note: strings.Repeat("x", lists.ReportNoteLen+1)}, lists.CodeInvalidNote, "note"},
	} {
		_, err := rs.File(ctx, "p", "k", bad.in)
		var fe *lists.FieldError
		if !errors.As(err, &fe) || fe.Code != bad.code || fe.Param != bad.para {
			t.Errorf("%+v: %v, want %s on %s", bad.in, err, bad.code, bad.para)
		}
	}
	got, err := s.GetReport(ctx, r1.ID)
	if err != nil || got != r1 || got.Status != lists.ReportPending || got.Note != "fake USDC\nsee thread" {
		t.Fatalf("GetReport: %+v %v, want %+v", got, err, r1)
	}
	if all, err := rs.List(ctx, lists.ReportPending); err != nil || len(all) != 2 || all[0].ID != r1.ID {
		t.Fatalf("pending: %+v %v", all, err)
	}
	v := listsVersion(t, s, storage.TopicAdvisories)
	c.Add(time.Minute)
	acc, err := rs.Accept(ctx, r1.ID, asset.AdvisoryBlocked, "", "ops")
	if err != nil || acc.Status != lists.ReportAccepted || acc.Resolution != "blocked" || acc.ResolvedBy != "ops" || acc.ResolvedAt != storage.Ms(t0.Add(2*time.Minute)) {
		t.Fatalf("accept: %+v %v", acc, err)
	}
	a, err := s.GetAdvisory(ctx, "MintR")
	if err != nil || a.Status != asset.AdvisoryBlocked || a.SetBy != lists.ReportSetter(r1.ID) || a.URL == nil || *a.URL != "https://x.example/thread" ||
		!strings.Contains(a.Reason, "impersonation of usdc") {
		t.Fatalf("advisory of the accepted report: %+v %v", a, err)
	}
	if nv := listsVersion(t, s, storage.TopicAdvisories); nv <= v {
		t.Fatalf("advisories version %d after accept, was %d: the change does not propagate", nv, v)
	}
	evs := feedAll(t, s)
	if len(evs) != 1 || evs[0].Source() != lists.SourceReport || evs[0].Status != "blocked" {
		t.Fatalf("feed: %+v", evs)
	}
	if _, err := rs.Accept(ctx, r1.ID, asset.AdvisoryCaution, "", "ops"); !errors.Is(err, lists.ErrReportResolved) {
		t.Fatalf("second accept: %v", err)
	}
	if _, err := rs.Reject(ctx, r1.ID, "", "ops"); !errors.Is(err, lists.ErrReportResolved) {
		t.Fatalf("reject after accept: %v", err)
	}
	rej, err := rs.Reject(ctx, r2.ID, "not a scam", "ops")
	if err != nil || rej.Status != lists.ReportRejected || rej.ResolutionNote != "not a scam" {
		t.Fatalf("reject: %+v %v", rej, err)
	}
	if _, err := s.GetAdvisory(ctx, "MintS"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("a rejected report set an advisory: %v", err)
	}
	if _, err := rs.Accept(ctx, "rep_missing", asset.AdvisoryBlocked, "", "ops"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("unknown report: %v", err)
	}
	if all, err := rs.List(ctx, ""); err != nil || len(all) != 2 {
		t.Fatalf("all: %+v %v", all, err)
	}
	if pend, err := rs.List(ctx, lists.ReportPending); err != nil || len(pend) != 0 {
		t.Fatalf("pending after resolving: %+v %v", pend, err)
	}
}
