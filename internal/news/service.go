package news

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/registry"
)

// Service defaults (docs/news.md).
const (
	DefaultInterval     = 5 * time.Minute
	DefaultFetchTimeout = 30 * time.Second
	DefaultRetention    = 14 * 24 * time.Hour
	DefaultMinBackoff   = time.Minute
	DefaultMaxBackoff   = time.Hour
	// futureSkew is how far in the future a publication time may be
	// before it is replaced by the time the item was first seen.
	futureSkew = 10 * time.Minute
)

// ErrNotModified is returned by Source.Fetch when the upstream answered a
// conditional request with 304: nothing changed, nothing to ingest.
var ErrNotModified = errors.New("news: not modified")

// Source is one feed polled in the background.
type Source interface {
	// Name identifies the source in health and logs (its URL, or "demo").
	Name() string
	// FeedSource is FeedNews or FeedSocial.
	FeedSource() string
	// Fetch returns the source's current items, ErrNotModified when the
	// upstream says nothing changed, or an error (a
	// *market.RateLimitedError carries the upstream's Retry-After). It
	// must return when ctx ends.
	Fetch(ctx context.Context) ([]Item, error)
}

// Store persists items (SQLite or PostgreSQL). Rows are keyed by canonical
// URL; every replica polls and writes, and reloads what the others wrote.
type Store interface {
	// PutNews inserts the items whose canonical URL is not stored yet
	// (stored rows are kept: the earliest copy wins) and returns how many
	// were new.
	PutNews(ctx context.Context, items []Item) (int, error)
	// LoadNews returns the items published at or after since.
	LoadNews(ctx context.Context, since time.Time) ([]Item, error)
	// PruneNews deletes items published before before.
	PruneNews(ctx context.Context, before time.Time) (int64, error)
}

// Observer receives the service's measurements (metrics).
type Observer interface {
	// Fetched reports one fetch: outcome "ok", "not_modified" or a
	// failure reason (timeout, rate_limited, malformed, upstream_error).
	Fetched(feedSource, outcome string)
	// Built reports a new snapshot: served items per feed source.
	Built(news, social int)
	// Deduplicated counts new items dropped as duplicates: reason "url"
	// (a canonical URL another source, or the same answer, already gave)
	// or "title" (a normalised title published up to 48 h earlier).
	Deduplicated(reason string, n int)
}

// Config configures a Service.
type Config struct {
	Sources []Source
	// Disabled lists feed sources switched off by configuration; they
	// appear in Sources() as "disabled".
	Disabled []string
	// Store persists items; nil keeps them in memory only (the demo feed,
	// which must never be mixed with stored real items).
	Store Store
	// Assets are the registry assets whose coin ids tag items.
	Assets   []registry.Asset
	Interval time.Duration // between polls of one source (DefaultInterval)
	// FetchTimeout bounds one fetch (DefaultFetchTimeout); a fetch still
	// running after it shows the source degraded.
	FetchTimeout time.Duration
	Retention    time.Duration // DefaultRetention
	MinBackoff   time.Duration // first retry delay after a failure
	MaxBackoff   time.Duration
	Now          func() time.Time
	// After waits (default time.After); tests inject it.
	After    func(time.Duration) <-chan time.Time
	Log      *slog.Logger
	Observer Observer
	// Leader, when set, says whether this replica is the cluster's
	// refresher (internal/refresh). A follower fetches no feed: at each of
	// its polls it merges what the leader stored, and reports the source
	// ok when that read succeeds. Nil: this replica polls every source.
	Leader func() bool
}

// Service polls sources, stores new items and serves the current
// Snapshot from memory.
type Service struct {
	cfg     Config
	sources []*sourceState
	snap    atomic.Pointer[Snapshot]

	mu     sync.Mutex // guards items and tagger, and serialises rebuilds
	items  map[string]Item
	tagger *Tagger
}

// sourceState is the health of one source.
type sourceState struct {
	src Source
	mu  sync.Mutex
	st  sourceHealth
}

type sourceHealth struct {
	lastSuccess time.Time
	inFlight    time.Time // start of the running fetch, zero when idle
	lastErr     string    // reason code of the last failure ("" after a success)
	fails       int
	items       int // items in the last successful answer
}

// New returns a service; Run starts it.
func New(cfg Config) *Service {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.Retention <= 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.MinBackoff)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.After == nil {
		cfg.After = time.After
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Service{cfg: cfg, items: map[string]Item{}, tagger: NewTagger(cfg.Assets)}
	for _, src := range cfg.Sources {
		s.sources = append(s.sources, &sourceState{src: src})
	}
	s.snap.Store(NewSnapshot(nil, s.tagger))
	return s
}

// Snapshot returns the current read model (never nil).
func (s *Service) Snapshot() *Snapshot { return s.snap.Load() }

// Load reads the stored items of the retention window and publishes them.
// Call it before Run so a restart serves what was stored at once.
func (s *Service) Load(ctx context.Context) error {
	if s.cfg.Store == nil {
		return nil
	}
	now := s.cfg.Now()
	items, err := s.cfg.Store.LoadNews(ctx, now.Add(-s.cfg.Retention))
	if err != nil {
		return fmt.Errorf("news: load stored items: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, it := range items {
		if _, ok := s.items[it.CanonicalURL]; !ok {
			s.items[it.CanonicalURL] = it
		}
	}
	s.rebuildLocked()
	return nil
}

// SetAssets re-tags every item with a new registry's coin ids.
func (s *Service) SetAssets(assets []registry.Asset) {
	t := NewTagger(assets)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tagger = t
	for k, it := range s.items {
		it.RelatedCoinIDs = t.Tag(it.Title, it.Summary)
		s.items[k] = it
	}
	s.rebuildLocked()
}

// Run polls every source until ctx ends: each source in its own loop (a
// slow or hanging source delays nobody), plus a maintenance loop that
// prunes expired items and reloads what other replicas stored.
func (s *Service) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, st := range s.sources {
		wg.Go(func() { s.pollLoop(ctx, st) })
	}
	wg.Go(func() { s.maintainLoop(ctx) })
	wg.Wait()
}

// Refresh polls every source once, concurrently, and returns when all
// have answered (each fetch is bounded by the fetch timeout); for tests
// and callers that want a warm start.
func (s *Service) Refresh(ctx context.Context) {
	var wg sync.WaitGroup
	for _, st := range s.sources {
		wg.Go(func() { s.poll(ctx, st) })
	}
	wg.Wait()
}

func (s *Service) pollLoop(ctx context.Context, st *sourceState) {
	for {
		wait := s.poll(ctx, st)
		select {
		case <-ctx.Done():
			return
		case <-s.cfg.After(wait):
		}
	}
}

// poll fetches one source once and returns the delay before the next
// poll: the interval, or a doubling backoff after failures (at least the
// upstream's Retry-After).
func (s *Service) poll(ctx context.Context, st *sourceState) time.Duration {
	if s.cfg.Leader != nil && s.cfg.Store != nil && !s.cfg.Leader() {
		return s.follow(ctx, st)
	}
	start := s.cfg.Now()
	st.mu.Lock()
	st.st.inFlight = start
	st.mu.Unlock()

	fctx, cancel := context.WithTimeout(ctx, s.cfg.FetchTimeout)
	items, err := st.src.Fetch(fctx)
	cancel()

	outcome := "ok"
	switch {
	case errors.Is(err, ErrNotModified):
		outcome = "not_modified"
	case err != nil:
		outcome = failureReason(err)
	}
	if s.cfg.Observer != nil {
		s.cfg.Observer.Fetched(st.src.FeedSource(), outcome)
	}
	now := s.cfg.Now()
	st.mu.Lock()
	st.st.inFlight = time.Time{}
	if err != nil && outcome != "not_modified" {
		st.st.fails++
		st.st.lastErr = outcome
	} else {
		st.st.fails, st.st.lastErr, st.st.lastSuccess = 0, "", now
		if outcome == "ok" {
			st.st.items = len(items)
		}
	}
	fails := st.st.fails
	st.mu.Unlock()

	if err != nil {
		if outcome != "not_modified" && ctx.Err() == nil {
			s.cfg.Log.Warn("news source failed", "source", st.src.Name(), "fails", fails, "err", err)
		}
		return s.backoff(fails, err)
	}
	added, err := s.ingest(ctx, st.src, items, now)
	if err != nil {
		s.cfg.Log.Warn("news items not stored", "source", st.src.Name(), "err", err)
	}
	s.cfg.Log.Debug("news source polled", "source", st.src.Name(), "items", len(items), "new", added)
	return s.cfg.Interval
}

// follow is a follower's poll of one source: no fetch, a merge of the
// items the cluster's refresher stored.
func (s *Service) follow(ctx context.Context, st *sourceState) time.Duration {
	now := s.cfg.Now()
	items, err := s.cfg.Store.LoadNews(ctx, now.Add(-s.cfg.Retention))
	if err != nil {
		if ctx.Err() == nil {
			s.cfg.Log.Warn("news: stored items not reloaded", "source", st.src.Name(), "err", err)
		}
		return s.cfg.Interval
	}
	s.mu.Lock()
	added := 0
	for _, it := range items {
		if _, ok := s.items[it.CanonicalURL]; !ok {
			s.items[it.CanonicalURL] = it
			added++
		}
	}
	if added > 0 {
		s.rebuildLocked()
	}
	s.mu.Unlock()
	st.mu.Lock()
	st.st.fails, st.st.lastErr, st.st.lastSuccess = 0, "", s.cfg.Now()
	st.mu.Unlock()
	return s.cfg.Interval
}

// backoff is the delay after the fails-th consecutive failure.
func (s *Service) backoff(fails int, err error) time.Duration {
	if fails == 0 {
		return s.cfg.Interval
	}
	d := s.cfg.MinBackoff << min(fails-1, 16)
	d = min(d, s.cfg.MaxBackoff)
	var rl *market.RateLimitedError
	if errors.As(err, &rl) && rl.RetryAfter > d {
		d = min(rl.RetryAfter, 24*time.Hour)
	}
	return d
}

// storeTimeout bounds one PutNews; it outlives the poll's context so
// items fetched just before shutdown are still stored.
const storeTimeout = 30 * time.Second

// ingest normalises and tags fetched items, stores the new ones, then
// publishes a new snapshot (an item served is an item stored, unless the
// store failed, which is logged and leaves the item in memory). It
// returns the number of new items.
func (s *Service) ingest(ctx context.Context, src Source, items []Item, now time.Time) (int, error) {
	s.mu.Lock()
	cutoff := now.Add(-s.cfg.Retention)
	var fresh []Item
	urlDups := 0
	batch := make(map[string]bool, len(items))
	for _, it := range items {
		it, ok := Normalize(it, src, now)
		if !ok || it.PostedAt.Before(cutoff) {
			continue
		}
		if batch[it.CanonicalURL] {
			urlDups++ // twice in one answer
			continue
		}
		batch[it.CanonicalURL] = true
		if prev, dup := s.items[it.CanonicalURL]; dup {
			if prev.Source != it.Source {
				urlDups++ // another source has the story already
			}
			continue
		}
		it.RelatedCoinIDs = s.tagger.Tag(it.Title, it.Summary)
		fresh = append(fresh, it)
	}
	s.mu.Unlock()
	s.observeDups("url", urlDups)
	if len(fresh) == 0 {
		return 0, nil
	}
	var serr error
	if s.cfg.Store != nil {
		// Without the lock: a slow database delays only this source.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
		if _, err := s.cfg.Store.PutNews(sctx, fresh); err != nil {
			serr = fmt.Errorf("news: store %d items: %w", len(fresh), err)
		}
		cancel()
	}
	s.mu.Lock()
	for _, it := range fresh {
		if _, dup := s.items[it.CanonicalURL]; !dup {
			s.items[it.CanonicalURL] = it
		}
	}
	_, _, before := s.snap.Load().Counts()
	s.rebuildLocked()
	_, _, after := s.snap.Load().Counts()
	s.mu.Unlock()
	s.observeDups("title", after.Title-before.Title)
	return len(fresh), serr
}

// Normalize cleans an item from src: canonical URL (ok is false without
// an absolute http(s) URL or a title), whitespace-collapsed text, the
// feed source and source name, and a publication time (first-seen time
// when missing or in the future).
func Normalize(it Item, src Source, now time.Time) (Item, bool) {
	cu, ok := CanonicalURL(it.URL)
	it.Title = CleanText(it.Title)
	if !ok || it.Title == "" {
		return it, false
	}
	it.CanonicalURL = cu
	it.Summary = CleanText(it.Summary)
	it.Author = CleanText(it.Author)
	it.SourceName = CleanText(it.SourceName)
	if src != nil {
		it.FeedSource, it.Source = src.FeedSource(), src.Name()
	}
	if it.FeedSource != FeedSocial {
		it.FeedSource = FeedNews
	}
	if it.FirstSeen.IsZero() {
		it.FirstSeen = now
	}
	if it.PostedAt.IsZero() || it.PostedAt.After(now.Add(futureSkew)) {
		it.PostedAt = it.FirstSeen
	}
	it.PostedAt = it.PostedAt.UTC()
	return it, true
}

// rebuildLocked publishes a snapshot of the current items. s.mu is held.
func (s *Service) rebuildLocked() {
	items := make([]Item, 0, len(s.items))
	for _, it := range s.items {
		items = append(items, it)
	}
	snap := NewSnapshot(items, s.tagger)
	s.snap.Store(snap)
	if s.cfg.Observer != nil {
		n, so, _ := snap.Counts()
		s.cfg.Observer.Built(n, so)
	}
}

func (s *Service) observeDups(reason string, n int) {
	if n > 0 && s.cfg.Observer != nil {
		s.cfg.Observer.Deduplicated(reason, n)
	}
}

// maintainLoop prunes expired items and merges what other replicas stored,
// once per interval.
func (s *Service) maintainLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.cfg.After(s.cfg.Interval):
		}
		if err := s.Maintain(ctx); err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("news maintenance failed", "err", err)
		}
	}
}

// Maintain drops items older than the retention (memory and store) and
// merges items other replicas stored.
func (s *Service) Maintain(ctx context.Context) error {
	now := s.cfg.Now()
	cutoff := now.Add(-s.cfg.Retention)
	var stored []Item
	var errs []error
	if s.cfg.Store != nil {
		if _, err := s.cfg.Store.PruneNews(ctx, cutoff); err != nil {
			errs = append(errs, fmt.Errorf("news: prune: %w", err))
		}
		var err error
		if stored, err = s.cfg.Store.LoadNews(ctx, cutoff); err != nil {
			errs = append(errs, fmt.Errorf("news: reload: %w", err))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, it := range s.items {
		if it.PostedAt.Before(cutoff) {
			delete(s.items, k)
		}
	}
	for _, it := range stored {
		if _, ok := s.items[it.CanonicalURL]; !ok {
			s.items[it.CanonicalURL] = it
		}
	}
	s.rebuildLocked()
	return errors.Join(errs...)
}

// failureReason classifies a fetch error for clients (the error itself,
// which may name hosts and paths, is only logged).
func failureReason(err error) string {
	var rl *market.RateLimitedError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &rl):
		return "rate_limited"
	case errors.Is(err, market.ErrMalformed):
		return "malformed"
	}
	return "upstream_error"
}

// Health states of a source (meta.sources[].status).
const (
	StatusOK       = "ok"
	StatusDegraded = "degraded"
	StatusDisabled = "disabled"
)

// SourceStatus is the health of one source.
type SourceStatus struct {
	Name       string
	FeedSource string
	Status     string
	// LastSuccess is the end of the last successful fetch (zero: never).
	LastSuccess time.Time
	// Reason says why the source is degraded: timeout, rate_limited,
	// malformed, upstream_error, running_too_long or never_fetched.
	Reason string
	// Items is the number of items of its last successful answer.
	Items int
}

// Sources reports every source's health now: ok after a successful last
// fetch; degraded after a failed one, while a fetch runs past the fetch
// timeout, or before the first success; disabled for feed sources
// switched off by configuration.
func (s *Service) Sources() []SourceStatus {
	now := s.cfg.Now()
	out := make([]SourceStatus, 0, len(s.sources)+len(s.cfg.Disabled))
	for _, st := range s.sources {
		st.mu.Lock()
		h := st.st
		st.mu.Unlock()
		ss := SourceStatus{Name: st.src.Name(), FeedSource: st.src.FeedSource(), Status: StatusOK,
			LastSuccess: h.lastSuccess, Items: h.items}
		switch {
		case !h.inFlight.IsZero() && now.Sub(h.inFlight) > s.cfg.FetchTimeout:
			ss.Status, ss.Reason = StatusDegraded, "running_too_long"
		case h.lastErr != "":
			ss.Status, ss.Reason = StatusDegraded, h.lastErr
		case h.lastSuccess.IsZero():
			ss.Status, ss.Reason = StatusDegraded, "never_fetched"
		}
		out = append(out, ss)
	}
	for _, fs := range s.cfg.Disabled {
		out = append(out, SourceStatus{Name: fs, FeedSource: fs, Status: StatusDisabled})
	}
	slices.SortStableFunc(out, func(a, b SourceStatus) int {
		if a.FeedSource != b.FeedSource {
			if a.FeedSource == FeedNews {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}
