package news

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/google/go-cmp/cmp"
)

// fakeSource answers Fetch with fixed items or an error, or blocks until
// release is closed, ignoring its context (the worst upstream).
type fakeSource struct {
	name, fs string
	items    []Item
	err      error
	block    chan struct{} // non-nil: Fetch blocks until closed
	entered  chan struct{} // closed when a blocking Fetch started
	once     sync.Once
}

func (f *fakeSource) Name() string       { return f.name }
func (f *fakeSource) FeedSource() string { return f.fs }
func (f *fakeSource) Fetch(ctx context.Context) ([]Item, error) {
	if f.block != nil {
		f.once.Do(func() { close(f.entered) })
		<-f.block
		return nil, errors.New("released")
	}
	return f.items, f.err
}

// fakeClock is a settable clock.
type fakeClock struct{ ns atomic.Int64 }

func newClock(t time.Time) *fakeClock        { c := &fakeClock{}; c.ns.Store(t.UnixNano()); return c }
func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// builtObserver signals every published snapshot.
type builtObserver struct {
	built   chan [2]int
	fetched sync.Map
}

func (o *builtObserver) Fetched(fs, outcome string) {
	v, _ := o.fetched.LoadOrStore(fs+"/"+outcome, new(atomic.Int32))
	v.(*atomic.Int32).Add(1)
}
func (o *builtObserver) Deduplicated(reason string, n int) {
	v, _ := o.fetched.LoadOrStore("dup/"+reason, new(atomic.Int32))
	v.(*atomic.Int32).Add(int32(n))
}
func (o *builtObserver) Built(n, s int) {
	select {
	case o.built <- [2]int{n, s}:
	default:
	}
}

// never is an After that never fires: each source is polled once.
func never(time.Duration) <-chan time.Time { return nil }

func waitBuilt(t *testing.T, o *builtObserver, want [2]int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-o.built:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("no snapshot with %v items", want)
		}
	}
}

func TestServiceHangingSourceDelaysNobody(t *testing.T) {
	clock := newClock(t0.Add(time.Hour))
	hang := &fakeSource{name: "https://hang.example.test/rss", fs: FeedNews, block: make(chan struct{}), entered: make(chan struct{})}
	ok := &fakeSource{name: "https://ok.example.test/rss", fs: FeedNews, items: []Item{
		{Title: "Bitcoin climbs", URL: "https://ok.example.test/1?utm_source=rss", PostedAt: t0},
		{Title: "Solana update", URL: "https://ok.example.test/2", PostedAt: t0.Add(time.Minute)},
	}}
	obs := &builtObserver{built: make(chan [2]int, 16)}
	s := New(Config{Sources: []Source{hang, ok}, Disabled: []string{FeedSocial}, Assets: testAssets(), Now: clock.Now,
		After: never, FetchTimeout: 30 * time.Second, Observer: obs})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); close(hang.block); <-done })

	waitBuilt(t, obs, [2]int{2, 0})
	<-hang.entered
	r := s.Snapshot().Feed(Query{Limit: 10, Select: SelectAll, Reserve: 3})
	if d := cmp.Diff([]string{"Solana update", "Bitcoin climbs"}, titles(r.Items)); d != "" {
		t.Fatalf("feed while a source hangs (-want +got):\n%s", d)
	}
	if it := r.Items[1]; it.URL != "https://ok.example.test/1?utm_source=rss" || it.CanonicalURL != "https://ok.example.test/1" ||
		!cmp.Equal(it.RelatedCoinIDs, []string{"bitcoin"}) || it.FeedSource != FeedNews || it.Source != ok.name || !it.FirstSeen.Equal(clock.Now()) {
		t.Errorf("ingested item: %+v", it)
	}
	status := func() map[string]string {
		m := map[string]string{}
		for _, st := range s.Sources() {
			m[st.Name] = st.Status + "/" + st.Reason
		}
		return m
	}
	want := map[string]string{hang.name: "degraded/never_fetched", ok.name: "ok/", FeedSocial: "disabled/"}
	if d := cmp.Diff(want, status()); d != "" {
		t.Errorf("health (-want +got):\n%s", d)
	}
	clock.Advance(31 * time.Second) // past the fetch timeout, still hanging
	want[hang.name] = "degraded/running_too_long"
	if d := cmp.Diff(want, status()); d != "" {
		t.Errorf("health after the timeout (-want +got):\n%s", d)
	}
}

func TestServiceFailureAndBackoff(t *testing.T) {
	clock := newClock(t0)
	bad := &fakeSource{name: "bad", fs: FeedSocial, err: fmt.Errorf("x: %w", &market.RateLimitedError{RetryAfter: 3 * time.Hour})}
	obs := &builtObserver{built: make(chan [2]int, 1)}
	s := New(Config{Sources: []Source{bad}, Now: clock.Now, After: never, Observer: obs})
	wait := s.poll(context.Background(), s.sources[0])
	if wait != 3*time.Hour {
		t.Errorf("wait after a 429 with Retry-After 3h: %v", wait)
	}
	st := s.Sources()[0]
	if st.Status != StatusDegraded || st.Reason != "rate_limited" || !st.LastSuccess.IsZero() {
		t.Errorf("status: %+v", st)
	}
	if v, ok := obs.fetched.Load(FeedSocial + "/rate_limited"); !ok || v.(*atomic.Int32).Load() != 1 {
		t.Error("fetch outcome not observed")
	}
	for _, tt := range []struct {
		fails int
		err   error
		want  time.Duration
	}{
		{0, nil, DefaultInterval},
		{1, errors.New("x"), time.Minute},
		{2, errors.New("x"), 2 * time.Minute},
		{7, errors.New("x"), time.Hour},
		{40, errors.New("x"), time.Hour},
		{1, &market.RateLimitedError{RetryAfter: 10 * time.Minute}, 10 * time.Minute},
		{1, &market.RateLimitedError{RetryAfter: 100 * time.Hour}, 24 * time.Hour},
	} {
		if got := s.backoff(tt.fails, tt.err); got != tt.want {
			t.Errorf("backoff(%d, %v) = %v, want %v", tt.fails, tt.err, got, tt.want)
		}
	}
	// Not modified keeps the source healthy and ingests nothing.
	bad.err = ErrNotModified
	if wait := s.poll(context.Background(), s.sources[0]); wait != DefaultInterval {
		t.Errorf("wait after 304: %v", wait)
	}
	if st := s.Sources()[0]; st.Status != StatusOK || !st.LastSuccess.Equal(t0) {
		t.Errorf("after 304: %+v", st)
	}
	for err, want := range map[error]string{
		context.DeadlineExceeded:                                              "timeout",
		fmt.Errorf("p: %w", market.ErrMalformed):                              "malformed",
		fmt.Errorf("p: %w", market.ErrUpstream):                               "upstream_error",
		fmt.Errorf("p: %w: %w", market.ErrUpstream, context.DeadlineExceeded): "timeout",
	} {
		if got := failureReason(err); got != want {
			t.Errorf("failureReason(%v) = %s, want %s", err, got, want)
		}
	}
}

// memStore is an in-memory Store.
type memStore struct {
	mu   sync.Mutex
	rows map[string]Item
	puts int
}

func (m *memStore) PutNews(_ context.Context, items []Item) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, it := range items {
		if _, ok := m.rows[it.CanonicalURL]; !ok {
			m.rows[it.CanonicalURL] = it
			n++
		}
	}
	m.puts++
	return n, nil
}

func (m *memStore) LoadNews(_ context.Context, since time.Time) ([]Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Item
	for _, it := range m.rows {
		if !it.PostedAt.Before(since) {
			out = append(out, it)
		}
	}
	return out, nil
}

func (m *memStore) PruneNews(_ context.Context, before time.Time) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for k, it := range m.rows {
		if it.PostedAt.Before(before) {
			delete(m.rows, k)
			n++
		}
	}
	return n, nil
}

func TestServiceStoreLoadIngestPrune(t *testing.T) {
	clock := newClock(t0)
	old := item(FeedNews, -20*24*60, "Too old")
	stored := item(FeedNews, -60, "Stored before the restart", "bitcoin")
	st := &memStore{rows: map[string]Item{old.CanonicalURL: old, stored.CanonicalURL: stored}}
	src := &fakeSource{name: "src", fs: FeedNews, items: []Item{
		{Title: "Stored before the restart", URL: stored.URL},                // known URL: not stored again
		{Title: "Fresh solana story", URL: "https://src.example.test/fresh"}, // no date: first seen
		{Title: "From the future", URL: "https://src.example.test/future", PostedAt: t0.Add(time.Hour)},
		{Title: "Ancient", URL: "https://src.example.test/ancient", PostedAt: t0.Add(-15 * 24 * time.Hour)},
		{Title: "", URL: "https://src.example.test/untitled"},
		{Title: "No link", URL: "mailto:x@example.test"},
	}}
	s := New(Config{Sources: []Source{src}, Store: st, Assets: testAssets(), Now: clock.Now, After: never})
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Stored before the restart"}, titles(s.Snapshot().Feed(Query{Limit: 10, Select: SelectAll}).Items)); d != "" {
		t.Fatalf("after load (-want +got):\n%s", d)
	}
	s.poll(context.Background(), s.sources[0])
	got := s.Snapshot().Feed(Query{Limit: 10, Select: SelectAll}).Items
	// Both undated and future items take the first-seen time (t0); ties
	// list the later canonical URL first.
	if d := cmp.Diff([]string{"From the future", "Fresh solana story", "Stored before the restart"}, titles(got)); d != "" {
		t.Fatalf("after poll (-want +got):\n%s", d)
	}
	if !got[0].PostedAt.Equal(t0) || !got[1].PostedAt.Equal(t0) || !cmp.Equal(got[1].RelatedCoinIDs, []string{"solana"}) {
		t.Errorf("normalised: %+v", got[:2])
	}
	if len(st.rows) != 4 || st.puts != 1 {
		t.Errorf("store: %d rows, %d puts", len(st.rows), st.puts)
	}
	// Another replica stored an item; maintenance prunes and merges.
	other := item(FeedSocial, -30, "From another replica")
	st.rows[other.CanonicalURL] = other
	if err := s.Maintain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.rows[old.CanonicalURL]; ok || len(st.rows) != 4 {
		t.Errorf("prune: %d rows", len(st.rows))
	}
	if n, so, _ := s.Snapshot().Counts(); n != 3 || so != 1 {
		t.Errorf("after maintenance: %d news, %d social", n, so)
	}
	// A registry change re-tags.
	s.SetAssets(nil)
	for _, it := range s.Snapshot().Feed(Query{Limit: 10, Select: SelectAll}).Items {
		if it.RelatedCoinIDs != nil {
			t.Errorf("%q still tagged %v", it.Title, it.RelatedCoinIDs)
		}
	}
}

// countingSource counts its fetches.
type countingSource struct {
	fakeSource
	fetches atomic.Int32
}

func (c *countingSource) Fetch(ctx context.Context) ([]Item, error) {
	c.fetches.Add(1)
	return c.fakeSource.Fetch(ctx)
}

// TestFollowerReadsTheLeadersItemsWithoutFetching: two replicas on one
// store; only the leader fetches, the follower serves what it stored.
func TestFollowerReadsTheLeadersItemsWithoutFetching(t *testing.T) {
	clock := newClock(t0)
	st := &memStore{rows: map[string]Item{}}
	items := []Item{{Title: "Solana story", URL: "https://src.example.test/a", PostedAt: t0.Add(-time.Minute)}}
	var leading atomic.Bool
	leading.Store(true)
	lsrc := &countingSource{fakeSource: fakeSource{name: "src", fs: FeedNews, items: items}}
	fsrc := &countingSource{fakeSource: fakeSource{name: "src", fs: FeedNews, items: items}}
	leader := New(Config{Sources: []Source{lsrc}, Store: st, Assets: testAssets(), Now: clock.Now, After: never, Leader: func() bool { return true }})
	follower := New(Config{Sources: []Source{fsrc}, Store: st, Assets: testAssets(), Now: clock.Now, After: never, Leader: func() bool { return !leading.Load() }})

	leader.poll(context.Background(), leader.sources[0])
	follower.poll(context.Background(), follower.sources[0])
	if d := cmp.Diff([]string{"Solana story"}, titles(follower.Snapshot().Feed(Query{Limit: 10, Select: SelectAll}).Items)); d != "" {
		t.Fatalf("follower's feed (-want +got):\n%s", d)
	}
	if lsrc.fetches.Load() != 1 || fsrc.fetches.Load() != 0 {
		t.Fatalf("fetches: leader %d, follower %d; want 1 and 0", lsrc.fetches.Load(), fsrc.fetches.Load())
	}
	if got := follower.Sources()[0].Status; got != StatusOK {
		t.Errorf("follower's source status %q, want ok", got)
	}
	// The lease moves to the follower: it fetches from then on.
	leading.Store(false)
	follower.poll(context.Background(), follower.sources[0])
	if fsrc.fetches.Load() != 1 {
		t.Fatalf("new leader did not fetch: %d", fsrc.fetches.Load())
	}
}
