package events

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"time"
)

// Producer defaults (docs/events.md "Event types").
const (
	// DefaultPriceStep: a price event needs a move of at least 0.5% from
	// the last price event of the mint.
	DefaultPriceStep = 0.005
	// PriceMinInterval: at most one price event per mint per second.
	PriceMinInterval = time.Second
	// DefaultProduceEvery is how often the producer compares state.
	DefaultProduceEvery = time.Second
)

// Appender is the log producers write to (Stored, JetStream, Memory).
type Appender interface {
	AppendBatch(ctx context.Context, evs []Event) ([]Event, error)
}

// PriceQuote is a mint's current USD price and where it came from.
type PriceQuote struct {
	PriceUSD float64
	Source   string
}

// AdvisoryState is a mint's current advisory.
type AdvisoryState struct {
	Status string  `json:"status"`
	Reason string  `json:"reason"`
	URL    *string `json:"url"`
	Since  int64   `json:"since"`
}

// ListState is a readable community list's current metadata and members.
type ListState struct {
	Name      string   `json:"name"`
	Status    string   `json:"status"`
	UpdatedAt int64    `json:"updatedAt"`
	Members   []string `json:"-"` // mints in rank order
}

// DepegState is a stablecoin's current depeg tier.
type DepegState struct {
	VariantID    string   `json:"variantId"`
	Tier         string   `json:"tier"`
	DeviationPct *float64 `json:"deviationPct"`
	PriceUSD     *float64 `json:"priceUsd"`
}

// Inputs are the state the producer compares; any may be nil (that event
// type is then not produced).
type Inputs struct {
	// PriceChanges returns the mints whose trade-derived or provider data
	// changed after since (complete false: some were dropped, recheck all).
	PriceChanges func(since uint64) (mints []string, last uint64, complete bool)
	Price        func(mint string) (PriceQuote, bool)
	Advisories   func() map[string]AdvisoryState
	Lists        func() map[string]ListState
	Trending     func() []string
	Depeg        func() map[string]DepegState
	// AdvisoriesVersion, ListsVersion and DepegVersion, when set, move
	// whenever their state may have changed: a tick whose version equals
	// the last compared one skips that state (nothing is built, sorted or
	// compared), so an idle producer costs nothing in proportion to the
	// registry or the lists. Read before the state it versions.
	AdvisoriesVersion func() uint64
	ListsVersion      func() uint64
	DepegVersion      func() uint64
	// Leader says this replica writes events (nil: it does). Every replica
	// compares state; only the leader appends (docs/events.md "Cluster").
	Leader func() bool
}

// ProducerOptions tune a Producer.
type ProducerOptions struct {
	PriceStep float64 // relative move, e.g. 0.005
	Now       func() time.Time
	Log       *slog.Logger
	// Observe is told each appended event (metrics, latency); may be nil.
	Observe func(Event)
}

// Producer turns state changes into events: it keeps the last state it
// saw of each input and appends the differences.
type Producer struct {
	in   Inputs
	out  Appender
	opts ProducerOptions

	priceSeq uint64
	primed   bool
	prices   map[string]priceMark
	adv      map[string]AdvisoryState
	lists    map[string]ListState
	trending map[string]int
	depeg    map[string]DepegState
	// Versions of the state last compared (see Inputs).
	advVer, listsVer, depegVer uint64
}

// unchanged reports whether version says the state compared last is
// still current (never before a first comparison); otherwise it records
// the version about to be compared.
func unchanged(version func() uint64, last *uint64, compared bool) bool {
	if version == nil {
		return false
	}
	v := version()
	if compared && v == *last {
		return true
	}
	*last = v
	return false
}

type priceMark struct {
	price float64
	at    time.Time
}

// NewProducer returns a producer appending to out.
func NewProducer(in Inputs, out Appender, opts ProducerOptions) *Producer {
	if !(opts.PriceStep > 0) {
		opts.PriceStep = DefaultPriceStep
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Producer{in: in, out: out, opts: opts, prices: map[string]priceMark{}}
}

// Run compares state every interval until ctx ends.
func (p *Producer) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := p.Tick(ctx); err != nil && ctx.Err() == nil {
			p.opts.Log.Warn("event producer: append failed; the changes are compared again next tick", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Tick compares the inputs once and appends the differences (on the
// leader). The first tick only records the state: a restart does not
// replay every advisory and list as new.
func (p *Producer) Tick(ctx context.Context) error {
	now := p.opts.Now().UTC()
	var evs []Event
	evs = p.diffPrices(now, evs)
	evs = p.diffAdvisories(evs)
	evs = p.diffLists(evs)
	evs = p.diffTrending(now, evs)
	evs = p.diffDepeg(evs)
	first := !p.primed
	p.primed = true
	if first || len(evs) == 0 || (p.in.Leader != nil && !p.in.Leader()) {
		return nil
	}
	out, err := p.out.AppendBatch(ctx, evs)
	if err != nil {
		return err
	}
	if p.opts.Observe != nil {
		for _, e := range out {
			p.opts.Observe(e)
		}
	}
	return nil
}

func (p *Producer) diffPrices(now time.Time, evs []Event) []Event {
	if p.in.PriceChanges == nil || p.in.Price == nil {
		return evs
	}
	mints, last, complete := p.in.PriceChanges(p.priceSeq)
	p.priceSeq = last
	if !complete {
		for m := range p.prices {
			mints = append(mints, m)
		}
	}
	slices.Sort(mints)
	mints = slices.Compact(mints)
	for _, mint := range mints {
		q, ok := p.in.Price(mint)
		if !ok || !(q.PriceUSD > 0) || math.IsInf(q.PriceUSD, 0) {
			continue
		}
		prev, seen := p.prices[mint]
		if !seen {
			p.prices[mint] = priceMark{price: q.PriceUSD, at: now}
			continue
		}
		change := q.PriceUSD/prev.price - 1
		if math.Abs(change) < p.opts.PriceStep || now.Sub(prev.at) < PriceMinInterval {
			continue
		}
		p.prices[mint] = priceMark{price: q.PriceUSD, at: now}
		data := map[string]any{"mint": mint, "priceUsd": q.PriceUSD, "previousPriceUsd": prev.price,
			"changePct": round(change*100, 4), "source": q.Source}
		evs = append(evs, event(TypePrice, PriceTopic(mint), "price:"+mint+":"+strconv.FormatInt(now.Unix(), 10), data))
	}
	return evs
}

func round(v float64, digits int) float64 {
	f := math.Pow(10, float64(digits))
	return math.Round(v*f) / f
}

func (p *Producer) diffAdvisories(evs []Event) []Event {
	if p.in.Advisories == nil || unchanged(p.in.AdvisoriesVersion, &p.advVer, p.adv != nil) {
		return evs
	}
	cur := p.in.Advisories()
	if p.adv != nil {
		for _, mint := range sortedKeys(cur) {
			a := cur[mint]
			old, had := p.adv[mint]
			action := "set"
			if had {
				if old == a || (old.Status == a.Status && old.Reason == a.Reason && eqStr(old.URL, a.URL)) {
					continue
				}
				action = "changed"
			}
			data := map[string]any{"mint": mint, "action": action, "advisory": a}
			evs = append(evs, event(TypeAdvisory, TopicAdvisories, "", data))
		}
		for _, mint := range sortedKeys(p.adv) {
			if _, ok := cur[mint]; !ok {
				data := map[string]any{"mint": mint, "action": "lifted", "advisory": nil}
				evs = append(evs, event(TypeAdvisory, TopicAdvisories, "", data))
			}
		}
	}
	p.adv = cur
	return evs
}

func eqStr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func (p *Producer) diffLists(evs []Event) []Event {
	if p.in.Lists == nil || unchanged(p.in.ListsVersion, &p.listsVer, p.lists != nil) {
		return evs
	}
	cur := p.in.Lists()
	if p.lists != nil {
		for _, slug := range sortedKeys(cur) {
			l := cur[slug]
			old, had := p.lists[slug]
			if had && old.Name == l.Name && old.Status == l.Status && slices.Equal(old.Members, l.Members) {
				continue
			}
			added, removed := setDiff(old.Members, l.Members)
			action := "changed"
			if !had {
				action = "published"
			}
			data := map[string]any{"slug": slug, "action": action, "list": l, "memberCount": len(l.Members),
				"added": added, "removed": removed}
			evs = append(evs, event(TypeList, ListTopic(slug), "", data))
		}
		for _, slug := range sortedKeys(p.lists) {
			if _, ok := cur[slug]; !ok {
				data := map[string]any{"slug": slug, "action": "removed", "list": nil, "memberCount": 0,
					"added": []string{}, "removed": p.lists[slug].Members}
				evs = append(evs, event(TypeList, ListTopic(slug), "", data))
			}
		}
	}
	p.lists = cur
	return evs
}

// setDiff returns what b adds to a and what it drops from it (sorted).
func setDiff(a, b []string) (added, removed []string) {
	in := func(xs []string) map[string]bool {
		m := make(map[string]bool, len(xs))
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	added, removed = []string{}, []string{}
	for _, x := range b {
		if !ma[x] {
			added = append(added, x)
		}
	}
	for _, x := range a {
		if !mb[x] {
			removed = append(removed, x)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

func (p *Producer) diffTrending(now time.Time, evs []Event) []Event {
	if p.in.Trending == nil {
		return evs
	}
	rows := p.in.Trending()
	cur := make(map[string]int, len(rows))
	for i, m := range rows {
		cur[m] = i + 1
	}
	// An empty set is no baseline (the set is computed after start-up):
	// the first non-empty one is.
	if len(p.trending) > 0 {
		minute := strconv.FormatInt(now.Unix()/60, 10)
		for _, m := range rows {
			if _, ok := p.trending[m]; !ok {
				evs = append(evs, event(TypeTrending, TopicTrending, "trending:"+m+":entered:"+minute,
					map[string]any{"mint": m, "action": "entered", "rank": cur[m]}))
			}
		}
		for _, m := range sortedKeys(p.trending) {
			if _, ok := cur[m]; !ok {
				evs = append(evs, event(TypeTrending, TopicTrending, "trending:"+m+":left:"+minute,
					map[string]any{"mint": m, "action": "left", "rank": nil}))
			}
		}
	}
	p.trending = cur
	return evs
}

func (p *Producer) diffDepeg(evs []Event) []Event {
	if p.in.Depeg == nil || unchanged(p.in.DepegVersion, &p.depegVer, p.depeg != nil) {
		return evs
	}
	cur := p.in.Depeg()
	if p.depeg != nil {
		for _, mint := range sortedKeys(cur) {
			d := cur[mint]
			old, had := p.depeg[mint]
			if !had || old.Tier == d.Tier {
				continue // a coin's first judgement is its baseline
			}
			data := map[string]any{"mint": mint, "variantId": d.VariantID, "tier": d.Tier, "previousTier": old.Tier,
				"deviationPct": d.DeviationPct, "priceUsd": d.PriceUSD}
			evs = append(evs, event(TypeDepeg, TopicDepeg, "", data))
		}
	}
	p.depeg = cur
	return evs
}

// event builds an event; an empty key is derived from the payload (the
// same change seen by two replicas has the same key).
func event(typ, topic, key string, data any) Event {
	b, err := json.Marshal(data)
	if err != nil {
		b = []byte(`{}`)
	}
	if key == "" {
		sum := sha256.Sum256(b)
		key = typ + ":" + topic + ":" + hex.EncodeToString(sum[:12])
	}
	return Event{Type: typ, Topic: topic, Data: b, Key: key}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// AppendBatch appends evs in order (Memory as a producer's log).
func (m *Memory) AppendBatch(ctx context.Context, evs []Event) ([]Event, error) {
	out := make([]Event, 0, len(evs))
	for _, e := range evs {
		e, err := m.Append(ctx, e)
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}
