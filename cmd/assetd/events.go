package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/depeg"
	"github.com/assetd/assetd/internal/events"
	"github.com/assetd/assetd/internal/events/jsevents"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/marketcache"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/natsbus"
	"github.com/assetd/assetd/internal/registry"
	"github.com/prometheus/client_golang/prometheus"
)

// eventFlags configure the event log and the stream (docs/events.md).
type eventFlags struct {
	retention    time.Duration
	maxEvents    int
	priceStep    float64
	connsPerKey  int
	topicsPerKey int
	buffer       int
}

func addEventFlags(fs *flag.FlagSet, f *eventFlags) {
	fs.DurationVar(&f.retention, "events-retention", events.DefaultRetention, "how long the event log keeps events for resuming streams (docs/events.md)")
	fs.IntVar(&f.maxEvents, "events-max", events.DefaultMaxEvents, "most events the log keeps (the oldest go first)")
	fs.Float64Var(&f.priceStep, "event-price-step", events.DefaultPriceStep, "relative price move from a mint's last price event that makes a new one (0.005: 0.5%)")
	fs.IntVar(&f.connsPerKey, "stream-conns-per-key", events.DefaultConnsPerKey, "open GET /v1/stream connections per API key (429 beyond)")
	fs.IntVar(&f.topicsPerKey, "stream-topics-per-key", events.DefaultTopicsPerKey, "topics of one API key's open streams together (429 beyond)")
	fs.IntVar(&f.buffer, "stream-buffer", events.DefaultClientBuffer, "events queued for one stream client; one further behind is cut with an overflow event")
}

func (f eventFlags) validate() error {
	if f.retention < time.Minute || f.maxEvents < 100 || !(f.priceStep > 0 && f.priceStep < 1) ||
		f.connsPerKey < 1 || f.topicsPerKey < 1 || f.buffer < 1 {
		return errors.New("--events-retention must be at least 1m, --events-max at least 100, --event-price-step within (0, 1) and the --stream-* limits at least 1")
	}
	return nil
}

// eventLog is what serve needs of an event log implementation.
type eventLog interface {
	events.Reader
	events.Appender
	Run(ctx context.Context)
}

// openEventLog returns the log: JetStream with --nats-url (every replica
// serves the stream's sequence), the store's events table otherwise.
func openEventLog(ctx context.Context, f eventFlags, st store, bus *natsbus.Bus, log *slog.Logger) (eventLog, error) {
	if bus != nil {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		l, err := jsevents.Open(cctx, bus.JetStream(), jsevents.Config{Prefix: bus.Prefix(), Retention: f.retention, MaxEvents: f.maxEvents, Log: log})
		if err != nil {
			return nil, fmt.Errorf("event log on NATS: %w", err)
		}
		log.Info("event log on JetStream", "stream", jsevents.StreamName(bus.Prefix()), "retention", f.retention, "max_events", f.maxEvents)
		return l, nil
	}
	l := events.NewStored(st, events.LogOptions{Retention: f.retention, MaxEvents: f.maxEvents, Log: log})
	if err := l.Load(ctx); err != nil {
		return nil, fmt.Errorf("event log: %w", err)
	}
	log.Info("event log in the store", "last_id", l.Last(), "retention", f.retention, "max_events", f.maxEvents)
	return l, nil
}

// producerInputs reads the state the producer compares from memory.
type producerInputs struct {
	cache      *marketcache.Cache
	advisories *lists.AdvisoryIndex
	views      *lists.Views
	trending   func() []string
	guard      *depeg.Guard
	snapshot   func() *registry.Snapshot
	leader     func() bool

	mu       sync.Mutex
	coinSnap *registry.Snapshot
	coins    []depeg.Coin
	// What depegVersion saw last, and its count of changes.
	verSnap  *registry.Snapshot
	verGen   uint64
	depegVer uint64
}

func (p *producerInputs) inputs() events.Inputs {
	return events.Inputs{
		PriceChanges: p.priceChanges,
		Price:        p.price,
		Advisories:   p.advisoryStates,
		Lists:        p.listStates,
		Trending:     p.trending,
		Depeg:        p.depegStates,
		Leader:       p.leader,
		// Versions: an idle tick builds none of these states.
		AdvisoriesVersion: p.advisories.Version,
		ListsVersion:      p.views.Version,
		DepegVersion:      p.depegVersion,
	}
}

func (p *producerInputs) priceChanges(since uint64) ([]string, uint64, bool) {
	changes, last, complete := p.cache.Changes(since)
	mints := make([]string, 0, len(changes))
	for _, c := range changes {
		if c.Kind == market.ChangeMint {
			mints = append(mints, c.Key)
		}
	}
	return mints, last, complete
}

func (p *producerInputs) price(mint string) (events.PriceQuote, bool) {
	m := p.cache.Market(mint)
	if m == nil || m.Price == nil {
		return events.PriceQuote{}, false
	}
	// The price is the trades' when the engine overlaid them
	// (metricsSource analytics_trades), else the snapshot provider's.
	src := m.Source
	if m.MetricsSource != "" {
		src = m.MetricsSource
	}
	return events.PriceQuote{PriceUSD: *m.Price, Source: src}, true
}

func (p *producerInputs) advisoryStates() map[string]events.AdvisoryState {
	all := p.advisories.All()
	out := make(map[string]events.AdvisoryState, len(all))
	for mint, a := range all {
		out[mint] = events.AdvisoryState{Status: a.Status, Reason: a.Reason, URL: a.URL, Since: a.Since}
	}
	return out
}

// listStates are the published lists (unlisted ones are readable by slug
// only, and their changes are not announced).
func (p *producerInputs) listStates() map[string]events.ListState {
	all := p.views.All()
	out := make(map[string]events.ListState, len(all))
	for slug, v := range all {
		if !v.List.Listed() {
			continue
		}
		members := make([]string, len(v.Members))
		for i, m := range v.Members {
			members[i] = m.Mint
		}
		out[slug] = events.ListState{Name: v.List.Name, Status: v.List.Status, UpdatedAt: v.List.UpdatedAt, Members: members}
	}
	return out
}

// depegVersion moves when a guard cycle replaces its judgements or the
// registry snapshot (the coins judged) changes.
func (p *producerInputs) depegVersion() uint64 {
	snap, gen := p.snapshot(), p.guard.Generation()
	p.mu.Lock()
	defer p.mu.Unlock()
	if snap != p.verSnap || gen != p.verGen {
		p.verSnap, p.verGen = snap, gen
		p.depegVer++
	}
	return p.depegVer
}

func (p *producerInputs) depegStates() map[string]events.DepegState {
	snap := p.snapshot()
	p.mu.Lock()
	if snap != p.coinSnap {
		p.coinSnap, p.coins = snap, depeg.Coins(snap)
	}
	coins := p.coins
	p.mu.Unlock()
	out := make(map[string]events.DepegState, len(coins))
	for _, c := range coins {
		h, ok := p.guard.Health(c.Mint)
		if !ok {
			continue
		}
		out[c.Mint] = events.DepegState{VariantID: h.VariantID, Tier: h.Tier.String(), DeviationPct: h.DeviationPct, PriceUSD: h.PriceUSD}
	}
	return out
}

// registerEventMetrics exports the log's and the stream's state.
func registerEventMetrics(m *metrics.Metrics, l events.Reader, hub *events.Hub) func(events.Event) {
	appended := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "assetd_events_appended_total",
		Help: "Events this replica appended to the event log, by type."}, []string{"type"})
	m.Registry.MustRegister(appended,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "assetd_events_last_id", Help: "The event log's last event id as this replica reads it."},
			func() float64 { return float64(l.Last()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "assetd_stream_clients", Help: "Open GET /v1/stream connections."},
			func() float64 { return float64(hub.Clients()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "assetd_stream_overflows_total", Help: "Stream clients cut with an overflow event."},
			func() float64 { return float64(hub.Overflows()) }),
	)
	return func(e events.Event) { appended.WithLabelValues(e.Type).Inc() }
}
