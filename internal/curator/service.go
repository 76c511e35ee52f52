package curator

import (
	"cmp"
	"context"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/metadata"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/strtab"
	"github.com/assetd/assetd/internal/tokenindex"
)

// Markets is the market cache as the service reads it (memory only;
// EnsureSnapshots schedules background warming and returns at once).
type Markets interface {
	Market(mint string) *asset.Market
	ExecutionQuality(mint string) *asset.ExecutionQuality
	EnsureSnapshots(mints ...string)
}

// PoolAges gives the cached DEX pools of a mint (their oldest creation
// time is the token's age); the cache schedules a refresh when missing.
type PoolAges interface {
	DEXMarkets(mint string) ([]market.DEXMarket, time.Time, bool)
}

// Advisories answers a mint's advisory from memory.
type Advisories interface {
	Get(mint string) *asset.Advisory
}

// CommunityLists answers the published community lists holding a mint.
type CommunityLists interface {
	Containing(mint string) []string
}

// ChainSymbols answers what mints claim on chain (internal/onchain).
type ChainSymbols interface {
	// ChainSymbol is mint's on-chain symbol and name ("" when not read or
	// none).
	ChainSymbol(mint string) (symbol, name string)
	// Claiming returns the mints whose on-chain symbol normalises
	// (tokenindex.Normalize) to key, at most limit.
	Claiming(key string, limit int) []string
}

// ProviderSearch is a live token search (the token metadata provider).
type ProviderSearch interface {
	Search(ctx context.Context, query string, limit int) ([]market.TokenMeta, error)
}

// Config wires a Service. Registry and Index are read on every search;
// the others may be nil.
type Config struct {
	Registry   func() *registry.Snapshot
	Index      func() *tokenindex.Index
	Markets    Markets
	Ages       PoolAges
	Advisories Advisories
	Lists      CommunityLists
	Provider   ProviderSearch
	// FactWarnings returns the on-chain fact warning codes of a mint
	// (internal/onchain: has_freeze_authority, transfer_fee, …), added to
	// its candidate's warnings (nil: none).
	FactWarnings func(mint string) []string
	// ChainSymbols are the symbols mints claim on chain (internal/onchain;
	// nil: none). It feeds the claim judgment: a mint the registry does
	// not list is judged on its on-chain symbol and name when it has one
	// (so a symbol change into a protected symbol, which the change log
	// records, makes it a collision or an impersonation at the next
	// search), and a ticker or name query also gathers the mints whose
	// on-chain symbol is the query.
	ChainSymbols ChainSymbols
	// Allow are mints allowed to share a protected symbol (legitimate
	// duplicates): never judged impersonation or collision.
	Allow map[string]bool
	// ProviderTTL is how long a provider answer is reused (default 10 min).
	ProviderTTL time.Duration
	// Background is the context of background provider searches (default
	// context.Background()); cancel it at shutdown.
	Background context.Context
	Now        func() time.Time
	Log        *slog.Logger

	// ProviderSearches bounds the background provider searches in flight
	// at once across all queries (default DefaultProviderSearches);
	// ProviderQueue bounds the searches waiting for one of them (default
	// DefaultProviderQueue, negative: none). A search beyond both is shed:
	// not started, the response answers from memory with the provider
	// degraded, and a later search of the text tries again.
	ProviderSearches int
	ProviderQueue    int
}

// Candidate caps per source.
const (
	maxRegistryCandidates = 15
	maxExactCandidates    = MaxSuppressed
	maxOtherCandidates    = 20
	maxProviderCandidates = 20
	// exactScan bounds how many exact-symbol index matches are ranked to
	// pick maxExactCandidates (coingecko-listed and liquid first).
	exactScan         = 5000
	providerCacheSize = 1024
	// providerTimeout bounds one background provider search.
	providerTimeout = 10 * time.Second
)

// Defaults of the bound on background provider searches (Config).
const (
	DefaultProviderSearches = 8
	DefaultProviderQueue    = 64
)

// Service answers curator searches from memory.
type Service struct {
	c       Config
	derived atomic.Pointer[derived]
	mu      sync.Mutex // serialises derived rebuilds

	pmu     sync.Mutex
	pcache  map[string]providerEntry
	pending map[string]bool // queued or running searches, by key (single-flight)
	queue   []providerJob   // FIFO, at most c.ProviderQueue
	running int             // workers, at most c.ProviderSearches
	shed    int64           // searches shed so far
	// shedding is whether the last search that needed the provider was
	// shed: the log says when shedding starts and stops, not per search.
	shedding bool
}

// providerJob is one background provider search: the cache key and the
// normalised query.
type providerJob struct{ key, q string }

// ProviderWork reports the background provider searches running and
// queued now, and how many were shed so far.
type ProviderWork struct {
	Running, Queued int
	Shed            int64
}

type providerEntry struct {
	at     time.Time
	tokens []market.TokenMeta
	failed bool
}

// derived is what a registry snapshot and a token index imply: the
// protected index, the registry's searchable variants and curated
// membership. Rebuilt when either changes.
type derived struct {
	snap    *registry.Snapshot
	idx     *tokenindex.Index
	prot    *Protected
	reg     regKeys
	regx    regIndex
	curated map[string][]string // mint -> curated list ids (not "all")
}

// New returns a Service.
func New(c Config) *Service {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.ProviderTTL <= 0 {
		c.ProviderTTL = 10 * time.Minute
	}
	if c.Background == nil {
		c.Background = context.Background()
	}
	if c.ProviderSearches <= 0 {
		c.ProviderSearches = DefaultProviderSearches
	}
	switch {
	case c.ProviderQueue == 0:
		c.ProviderQueue = DefaultProviderQueue
	case c.ProviderQueue < 0:
		c.ProviderQueue = 0
	}
	if c.Index == nil {
		c.Index = func() *tokenindex.Index { return nil }
	}
	return &Service{c: c, pcache: map[string]providerEntry{}, pending: map[string]bool{}}
}

// HasProvider reports whether a live provider search is configured.
func (s *Service) HasProvider() bool { return s.c.Provider != nil }

// Protected returns the current protected index.
func (s *Service) Protected() *Protected { return s.current().prot }

// Refresh rebuilds the derived index now if the registry or token index
// changed (the reload hooks call it so no search pays for the rebuild).
func (s *Service) Refresh() { s.current() }

func (s *Service) current() *derived {
	snap, idx := s.c.Registry(), s.c.Index()
	if d := s.derived.Load(); d != nil && d.snap == snap && d.idx == idx {
		return d
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.derived.Load(); d != nil && d.snap == snap && d.idx == idx {
		return d
	}
	d := &derived{snap: snap, idx: idx, prot: BuildProtected(snap, idx, s.c.Allow), curated: map[string][]string{}}
	if old := s.derived.Load(); old != nil && old.snap == snap && snap != nil {
		// Only the token index moved: the registry's search keys hold.
		d.reg, d.regx, d.curated = old.reg, old.regx, old.curated
	} else if snap != nil {
		d.reg = buildRegKeys(snap.Assets())
		d.regx = buildRegIndex(&d.reg, snap.Assets())
		for _, l := range snap.CuratedLists() {
			if l.ID == "all" {
				continue
			}
			for _, m := range l.Members {
				if !slices.Contains(d.curated[m.Mint], l.ID) {
					d.curated[m.Mint] = append(d.curated[m.Mint], l.ID)
				}
			}
		}
	}
	s.derived.Store(d)
	return d
}

// Request is one search.
type Request struct {
	Query  string
	Policy string // a key of Policies
	Limit  int
}

// Sources reports where candidates came from.
type Sources struct {
	Provider string `json:"provider"` // ok, degraded or disabled
	DB       string `json:"db"`       // ok or degraded (token index not loaded)
	Registry string `json:"registry"` // ok
}

// Response is the body of GET /v2/lists/search-tokens.
type Response struct {
	Query           string         `json:"query"`
	Interpretation  Interpretation `json:"interpretation"`
	Policy          string         `json:"policy"`
	PolicyVersion   string         `json:"policyVersion"`
	ScoringVersion  string         `json:"scoringVersion"`
	Sources         Sources        `json:"sources"`
	LatencyMs       float64        `json:"latencyMs"`
	Results         []Result       `json:"results"`
	Suppressed      []Suppressed   `json:"suppressed"`
	SuppressedTotal int            `json:"suppressedTotal"`
	Candidates      int            `json:"candidates"`
}

// gather collects candidates in source order (registry, index, provider),
// one per mint.
type gather struct {
	d     *derived
	order []string
	byMnt map[string]*Candidate
	ids   map[string]tokenindex.ID // index ids of candidates found in the index
}

func (g *gather) add(mint, symbol, name string) *Candidate {
	if c, ok := g.byMnt[mint]; ok {
		return c
	}
	c := &Candidate{Mint: mint, Symbol: symbol, Name: name}
	g.byMnt[mint] = c
	g.order = append(g.order, mint)
	return c
}

// Search judges the candidates of a query. It reads memory only: provider
// answers come from a cache that a background search fills (the first
// search of a text reports the provider degraded).
func (s *Service) Search(ctx context.Context, req Request) Response {
	start := s.c.Now()
	p, ok := Policies[req.Policy]
	if !ok {
		p = Policies[DefaultPolicy]
	}
	limit := req.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	in := Interpret(req.Query)
	d := s.current()
	g := &gather{d: d, byMnt: map[string]*Candidate{}, ids: map[string]tokenindex.ID{}}
	s.fromRegistry(g, in)
	s.fromIndex(g, in)
	if s.c.ChainSymbols != nil && in.Intent != IntentMint {
		for _, m := range s.c.ChainSymbols.Claiming(in.NormalizedQuery, maxOtherCandidates) {
			g.add(m, "", "")
		}
	}
	src := Sources{Provider: "disabled", DB: "ok", Registry: "ok"}
	if d.idx == nil {
		src.DB = "degraded"
	}
	if s.c.Provider != nil {
		src.Provider = s.fromProvider(ctx, g, in)
	}
	if in.Intent == IntentMint {
		g.add(in.NormalizedQuery, "", "") // a mint query always judges that mint
	}
	cands := make([]Candidate, 0, len(g.order))
	var cold []string
	for _, m := range g.order {
		c := g.byMnt[m]
		s.enrich(g, c)
		if c.Market == nil {
			cold = append(cold, m)
		}
		cands = append(cands, *c)
	}
	if len(cold) > 0 && s.c.Markets != nil {
		s.c.Markets.EnsureSnapshots(cold...)
	}
	out := Judge(in, cands, p, d.prot, limit, s.c.Now())
	if s.c.FactWarnings != nil {
		for i := range out.Results {
			out.Results[i].Warnings = addWarnings(out.Results[i].Warnings, s.c.FactWarnings(out.Results[i].Mint))
		}
		for i := range out.Suppressed {
			out.Suppressed[i].Warnings = addWarnings(out.Suppressed[i].Warnings, s.c.FactWarnings(out.Suppressed[i].Mint))
		}
	}
	return Response{Query: req.Query, Interpretation: in, Policy: p.Name, PolicyVersion: PolicyVersion, ScoringVersion: ScoringVersion,
		Sources: src, Results: out.Results, Suppressed: out.Suppressed, SuppressedTotal: out.SuppressedTotal, Candidates: len(cands),
		LatencyMs: math.Round(float64(s.c.Now().Sub(start).Microseconds())/10) / 100}
}

// regKeys are the search keys of the registry's variants, in snapshot
// order (each asset's variants in turn): for each variant the keys of its
// claimed symbols, then the key of its name (the asset's when it has
// none). They are held in one packed list (strtab.List) rather than as a
// struct, a slice and strings per variant, which a large registry
// pays for in memory and in GC marking.
type regKeys struct {
	keys strtab.List
	nsym []uint8 // per variant, how many symbol keys precede its name key
}

// buildRegKeys returns the search keys of the variants of assets.
func buildRegKeys(assets []registry.Asset) regKeys {
	nv := 0
	for i := range assets {
		nv += len(assets[i].Variants)
	}
	r := regKeys{nsym: make([]uint8, 0, nv)}
	keys := make([]string, 0, 2*nv) // the symbol keys are mostly the snapshot's own strings
	var claimed []string
	for i := range assets {
		a := &assets[i]
		for j := range a.Variants {
			v := &a.Variants[j]
			claimed = appendClaimedSymbols(claimed[:0], a, v)
			for _, sym := range claimed {
				keys = append(keys, tokenindex.Key(sym))
			}
			keys = append(keys, tokenindex.Key(cmp.Or(v.Name, a.Name)))
			r.nsym = append(r.nsym, uint8(len(claimed))) // at most two
		}
	}
	r.keys = strtab.NewList(keys)
	return r
}

// key returns key k.
func (r *regKeys) key(k int) string { return r.keys.At(k) }

// rank is how a variant whose keys start at key k matches the normalised
// query q (not a mint): 0 for a symbol or the name equal to q, 1 for a
// symbol starting with q, 2 for a name containing q, -1 for no match. It
// returns the first key of the next variant too.
func (r *regKeys) rank(v, k int, q string) (rank, next int) {
	syms, name := k, k+int(r.nsym[v])
	next = name + 1
	nameKey := r.key(name)
	for s := syms; s < name; s++ {
		if r.key(s) == q {
			return 0, next
		}
	}
	if nameKey == q {
		return 0, next
	}
	if len(q) >= 2 {
		for s := syms; s < name; s++ {
			if strings.HasPrefix(r.key(s), q) {
				return 1, next
			}
		}
	}
	if len(q) >= 3 && strings.Contains(nameKey, q) {
		return 2, next
	}
	return -1, next
}

func (s *Service) fromRegistry(g *gather, in Interpretation) {
	snap := g.d.snap
	if snap == nil {
		return
	}
	add := func(a *registry.Asset, v *registry.Variant) {
		g.add(v.Mint, cmp.Or(v.Symbol, a.Symbol), cmp.Or(v.Name, a.Name))
	}
	if in.Intent == IntentMint {
		// A snapshot holds every variant's mint once, in its mint index.
		if a, v, ok := snap.VariantByMint(in.NormalizedQuery); ok {
			add(a, v)
		}
		return
	}
	assets := snap.Assets()
	for _, v := range g.d.regx.match(&g.d.reg, in.NormalizedQuery, maxRegistryCandidates) {
		i, j := g.d.regx.assetOf(v)
		add(&assets[i], &assets[i].Variants[j])
	}
}

func (s *Service) fromIndex(g *gather, in Interpretation) {
	x := g.d.idx
	if x == nil {
		return
	}
	add := func(id tokenindex.ID) {
		m := x.Mint(id)
		g.add(m, x.Symbol(id), x.Name(id))
		g.ids[m] = id
	}
	q := in.NormalizedQuery
	if in.Intent == IntentMint {
		if id, ok := x.Lookup(q); ok {
			add(id)
		}
		return
	}
	// Exact symbol: rank up to exactScan matches, coingecko-listed and
	// liquid first, then by mint.
	type hit struct {
		id  tokenindex.ID
		cg  bool
		liq float64
	}
	var hits []hit
	x.BySymbol(q, false, func(id tokenindex.ID) bool {
		h := hit{id: id, cg: x.CoingeckoID(id) != ""}
		if s.c.Markets != nil {
			if m := s.c.Markets.Market(x.Mint(id)); m != nil {
				h.liq = val(m.Liquidity)
			}
		}
		hits = append(hits, h)
		return len(hits) < exactScan
	})
	slices.SortStableFunc(hits, func(a, b hit) int {
		return cmp.Or(tokenindex.ListedFirst(a.cg, b.cg), cmp.Compare(b.liq, a.liq))
	})
	for i, h := range hits {
		if i == maxExactCandidates {
			break
		}
		add(h.id)
	}
	bounded := func(scan func(func(tokenindex.ID) bool)) {
		n := 0
		scan(func(id tokenindex.ID) bool {
			if _, dup := g.byMnt[x.Mint(id)]; !dup {
				add(id)
				n++
			}
			return n < maxOtherCandidates
		})
	}
	bounded(func(f func(tokenindex.ID) bool) { x.ByName(q, false, f) })
	if len(q) >= 2 {
		bounded(func(f func(tokenindex.ID) bool) { x.BySymbol(q, true, f) })
		bounded(func(f func(tokenindex.ID) bool) { x.ByName(q, true, f) })
		bounded(func(f func(tokenindex.ID) bool) { x.ByNameWord(q, f) })
	}
	bounded(func(f func(tokenindex.ID) bool) { x.NameContains(q, f) })
}

// fromProvider adds the cached provider answer for the query, or starts
// a background search for it. It returns the provider source status.
func (s *Service) fromProvider(ctx context.Context, g *gather, in Interpretation) string {
	key := in.Intent + ":" + in.NormalizedQuery
	now := s.c.Now()
	s.pmu.Lock()
	e, ok := s.pcache[key]
	if fresh := ok && now.Sub(e.at) < s.c.ProviderTTL; !fresh && !s.pending[key] {
		s.schedule(providerJob{key: key, q: in.NormalizedQuery})
	}
	s.pmu.Unlock()
	if !ok {
		return "degraded"
	}
	for _, t := range e.tokens {
		c := g.add(t.Mint, t.Symbol, t.Name)
		if c.Decimals == nil && c.LogoURI == "" {
			c.Decimals, c.LogoURI = t.Decimals, t.LogoURI
		}
	}
	if e.failed {
		return "degraded"
	}
	return "ok"
}

// schedule starts j on a new worker while fewer than ProviderSearches
// run, else queues it while fewer than ProviderQueue wait, else sheds it.
// The caller holds pmu.
func (s *Service) schedule(j providerJob) {
	switch {
	case s.running < s.c.ProviderSearches:
		s.running++
		go s.work(j)
	case len(s.queue) < s.c.ProviderQueue:
		s.queue = append(s.queue, j)
	default:
		s.shed++
		if !s.shedding {
			s.shedding = true
			s.c.Log.Warn("provider token searches shed: the bound is reached (answers come from memory)",
				"running", s.running, "queued", len(s.queue))
		}
		return
	}
	s.pending[j.key] = true
	if s.shedding {
		s.shedding = false
		s.c.Log.Info("provider token searches admitted again", "shed", s.shed)
	}
}

// work runs j, then the queued searches one after another, and returns
// when the queue is empty or the background context ends (the queue is
// then dropped).
func (s *Service) work(j providerJob) {
	for {
		s.providerSearch(j.key, j.q)
		s.pmu.Lock()
		if len(s.queue) == 0 || s.c.Background.Err() != nil {
			for _, q := range s.queue {
				delete(s.pending, q.key)
			}
			s.queue = s.queue[:0]
			s.running--
			s.pmu.Unlock()
			return
		}
		j = s.queue[0]
		s.queue[0] = providerJob{}
		s.queue = s.queue[1:]
		s.pmu.Unlock()
	}
}

// ProviderWork reports the background provider work now.
func (s *Service) ProviderWork() ProviderWork {
	s.pmu.Lock()
	defer s.pmu.Unlock()
	return ProviderWork{Running: s.running, Queued: len(s.queue), Shed: s.shed}
}

func (s *Service) providerSearch(key, q string) {
	ctx, cancel := context.WithTimeout(s.c.Background, providerTimeout)
	defer cancel()
	toks, err := s.c.Provider.Search(ctx, q, maxProviderCandidates)
	e := providerEntry{at: s.c.Now(), failed: err != nil}
	if err != nil {
		s.c.Log.Warn("provider token search failed", "err", err)
	}
	for _, t := range toks {
		if !registry.ValidMint(t.Mint) {
			continue
		}
		m := metadata.Clean(metadata.Token{Symbol: t.Symbol, Name: t.Name, LogoURI: t.LogoURI, Decimals: t.Decimals})
		t.Symbol, t.Name, t.LogoURI, t.Decimals = m.Symbol, m.Name, m.LogoURI, m.Decimals
		e.tokens = append(e.tokens, t)
	}
	s.pmu.Lock()
	defer s.pmu.Unlock()
	delete(s.pending, key)
	if old, ok := s.pcache[key]; err != nil && ok && !old.failed {
		e.tokens = old.tokens // keep the last good answer
	}
	if len(s.pcache) >= providerCacheSize {
		oldest := ""
		for k, v := range s.pcache {
			if oldest == "" || v.at.Before(s.pcache[oldest].at) {
				oldest = k
			}
		}
		delete(s.pcache, oldest)
	}
	s.pcache[key] = e
}

// enrich fills what memory knows about a candidate.
func (s *Service) enrich(g *gather, c *Candidate) {
	d := g.d
	var rv *registry.Variant
	if d.snap != nil {
		if a, v, ok := d.snap.VariantByMint(c.Mint); ok {
			c.Registry = &RegistryClaim{AssetID: a.AssetID, Kind: v.Kind, TrustTier: v.TrustTier, Claimed: ClaimedSymbols(a, v)}
			c.Symbol, c.Name = cmp.Or(v.Symbol, a.Symbol, c.Symbol), cmp.Or(v.Name, a.Name, c.Name)
			rv = v
		}
	}
	id, ok := g.ids[c.Mint]
	if !ok {
		id, ok = d.idx.Lookup(c.Mint)
	}
	if ok {
		c.CoingeckoID = d.idx.CoingeckoID(id)
		if c.Symbol == "" && c.Name == "" {
			c.Symbol, c.Name = d.idx.Symbol(id), d.idx.Name(id)
		}
		if rv == nil || rv.Decimals == nil || rv.LogoURI == "" {
			tk := d.idx.Token(id)
			c.Decimals, c.LogoURI = cmp.Or(tk.Decimals, c.Decimals), cmp.Or(tk.LogoURI, c.LogoURI)
		}
	}
	// An unlisted mint claims what its on-chain metadata says now.
	if rv == nil && s.c.ChainSymbols != nil {
		if sym, name := s.c.ChainSymbols.ChainSymbol(c.Mint); sym != "" {
			c.Symbol, c.Name = sym, cmp.Or(name, c.Name)
		}
	}
	// Metadata: the registry's, else the index's, else the provider's.
	if rv != nil {
		c.Decimals, c.LogoURI = cmp.Or(rv.Decimals, c.Decimals), cmp.Or(rv.LogoURI, c.LogoURI)
	}
	c.CuratedLists = d.curated[c.Mint]
	c.InLists = append([]string{}, c.CuratedLists...)
	if s.c.Lists != nil {
		c.InLists = append(c.InLists, s.c.Lists.Containing(c.Mint)...)
	}
	if s.c.Markets != nil {
		c.Market = s.c.Markets.Market(c.Mint)
		c.Execution = s.c.Markets.ExecutionQuality(c.Mint)
	}
	if s.c.Advisories != nil {
		c.Advisory = s.c.Advisories.Get(c.Mint)
	}
	if s.c.Ages != nil && c.Market != nil {
		if pools, _, ok := s.c.Ages.DEXMarkets(c.Mint); ok {
			var oldest int64
			for _, p := range pools { // CreatedAt is unix seconds
				if p.CreatedAt != nil && *p.CreatedAt > 0 && (oldest == 0 || *p.CreatedAt < oldest) {
					oldest = *p.CreatedAt
				}
			}
			if oldest > 0 {
				age := s.c.Now().Sub(time.Unix(oldest, 0)).Hours() / 24
				c.AgeDays = &age
			}
		}
	}
}

// addWarnings appends the codes ws lacks, in order.
func addWarnings(ws, add []string) []string {
	for _, a := range add {
		if !slices.Contains(ws, a) {
			ws = append(ws, a)
		}
	}
	return ws
}
