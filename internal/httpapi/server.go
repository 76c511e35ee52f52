// Package httpapi is the HTTP surface: one route table (routes.go) with each
// route's required scope beside it, plain func(http.Handler) http.Handler
// middleware, and handlers that return errors rendered by one adapter as the
// spec's `{"error":{"_tag","message","details"}}` envelope.
package httpapi

import (
	"context"
	"github.com/assetd/assetd/internal/chainsource"
	"github.com/assetd/assetd/internal/curator"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/api"
	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/buildinfo"
	"github.com/assetd/assetd/internal/catalog"
	"github.com/assetd/assetd/internal/chart"
	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/execution"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/onchain"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/risk"
	"github.com/assetd/assetd/internal/session"
	"github.com/assetd/assetd/internal/tokenlist"
	"github.com/assetd/assetd/internal/usage"
	"github.com/prometheus/client_golang/prometheus"
)

// KeyLookup authenticates a plaintext API key against memory.
type KeyLookup interface {
	Lookup(plaintext string) *apikey.Key
}

// UsageRecorder queues a usage record without blocking.
type UsageRecorder interface {
	Record(usage.Record)
}

// Deps are the collaborators of the HTTP layer. Log, Metrics, Keys,
// Limiter, Usage and Sessions are required.
type Deps struct {
	Log      *slog.Logger
	Metrics  *metrics.Metrics
	Keys     KeyLookup
	Limiter  ratelimit.Limiter
	Usage    UsageRecorder
	Sessions session.Verifier
	// Catalog is the asset read model.
	Catalog *catalog.Catalog
	// Markets is the market cache (nil: nothing cached).
	Markets MarketData
	// Canonical is the canonical (asset-level) part of the market cache
	// (nil: nothing cached); ExternalProvider says an external coin
	// provider feeds it (profiles answer "not_configured" otherwise).
	Canonical        CanonicalData
	ExternalProvider bool
	// Lists serves the v2 community lists (nil: the v2 routes answer 404);
	// ListViews is their in-memory read model and ListReader the read
	// model of every list surface (both required with Lists).
	Lists      *lists.Service
	ListViews  *lists.Views
	ListReader *lists.Reader
	// TokenLists exports lists as tokenlists.org JSON and keeps their
	// versions (nil: GET /v2/lists/{slug}/tokenlist.json answers 404).
	TokenLists *tokenlist.Exporter
	// Dashboard serves /dashboard/ (nil: no dashboard).
	Dashboard http.Handler
	// Analytics is the trade analytics engine behind trending, OHLCV,
	// price charts and trade ingest (nil: trending and candles are empty,
	// ingest answers 404).
	Analytics Analytics
	// Trades, when set, makes trade ingest durable: POST
	// /v1/internal/trades stores each batch through it before answering
	// (nil: the batch goes straight to Analytics, in memory only).
	Trades TradeIngester
	// TradeSource reports the chain trade source (GET
	// /v1/internal/trades/source; nil: source "none", state off).
	TradeSource func() chainsource.Status
	// News is the news feed read model (nil: the feed is empty).
	News NewsFeed
	// Advisories annotates mints (nil: none flagged).
	Advisories AdvisoryLookup
	// StablecoinHealth is the depeg guard's judgement behind
	// include=stablecoinHealth (nil: every stablecoin reads stale ok).
	StablecoinHealth StablecoinHealth
	// AdvisoryFeed serves GET /v1/advisories and /v1/advisories/current
	// (nil: those routes answer 404).
	AdvisoryFeed AdvisoryFeed
	// AdvisoryReports serves POST /v1/advisories/reports and GET
	// /v1/advisories/reports/{id} (nil: absent); ReportBudget reports per
	// ReportWindow per key (defaults DefaultReportBudget per
	// DefaultReportWindow).
	AdvisoryReports AdvisoryReports
	ReportBudget    int
	ReportWindow    time.Duration
	// Webhooks serves /v1/webhooks (nil: those routes answer 404).
	Webhooks WebhookService
	// Curator answers GET /v2/lists/search-tokens (nil: the route is absent).
	Curator *curator.Service
	// ListsConfig tunes member resolution and provider budgets.
	ListsConfig ListsConfig
	// Execution serves /v2/execution/* (nil: those routes answer 404);
	// QuoteBudget meters each key's upstream quotes (nil: unmetered).
	Execution   *execution.Service
	QuoteBudget *execution.QuoteBudget
	// Budget meters each key's provider budgets (list batch adds, curator
	// searches); nil: an in-process ratelimit.Memory.
	Budget ratelimit.Limiter
	// DefaultPolicy applies to keys without overrides.
	DefaultPolicy ratelimit.Policy
	// Simulated says the market data is the built-in demo feed; health
	// says so and every response carries SimulatedHeader.
	Simulated bool
	// Readiness answers GET /readyz (nil: ready once serving).
	Readiness ReadinessChecker
	// IncludeDeadline bounds the include blocks of one asset detail call
	// (default DefaultIncludeDeadline).
	IncludeDeadline time.Duration
	// CORSOrigins are the browser origins allowed cross-origin ("*": any;
	// empty: CORS off).
	CORSOrigins []string
	// AccessLog is AccessLogOff, AccessLogSampled (default) or AccessLogAll;
	// AccessLogSample logs one in that many ordinary requests when sampled
	// (default DefaultAccessLogSample); AccessLogSlow is the duration from
	// which a request is always logged (default DefaultAccessLogSlow).
	AccessLog       string
	AccessLogSample uint64
	AccessLogSlow   time.Duration
	// OnChain holds the mints' on-chain facts and change log behind the
	// verdicts and changes routes (nil: every mint is not_read_yet and no
	// change is logged).
	OnChain *onchain.Service
	// Decimals resolves decimals the registry lacks (internal/decimals) for
	// market rows (nil: the registry's only).
	Decimals func(mint string) (int, bool)
	// Store names the store keys are read from, with the CLI flags that
	// reach it, for the message of an invalid-key 401 (no secrets: a data
	// directory or a database name; "" leaves it out).
	Store string
	// Version is the build's version, as /v1/health and GET / report it
	// (default: buildinfo.Read().Version).
	Version string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Stream serves GET /v1/stream (nil: the route answers 404).
	Stream *events.Hub
	// StreamHeartbeat returns the ticker of a stream's heartbeats and its
	// stop function (default: every events.DefaultHeartbeat). Tests inject
	// their own channel.
	StreamHeartbeat func() (<-chan time.Time, func())
	// StreamWriteTimeout bounds one stream write (default 30s): a client
	// that takes longer is gone.
	StreamWriteTimeout time.Duration
}

// Server serves the API.
type Server struct {
	d       Deps
	handler http.Handler
	// rm caches the metric children of each route pattern (copy on write).
	rm atomic.Pointer[map[string]*routeMetrics]
	// budget meters each key's provider budget (list batch adds, searches).
	budget ratelimit.Limiter
	// trending is the current trending set (RefreshTrending).
	trending atomic.Pointer[trendingView]
	mu       sync.Mutex
	// nonFinite remembers the route and JSON path of each non-finite
	// number written as null, so each is logged once.
	nonFinite sync.Map
	// logged counts the ordinary requests seen by the sampled access log.
	logged atomic.Uint64
	// gz keeps gzip forms of large bodies by ETag; bodies caches encoded
	// read-model responses per catalog version (body.go, bodies.go).
	gz     gzipCache
	bodies bodyCache
	// listBodies caches list reads, compositions, catalog pages and
	// token-list exports per list versions (listbodies.go).
	listBodies listBodies
	// searchBodies keeps judged search-tokens answers by query as sent,
	// searchJudged by interpretation (searchcache.go).
	searchBodies, searchJudged searchCache
	// newsBodies keeps encoded news feeds per news state (news.go).
	newsBodies newsBodies
	// trendBodies caches trending responses per (trending set, advisory
	// index) version; trendSeq numbers the trending sets.
	trendBodies bodyCache
	// details caches asset detail bodies without includes (assets.go).
	details detailCache
	// snapRows caches market snapshot rows by mint (snaprows.go).
	snapRows snapRowCache
	// snapBodies caches whole market snapshot bodies per second and
	// input versions (markets.go).
	snapBodies bodyCache
	// limAllowed is the limiter metric's "allowed" child, resolved once.
	limAllowed prometheus.Counter
	// readyState is the last readiness state /readyz answered (1 not ready,
	// 2 ready, 0 none yet): a change is logged once, not every probe.
	readyState atomic.Int32
	// snapRaw holds the same bodies by the request body's bytes.
	snapRaw  bodyCache
	trendSeq atomic.Uint64

	contract *api.Contract // GET /openapi.json, rendered on first use
}

// New builds the server and its route table.
func New(d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Markets == nil {
		d.Markets = noMarkets{}
	}
	if d.IncludeDeadline <= 0 {
		d.IncludeDeadline = DefaultIncludeDeadline
	}
	if d.AccessLog == "" {
		d.AccessLog = AccessLogSampled
	}
	if d.AccessLogSample == 0 {
		d.AccessLogSample = DefaultAccessLogSample
	}
	if d.AccessLogSlow <= 0 {
		d.AccessLogSlow = DefaultAccessLogSlow
	}
	if d.Canonical == nil {
		d.Canonical = noCanonical{}
	}
	if d.Version == "" {
		d.Version = buildinfo.Read().Version
	}
	if d.Advisories == nil {
		d.Advisories = noAdvisories{}
	}
	d.ListsConfig = d.ListsConfig.withDefaults()
	s := &Server{d: d, budget: d.Budget, contract: api.New()}
	s.limAllowed = d.Metrics.Limiter.WithLabelValues("allowed")
	if s.budget == nil {
		s.budget = ratelimit.NewMemory()
	}
	s.handler = s.build(nil)
	return s
}

// charts decides which candle source serves a chart (from memory).
func (s *Server) charts() chart.Service {
	return chart.New(s.d.Analytics, s.d.Markets, s.d.Canonical, s.d.Now)
}

// risk gathers a mint's risk inputs from memory and scores them.
func (s *Server) risk() risk.Gatherer {
	g := risk.Gatherer{Markets: s.d.Markets, Advisories: s.d.Advisories, Now: s.d.Now}
	if s.d.Catalog != nil {
		g.Curated = s.d.Catalog
	}
	if s.d.OnChain != nil {
		g.Chain = s.chainCaps
	}
	return g
}

// Handler is the root handler with every middleware applied.
func (s *Server) Handler() http.Handler { return s.handler }

func (s *Server) build(extra []route) http.Handler {
	mux := http.NewServeMux()
	for _, rt := range append(s.routes(), extra...) {
		if rt.cache == "" {
			rt.cache = noStore
		}
		rt.cacheHdr = []string{rt.cache}
		mux.Handle(rt.pattern, s.wrap(rt))
	}
	return s.withSimulated(s.withRequestID(s.withFraming(s.withRecover(s.withInstrument(s.withCORS(s.dispatch(mux)))))))
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// reqInfo is the per-request state shared by the middleware, stored once in
// the context.
type reqInfo struct {
	// The request's context: reqInfo is its own context value, so storing
	// it costs no separate context.WithValue node.
	context.Context
	id  string
	key *apikey.Key
	// start is when withInstrument began timing the request.
	start time.Time
	// charged: the limiter counted the request (usage.Record.Charged).
	charged bool
	rec     recorder  // the response recorder of withInstrument
	idHdr   [1]string // the x-request-id header value
	// rlHdr backs the RateLimit-* header values (setRateLimitHeaders).
	rlHdr [3]string
}

// Value answers ctxKey with the reqInfo itself, anything else from the
// parent context.
func (ri *reqInfo) Value(k any) any {
	if _, ok := k.(ctxKey); ok {
		return ri
	}
	return ri.Context.Value(k)
}

type ctxKey struct{}

func info(ctx context.Context) *reqInfo {
	ri, _ := ctx.Value(ctxKey{}).(*reqInfo)
	return ri
}

func requestID(ctx context.Context) string {
	if ri := info(ctx); ri != nil {
		return ri.id
	}
	return ""
}

// KeyFrom returns the authenticated API key of the request, or nil.
func KeyFrom(ctx context.Context) *apikey.Key {
	if ri := info(ctx); ri != nil {
		return ri.key
	}
	return nil
}
