package analytics

import (
	"math"
	"slices"
)

// Rolling windows, in minutes. A window of L minutes evaluated at minute
// M (M = floor(now/60)) covers the buckets of minutes M-L+1 .. M: the
// current, partial minute and the L-1 before it.
const (
	win5m = iota
	win15m
	win1h
	win6h
	win24h
	numWindows
)

// windowMinutes is read-only.
var windowMinutes = [numWindows]int64{5, 15, 60, 360, 1440}

// ringMinutes is how many minutes of buckets a mint keeps: the longest
// window.
const ringMinutes = 1440

// Rolling unique-wallet windows (the ones the spec reports).
const (
	wal5m = iota
	wal1h
	wal24h
	numWalletWindows
)

// walletWindow (read-only) maps a wallet window to its window.
var walletWindow = [numWalletWindows]int{win5m, win1h, win24h}

// tick is one trade in a minute bucket, kept for markouts and the price
// path, in trade order (see orderKey).
type tick struct {
	k     orderKey
	price float64
	qty   float64 // token amount, + for buys, - for sells
}

func (a *tick) after(b *tick) bool { return a.k.after(&b.k) }

// walletList holds the wallet hashes of a minute's trades: appended per
// trade (duplicates allowed), sorted and deduplicated in place before the
// rolling windows read it (compact).
type walletList struct {
	h      []uint64
	sorted int // h[:sorted] is sorted and unique; later entries came since
}

func (l *walletList) add(h uint64) { l.h = append(l.h, h) }

// compact sorts and deduplicates the list.
func (l *walletList) compact() []uint64 {
	if l.sorted == len(l.h) {
		return l.h
	}
	slices.Sort(l.h)
	l.h = slices.Compact(l.h)
	l.sorted = len(l.h)
	return l.h
}

// bucket aggregates the trades of one minute of one mint.
type bucket struct {
	min       int64 // unix minute
	vol       float64
	botVol    float64
	fee       float64
	trades    int32
	botTrades int32
	// dust and outliers count this minute's trades rejected from the
	// price (they are in trades; dust also in vol).
	dust, outliers int32
	wallets        walletList
	flows          []string // distinct non-empty flow sources
	// ticks are this minute's trades, ticks[:sortedTicks] in order-key
	// order and any later ones appended as they came (trades arrive out of
	// order; inserting each in place cost a memmove per trade). Readers go
	// through sorted or last, which sort first.
	ticks       []tick
	sortedTicks int
	// Markouts of this minute's trades (they look at most 5 s ahead, so
	// into this minute and the next), cached until a trade lands in
	// either (mkFresh false).
	mkPnl   float64
	mkCount int32
	mkFresh bool
}

// last is the latest tick in trade order; the bucket has ticks (an
// accepted trade).
func (b *bucket) last() *tick {
	b.sort()
	return &b.ticks[len(b.ticks)-1]
}

// addTick adds k; in trade order it comes after any tick it ties with.
func (b *bucket) addTick(k tick) {
	n := len(b.ticks)
	if b.sortedTicks == n && (n == 0 || !b.ticks[n-1].after(&k)) {
		b.sortedTicks++
	}
	b.ticks = append(b.ticks, k)
}

// setTicks replaces the ticks with ts, which are in trade order.
func (b *bucket) setTicks(ts []tick) {
	b.ticks = ts
	b.sortedTicks = len(ts)
}

// sort puts the ticks in trade order; ties keep their arrival order, as
// inserting each after the ticks it ties with did.
func (b *bucket) sort() {
	if b.sortedTicks == len(b.ticks) {
		return
	}
	slices.SortStableFunc(b.ticks, func(x, y tick) int {
		switch {
		case x.after(&y):
			return 1
		case y.after(&x):
			return -1
		}
		return 0
	})
	b.sortedTicks = len(b.ticks)
}

func (b *bucket) addFlow(f string) {
	if f == "" {
		return
	}
	for _, x := range b.flows {
		if x == f {
			return
		}
	}
	b.flows = append(b.flows, f)
}

// rolling holds the window sums at minute head, maintained incrementally
// on ingest and on advance so trending reads them in O(1).
type rolling struct {
	vol    [numWindows]float64
	trades [numWindows]int64
	// lastSeen maps each wallet that traded in the 24h window to the
	// latest minute it traded; uniq counts, per wallet window, the wallets
	// whose latest minute lies in the window.
	lastSeen walletMinutes
	uniq     [numWalletWindows]int64
	// rej counts the 24h window's rejected trades: [0] dust, [1] outliers.
	rej [2]int64
}

// mintState is everything the engine keeps about one mint. It is guarded
// by its shard's mutex.
type mintState struct {
	mint string
	// head is the minute the windows are anchored at: the latest of the
	// trade minutes and the clock minutes seen. Every bucket is at or
	// before head and after head-ringMinutes.
	head    int64
	bk      []bucket // ascending by minute, sparse
	anchor  tick     // latest trade older than every bucket
	hasAnch bool
	roll    rolling
	series  [numIntervals]series
	// adm is the mint's trade admission state (admission.go), made at
	// its first trade (mints loaded from stored candles only have none).
	adm *admState
	// tradeHead is the latest trade minute seen; buckets of minutes
	// before sealedTo are sealed (see seal).
	tradeHead, sealedTo int64
}

// sealLagMinutes is how far the mint's newest trade must be past a
// minute before its bucket is sealed: its markouts (which look 5 s
// ahead, into the next minute) are computed for good and its per-trade
// state is dropped, keeping only the last trade (the price path) and the
// distinct wallets. A trade arriving later than that into a sealed
// minute counts in every sum and count but has no markout.
const sealLagMinutes = 3

// seal seals the buckets of minutes before c (ascending, so a bucket's
// markouts are computed while the next minute's trades are still there).
func (ms *mintState) seal(c int64) {
	for i := ms.find(ms.sealedTo); i < len(ms.bk) && ms.bk[i].min < c; i++ {
		b := &ms.bk[i]
		if !b.mkFresh {
			ms.markoutBucket(i)
		}
		if len(b.ticks) > 1 {
			b.setTicks([]tick{*b.last()})
		}
		if h := b.wallets.compact(); cap(h) > len(h)+len(h)/4 {
			b.wallets.h = slices.Clone(h)
		}
	}
	ms.sealedTo = c
}

// find returns the index of the first bucket with minute >= m.
func (ms *mintState) find(m int64) int {
	bk := ms.bk
	// Most lookups are for the newest minutes.
	if n := len(bk); n == 0 || bk[n-1].min < m {
		return n
	} else if bk[n-1].min == m {
		return n - 1
	}
	lo, hi := 0, len(bk)-1 // bk[len-1].min > m
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if bk[h].min < m {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// lastAtOrBefore returns the latest tick in a minute <= m, if any.
func (ms *mintState) lastAtOrBefore(m int64) (*tick, bool) {
	for i := ms.find(m + 1); i > 0; i-- {
		if b := &ms.bk[i-1]; len(b.ticks) > 0 {
			return b.last(), true
		}
	}
	if ms.hasAnch {
		return &ms.anchor, true
	}
	return nil, false
}

// advance moves head to m (no-op unless m > head): buckets leave the
// windows they no longer belong to and buckets older than the ring are
// dropped, the newest of them becoming the anchor.
func (ms *mintState) advance(m int64) {
	if m <= ms.head {
		return
	}
	r := &ms.roll
	for w := range numWindows {
		l := windowMinutes[w]
		if r.trades[w] == 0 {
			continue
		}
		ww := walletWindowOf(w)
		if m-l >= ms.head {
			// Everything in the window leaves.
			r.vol[w], r.trades[w] = 0, 0
			if ww >= 0 {
				r.uniq[ww] = 0
			}
			if w == win24h {
				r.lastSeen.reset()
				r.rej = [2]int64{}
			}
			continue
		}
		// Leaving: minutes head-l+1 .. m-l.
		for i := ms.find(ms.head - l + 1); i < len(ms.bk) && ms.bk[i].min <= m-l; i++ {
			b := &ms.bk[i]
			r.vol[w] -= b.vol
			r.trades[w] -= int64(b.trades)
			if w == win24h {
				r.rej[0] -= int64(b.dust)
				r.rej[1] -= int64(b.outliers)
			}
			if ww >= 0 {
				r.dropWallets(ww, w == win24h, b)
			}
		}
		if r.trades[w] <= 0 {
			r.trades[w], r.vol[w] = 0, 0
			if w == win24h {
				r.rej = [2]int64{}
			}
		}
		r.vol[w] = max(r.vol[w], 0)
	}
	ms.head = m
	// Drop buckets that left the longest window.
	n := 0
	for n < len(ms.bk) && ms.bk[n].min <= m-ringMinutes {
		n++
	}
	if n > 0 {
		for i := n - 1; i >= 0; i-- {
			if len(ms.bk[i].ticks) == 0 {
				continue
			}
			t := *ms.bk[i].last()
			if !ms.hasAnch || t.after(&ms.anchor) {
				ms.anchor, ms.hasAnch = t, true
			}
			break
		}
		clear(ms.bk[:n])
		ms.bk = ms.bk[n:]
		if len(ms.bk) == 0 {
			ms.bk = nil
		}
	}
}

// walletWindowOf maps a window to its wallet window, or -1.
func walletWindowOf(w int) int {
	switch w {
	case win5m:
		return wal5m
	case win1h:
		return wal1h
	case win24h:
		return wal24h
	}
	return -1
}

// dropWallets handles bucket b leaving wallet window ww: wallets whose
// latest minute is b's leave the count (and, for the 24h window, the
// lastSeen map).
func (r *rolling) dropWallets(ww int, forget bool, b *bucket) {
	for _, h := range b.wallets.compact() {
		if last, ok := r.lastSeen.get(h); ok && last == b.min {
			r.uniq[ww]--
			if forget {
				r.lastSeen.del(h)
			}
		}
	}
}

// addTrade records one trade in minute m's bucket (m > head-ringMinutes
// and m <= head, the caller advanced first) and in the rolling windows.
// Every trade counts in the trade and wallet counts; a price outlier
// nowhere else, dust in the USD volume too, and only an accepted trade
// in the price path (and so the price, price changes and markouts).
func (ms *mintState) addTrade(m int64, t *Trade, k tick, walletHash uint64, a Admission) {
	i := ms.find(m)
	if i == len(ms.bk) {
		ms.bk = append(ms.bk, bucket{min: m})
	} else if ms.bk[i].min != m {
		ms.bk = slices.Insert(ms.bk, i, bucket{min: m})
	}
	b := &ms.bk[i]
	switch {
	case a == AdmissionDust || a == AdmissionOutlier:
		if a == AdmissionDust {
			b.dust++
			ms.roll.rej[0]++
		} else {
			b.outliers++
			ms.roll.rej[1]++
		}
	case m < ms.sealedTo:
		// A late trade in a sealed minute: no markout (the cache stays),
		// the bucket keeps only its last trade.
		b.mkFresh = true
		if len(b.ticks) == 0 {
			b.setTicks(append(b.ticks, k))
		} else if k.after(b.last()) {
			b.ticks[0] = k
		}
	default:
		b.mkFresh = false
		if i > 0 && ms.bk[i-1].min >= ms.sealedTo {
			ms.bk[i-1].mkFresh = false
		}
		b.addTick(k)
	}
	usd := t.USDAmount
	if a == AdmissionOutlier {
		usd = 0
	}
	b.vol = addSat(b.vol, usd)
	b.trades++
	if t.IsBot {
		b.botVol = addSat(b.botVol, usd)
		b.botTrades++
	}
	if a != AdmissionOutlier {
		b.fee = addSat(b.fee, t.FeeUSD)
	}
	b.addFlow(t.FlowSource)
	b.wallets.add(walletHash)

	r := &ms.roll
	for w := range numWindows {
		if m > ms.head-windowMinutes[w] {
			r.vol[w] = addSat(r.vol[w], usd)
			r.trades[w]++
		}
	}
	if m > ms.tradeHead {
		ms.tradeHead = m
		if c := m - sealLagMinutes + 1; c > ms.sealedTo {
			ms.seal(c)
		}
	}
	prev, had := r.lastSeen.setIfLater(walletHash, m)
	if !had || m > prev {
		for k, w := range walletWindow {
			edge := ms.head - windowMinutes[w]
			if m > edge && !(had && prev > edge) {
				r.uniq[k]++
			}
		}
	}
}

// resync recomputes the rolling volume and trade sums from the buckets,
// bounding the drift of incremental float sums. Callers advanced to head.
func (ms *mintState) resync() {
	r := &ms.roll
	r.vol, r.trades = [numWindows]float64{}, [numWindows]int64{}
	r.rej = [2]int64{}
	for i := range ms.bk {
		b := &ms.bk[i]
		if b.min > ms.head-windowMinutes[win24h] {
			r.rej[0] += int64(b.dust)
			r.rej[1] += int64(b.outliers)
		}
		for w := range numWindows {
			if b.min > ms.head-windowMinutes[w] {
				r.vol[w] = addSat(r.vol[w], b.vol)
				r.trades[w] += int64(b.trades)
			}
		}
	}
}

// addHistorical records a trade too old for the ring: it only matters as
// a candidate anchor (the price before the ring).
func (ms *mintState) addHistorical(k tick) {
	if !ms.hasAnch || k.after(&ms.anchor) {
		ms.anchor, ms.hasAnch = k, true
	}
}

// WindowMetrics are a mint's rolling-window metrics at AsOf, in the shape
// of the trending row's market block.
type WindowMetrics struct {
	Source                string   `json:"source"`
	MetricsSource         string   `json:"metricsSource"`
	Price                 *float64 `json:"price"`
	Volume5mUSD           float64  `json:"volume5mUSD"`
	Volume15mUSD          float64  `json:"volume15mUSD"`
	Volume1hUSD           float64  `json:"volume1hUSD"`
	Volume6hUSD           float64  `json:"volume6hUSD"`
	Volume24hUSD          float64  `json:"volume24hUSD"`
	Trade5m               int64    `json:"trade5m"`
	Trade15m              int64    `json:"trade15m"`
	Trade1h               int64    `json:"trade1h"`
	Trade6h               int64    `json:"trade6h"`
	Trade24h              int64    `json:"trade24h"`
	UniqueWallet5m        int64    `json:"uniqueWallet5m"`
	UniqueWallet1h        int64    `json:"uniqueWallet1h"`
	UniqueWallet24h       int64    `json:"uniqueWallet24h"`
	PriceChange1hPercent  *float64 `json:"priceChange1hPercent"`
	PriceChange24hPercent *float64 `json:"priceChange24hPercent"`
	LastTradeAt           *int64   `json:"lastTradeAt"`
	AsOf                  *int64   `json:"asOf"`
	// PriceTrades24h is the accepted trades (those that set the price) of
	// the 24h window; Rejected its trades rejected from the price.
	PriceTrades24h int64          `json:"priceTrades"`
	Rejected       RejectedCounts `json:"rejected,omitzero"`
}

// RejectedCounts counts trades rejected from the price, by reason
// (docs/prices.md).
type RejectedCounts struct {
	Dust         int64 `json:"dust"`
	PriceOutlier int64 `json:"price_outlier"`
}

// IsZero reports whether nothing was rejected (omitzero).
func (r RejectedCounts) IsZero() bool { return r.Dust == 0 && r.PriceOutlier == 0 }

// metrics returns the window metrics at minute m: from the rolling sums
// when the mint is anchored at m (the caller advanced to m), else by a
// scan.
func (ms *mintState) metrics(m, nowSec int64) WindowMetrics {
	if m != ms.head {
		return ms.scan(m, nowSec)
	}
	r := &ms.roll
	wm := WindowMetrics{Source: SourceAnalyticsTrades, MetricsSource: SourceAnalyticsTrades, AsOf: ptr(nowSec),
		Volume5mUSD: r.vol[win5m], Volume15mUSD: r.vol[win15m], Volume1hUSD: r.vol[win1h], Volume6hUSD: r.vol[win6h], Volume24hUSD: r.vol[win24h],
		Trade5m: r.trades[win5m], Trade15m: r.trades[win15m], Trade1h: r.trades[win1h], Trade6h: r.trades[win6h], Trade24h: r.trades[win24h],
		UniqueWallet5m: r.uniq[wal5m], UniqueWallet1h: r.uniq[wal1h], UniqueWallet24h: r.uniq[wal24h],
		Rejected: RejectedCounts{Dust: r.rej[0], PriceOutlier: r.rej[1]},
	}
	wm.PriceTrades24h = max(wm.Trade24h-r.rej[0]-r.rej[1], 0)
	ms.prices(&wm, m)
	return wm
}

// prices fills the price, last trade and price changes at minute m.
func (ms *mintState) prices(wm *WindowMetrics, m int64) {
	if last, ok := ms.lastAtOrBefore(m); ok {
		wm.Price = ptr(last.price)
		wm.LastTradeAt = ptr(last.k.t)
		wm.PriceChange1hPercent = ms.priceChange(last.price, m, windowMinutes[win1h])
		wm.PriceChange24hPercent = ms.priceChange(last.price, m, windowMinutes[win24h])
	}
}

// scan computes the window metrics at minute m from the buckets, exactly,
// in O(buckets + wallet entries): the fallback of metrics and the oracle
// the rolling sums are tested against. nowSec is the reported asOf.
func (ms *mintState) scan(m, nowSec int64) WindowMetrics {
	wm := WindowMetrics{Source: SourceAnalyticsTrades, MetricsSource: SourceAnalyticsTrades, AsOf: ptr(nowSec)}
	var vol [numWindows]float64
	var trades [numWindows]int64
	var rej [2]int64
	seen := make(map[uint64]int64) // wallet -> latest minute it traded
	lo := ms.find(m - ringMinutes + 1)
	for i := lo; i < len(ms.bk) && ms.bk[i].min <= m; i++ {
		b := &ms.bk[i]
		age := m - b.min
		for w := range numWindows {
			if age < windowMinutes[w] {
				vol[w] = addSat(vol[w], b.vol)
				trades[w] += int64(b.trades)
			}
		}
		rej[0] += int64(b.dust)
		rej[1] += int64(b.outliers)
		for _, h := range b.wallets.h {
			seen[h] = b.min
		}
	}
	var uniq [numWindows]int64
	for _, last := range seen {
		age := m - last
		for w := range numWindows {
			if age < windowMinutes[w] {
				uniq[w]++
			}
		}
	}
	wm.Volume5mUSD, wm.Volume15mUSD, wm.Volume1hUSD, wm.Volume6hUSD, wm.Volume24hUSD = vol[0], vol[1], vol[2], vol[3], vol[4]
	wm.Trade5m, wm.Trade15m, wm.Trade1h, wm.Trade6h, wm.Trade24h = trades[0], trades[1], trades[2], trades[3], trades[4]
	wm.UniqueWallet5m, wm.UniqueWallet1h, wm.UniqueWallet24h = uniq[win5m], uniq[win1h], uniq[win24h]
	wm.Rejected = RejectedCounts{Dust: rej[0], PriceOutlier: rej[1]}
	wm.PriceTrades24h = max(wm.Trade24h-rej[0]-rej[1], 0)
	ms.prices(&wm, m)
	return wm
}

// priceChange is the percent change from the price at the start of the
// L-minute window ending at minute m (the last trade before its first
// minute) to price; nil when no trade precedes the window.
func (ms *mintState) priceChange(price float64, m, l int64) *float64 {
	if pc, ok := ms.priceChangeVal(price, m, l); ok {
		return &pc
	}
	return nil
}

func (ms *mintState) priceChangeVal(price float64, m, l int64) (float64, bool) {
	then, ok := ms.lastAtOrBefore(m - l)
	if !ok || !(then.price > 0) {
		return 0, false
	}
	return (price - then.price) / then.price * 100, true
}

func ptr[T any](v T) *T { return &v }

// finite0 maps non-finite values to 0.
func finite0(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}
