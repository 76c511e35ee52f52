package analytics

import "math"

// Admission is what the price rules (docs/prices.md) made of a valid
// trade: accepted, or rejected from the price as dust or as a price
// outlier. It is decided once, before the trade is stored, and stored
// with it, so a rebuild applies the same decision (never re-decides it).
type Admission uint8

// Admissions. AdmissionUnset is a trade not decided yet: Ingest decides
// it against the mint's reference at the time it is applied.
const (
	AdmissionUnset Admission = iota
	AdmissionAccepted
	AdmissionDust
	AdmissionOutlier
)

// Rejection reason codes (the stored reason column, metrics labels and
// the responses' rejected object).
const (
	RejectDust    = "dust"
	RejectOutlier = "price_outlier"
)

// Reason is the stored and reported code: "" for accepted (and unset),
// "dust" or "price_outlier".
func (a Admission) Reason() string {
	switch a {
	case AdmissionDust:
		return RejectDust
	case AdmissionOutlier:
		return RejectOutlier
	}
	return ""
}

// AdmissionOf maps a stored reason back; "" (and anything unknown, e.g. a
// row stored before the rules) is accepted.
func AdmissionOf(reason string) Admission {
	switch reason {
	case RejectDust:
		return AdmissionDust
	case RejectOutlier:
		return AdmissionOutlier
	}
	return AdmissionAccepted
}

// Admission rule constants (docs/prices.md, "Reference price").
const (
	// DefaultDustUSD is the default dust bound: a trade below $1 never
	// sets a price.
	DefaultDustUSD = 1.0
	// DefaultOutlierFactor is how far (either direction) from the
	// reference a trade's price may be and still set it.
	DefaultOutlierFactor = 3.0
	// RefTrades is how many of the latest accepted trades the reference
	// is the volume-weighted median of.
	RefTrades = 16
	// RefMinTrades is how many accepted trades within RefWindowSeconds of
	// the newest one the reference needs; with fewer, the fallback price
	// (the market cache's) is the reference, and with neither every
	// trade above the dust bound is accepted.
	RefMinTrades = 5
	// RefWindowSeconds bounds the age of the reference trades, measured
	// from the newest of them (24 h, the rebuild's window); when fewer
	// than RefMinTrades are that recent, all RefTrades are used.
	RefWindowSeconds = 24 * 3600
	// ConfirmTrades and ConfirmPoolTrades: a repricing is confirmed by
	// the ConfirmTrades-th consistent outlier, or by the
	// ConfirmPoolTrades-th when they came from at least two pools; the
	// confirming trade is accepted and the reference restarts from the
	// confirming trades.
	ConfirmTrades     = 10
	ConfirmPoolTrades = 5
	// ConfirmWindowSeconds: the consistent outliers must fall within this
	// span of block time from the first of them.
	ConfirmWindowSeconds = 3600
	// ConsistentFactor: an outlier is consistent with the pending
	// repricing when its price is within this factor of the first
	// outlier's and on the same side of the reference.
	ConsistentFactor = 1.5
)

// PriceSource is the fallback reference before a mint has RefMinTrades
// accepted trades: the market cache's price. Classify reads it once per
// mint and batch, with no engine lock held; trades applied undecided
// (Ingest without Classify: the demo stream) do without it.
type PriceSource interface {
	// ReferencePrice returns the mint's price, if known.
	ReferencePrice(mint string) (float64, bool)
}

// rules are an engine's admission parameters.
type rules struct {
	dustUSD  float64
	factor   float64
	fallback PriceSource
}

// refEntry is one trade of the reference: float32 price and size are
// ample for a comparison against a factor and keep the state small.
type refEntry struct {
	price, usd float32
	t          int64
}

// refEvery: the reference is recomputed at every RefEvery-th accepted
// trade (and at each one while there is none yet, and at a confirmed
// repricing), a fixed schedule: the same trades give the same reference.
const RefEvery = 4

// admission returns the mint's admission state, made on first use.
func (ms *mintState) admission() *admState {
	if ms.adm == nil {
		ms.adm = new(admState)
	}
	return ms.adm
}

// admState is one mint's admission state: a ring of its latest accepted
// trades (the reference's inputs), the reference they give, and the
// pending repricing. It is a fixed-size value: deciding a trade
// allocates nothing, and a batch decides on a copy.
type admState struct {
	ring     [RefTrades]refEntry
	n, next  int8
	since    int8    // accepted trades since the reference was computed
	ref      float64 // 0: fewer than RefMinTrades recent accepted trades
	cand     [ConfirmTrades]refEntry
	candN    int8
	candUp   bool   // the pending repricing is above the reference
	candPool string // the first non-empty pool of the pending repricing
	candTwo  bool   // a second pool was seen
	// rejected counts the mint's rejected trades by admission, for
	// metrics (never reset).
	dust, outliers uint64
}

// fallbackPrice is the fallback reference of mint, or 0.
func (r *rules) fallbackPrice(mint string) float64 {
	if r.fallback != nil {
		if p, ok := r.fallback.ReferencePrice(mint); ok && priceInRange(p) {
			return p
		}
	}
	return 0
}

// far reports whether price is more than the outlier factor from ref.
func (r *rules) far(price, ref float64) bool {
	return ref > 0 && (price > ref*r.factor || price*r.factor < ref)
}

// step decides t (unless given is set: then t's admission is given, as
// stored) against the state's reference, or fb (the fallback price, 0:
// none) while it has none, and moves the state on accordingly; it
// returns the admission.
// The same (state, trades, admissions) sequence always gives the same
// state, so a rebuild from stored admissions reproduces it.
func (r *rules) step(st *admState, t *Trade, given Admission, fb float64) Admission {
	a := given
	if a == AdmissionUnset && t.USDAmount < r.dustUSD {
		a = AdmissionDust
	}
	if a == AdmissionDust {
		st.dust++
		return a
	}
	// A stored decision moves the state by the trades alone (never by the
	// fallback, which may have changed since).
	ref := st.ref
	if a == AdmissionUnset && ref == 0 {
		ref = fb
	}
	isFar := r.far(t.PriceUSD, ref)
	if a == AdmissionUnset {
		switch {
		case !isFar:
			a = AdmissionAccepted
		case st.confirms(t, ref):
			a = AdmissionAccepted
		default:
			a = AdmissionOutlier
		}
	}
	if a == AdmissionOutlier {
		st.outliers++
		if ref > 0 {
			st.joinCandidate(t, ref)
		}
		return a
	}
	e := refEntry{price: float32(t.PriceUSD), usd: float32(t.USDAmount), t: t.BlockTime}
	repriced := isFar && st.candN > 0
	if repriced {
		// The confirmed repricing: the reference restarts from it.
		st.n, st.next = 0, 0
		for i := range int(st.candN) {
			st.push(st.cand[i])
		}
		st.resetCandidate()
	}
	st.push(e)
	if st.since++; repriced || st.ref == 0 || st.since >= RefEvery {
		st.ref, st.since = st.median(), 0
	}
	return AdmissionAccepted
}

// confirms reports whether t, an outlier against ref, joins the pending
// repricing and completes its confirmation.
func (st *admState) confirms(t *Trade, ref float64) bool {
	if !st.consistent(t, ref) {
		return false
	}
	n := int(st.candN) + 1
	if n >= ConfirmTrades {
		return true
	}
	return n >= ConfirmPoolTrades && (st.candTwo || st.candPool != "" && t.Pool != "" && t.Pool != st.candPool)
}

// consistent reports whether t extends the pending repricing.
func (st *admState) consistent(t *Trade, ref float64) bool {
	if st.candN == 0 || (t.PriceUSD > ref) != st.candUp {
		return false
	}
	first := &st.cand[0]
	if d := t.BlockTime - first.t; d > ConfirmWindowSeconds || d < -ConfirmWindowSeconds {
		return false
	}
	fp := float64(first.price)
	return t.PriceUSD <= fp*ConsistentFactor && t.PriceUSD*ConsistentFactor >= fp
}

// joinCandidate adds the outlier t to the pending repricing, or starts a
// new one with it.
func (st *admState) joinCandidate(t *Trade, ref float64) {
	if !st.consistent(t, ref) {
		st.resetCandidate()
		st.candUp = t.PriceUSD > ref
	}
	if int(st.candN) < ConfirmTrades {
		st.cand[st.candN] = refEntry{price: float32(t.PriceUSD), usd: float32(t.USDAmount), t: t.BlockTime}
		st.candN++
	}
	switch {
	case t.Pool == "" || st.candTwo:
	case st.candPool == "":
		st.candPool = t.Pool
	case t.Pool != st.candPool:
		st.candTwo = true
	}
}

func (st *admState) resetCandidate() {
	st.candN, st.candPool, st.candTwo = 0, "", false
}

func (st *admState) push(e refEntry) {
	st.ring[st.next] = e
	st.next = (st.next + 1) % RefTrades
	if st.n < RefTrades {
		st.n++
	}
}

// median is the volume-weighted median price of the ring's trades within
// RefWindowSeconds of the newest (or of all of them, when fewer than
// RefMinTrades are that recent: trades may come out of block-time
// order), each weight capped at the median trade size among them (so no
// single trade carries the median); 0 with fewer than RefMinTrades
// trades in the ring.
func (st *admState) median() float64 {
	var newest int64 = math.MinInt64
	for i := range int(st.n) {
		newest = max(newest, st.ring[i].t)
	}
	var es [RefTrades]refEntry
	var sizes [RefTrades]float32
	k := 0
	for i := range int(st.n) {
		if e := st.ring[i]; e.t >= newest-RefWindowSeconds {
			es[k], sizes[k] = e, e.usd
			k++
		}
	}
	if k < RefMinTrades {
		if int(st.n) < RefMinTrades {
			return 0
		}
		k = int(st.n)
		for i := range k {
			es[i], sizes[i] = st.ring[i], st.ring[i].usd
		}
	}
	// Insertion sorts: at most RefTrades entries, no allocation.
	for i := 1; i < k; i++ {
		for j := i; j > 0 && sizes[j] < sizes[j-1]; j-- {
			sizes[j], sizes[j-1] = sizes[j-1], sizes[j]
		}
		for j := i; j > 0 && es[j].price < es[j-1].price; j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
	capW := float64(sizes[(k-1)/2])
	total := 0.0
	for i := range k {
		total += min(float64(es[i].usd), capW)
	}
	acc := 0.0
	for i := range k {
		acc += min(float64(es[i].usd), capW)
		if acc >= total/2 {
			return float64(es[i].price)
		}
	}
	return float64(es[k-1].price)
}

// Classify decides the admission of every valid, undecided trade in
// trades (in order, each against the state the earlier ones of the batch
// leave, on a copy: the engine's state moves only when the trades are
// applied). internal/ingest calls it before storing a batch, so the
// decision is stored with the trade.
func (e *Engine) Classify(trades []Trade) {
	var (
		idx   map[string]int
		local []classifyState
	)
	for i := range trades {
		t := &trades[i]
		if t.Admission != AdmissionUnset {
			continue
		}
		if idx == nil {
			idx = make(map[string]int)
		}
		j, ok := idx[t.Mint]
		if !ok {
			j = len(local)
			idx[t.Mint] = j
			local = append(local, classifyState{fb: e.rules.fallbackPrice(t.Mint)})
			sh := e.shardOf(t.Mint)
			sh.mu.Lock()
			if ms := sh.mints[t.Mint]; ms != nil {
				if ms.adm != nil {
					local[j].st = *ms.adm
				}
			}
			sh.mu.Unlock()
		}
		t.Admission = e.rules.step(&local[j].st, t, AdmissionUnset, local[j].fb)
	}
}

// Admitted moves the admission state on by decided trades without
// applying them anywhere else: a store-only writer (ingest replay), whose
// engine serves nothing, keeps deciding its later batches against the
// references its earlier ones built.
func (e *Engine) Admitted(trades []Trade) {
	for i := range trades {
		t := &trades[i]
		if t.Admission == AdmissionUnset {
			continue
		}
		sh := e.shardOf(t.Mint)
		sh.mu.Lock()
		e.rules.step(sh.state(t.Mint).admission(), t, t.Admission, 0)
		sh.mu.Unlock()
	}
}

type classifyState struct {
	st admState
	fb float64
}

// RejectedCount is one mint's rejected trades of one reason since start
// (metrics).
type RejectedCount struct {
	Mint   string
	Reason string
	Count  uint64
}

// RejectedCounts returns, per mint and reason, the trades rejected from
// the price since the engine started (rebuild included), for metrics.
func (e *Engine) RejectedCounts() []RejectedCount {
	var out []RejectedCount
	for si := range e.shards {
		sh := &e.shards[si]
		sh.mu.Lock()
		for mint, ms := range sh.mints {
			if ms.adm == nil {
				continue
			}
			if ms.adm.dust > 0 {
				out = append(out, RejectedCount{Mint: mint, Reason: RejectDust, Count: ms.adm.dust})
			}
			if ms.adm.outliers > 0 {
				out = append(out, RejectedCount{Mint: mint, Reason: RejectOutlier, Count: ms.adm.outliers})
			}
		}
		sh.mu.Unlock()
	}
	return out
}

// Reference returns the mint's reference price from its accepted trades
// (0: fewer than RefMinTrades yet).
func (e *Engine) Reference(mint string) float64 {
	sh := e.shardOf(mint)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if ms := sh.mints[mint]; ms != nil && ms.adm != nil && ms.adm.ref > 0 {
		return ms.adm.ref
	}
	return 0
}
