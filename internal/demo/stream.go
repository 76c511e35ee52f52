package demo

import "time"

// TradeStream delivers the simulated trades of a set of mints exactly
// once, in time windows that end on a complete minute of the world's
// clock (the world serves trades of complete minutes only), whatever the
// phase of the caller's ticker. It is not safe for concurrent use.
type TradeStream struct {
	w      *World
	next   int64 // unix seconds: trades before next were delivered
	window int64 // the span of one Trades call, seconds
}

// TradeStream returns a stream whose first Poll starts at from (rounded
// up to a whole second).
func (w *World) TradeStream(from time.Time) *TradeStream {
	next := from.Unix()
	if from.Nanosecond() > 0 {
		next++
	}
	return &TradeStream{w: w, next: next, window: secPerHour}
}

// Cursor is where the next Poll starts: every trade before it was
// delivered.
func (s *TradeStream) Cursor() time.Time { return time.Unix(s.next, 0) }

// Poll delivers, mint by mint, every trade with block time in [Cursor,
// end), where end is until or the start of the world's current minute,
// whichever is earlier, and moves the cursor to end. emit receives one
// mint's trades in time order, in batches of at most an hour and
// MaxTradesPerCall; it
// returns false to stop (the cursor then stays, and a later Poll repeats
// the mints already delivered). Poll returns the window it covered.
func (s *TradeStream) Poll(mints []string, until time.Time, emit func([]SimTrade) bool) (from, to time.Time, ok bool) {
	_, _, minute := s.w.clock()
	end := min(until.Unix(), minute)
	from = time.Unix(s.next, 0)
	if end <= s.next {
		return from, from, true
	}
	for _, mint := range mints {
		for a := s.next; a < end; {
			// At most an hour per call bounds the batch (and its memory).
			b := min(end, a+s.window)
			sim := s.w.Trades(mint, time.Unix(a, 0), time.Unix(b, 0))
			if len(sim) < MaxTradesPerCall {
				if len(sim) > 0 && !emit(sim) {
					return from, from, false
				}
				a = b
				continue
			}
			// Capped: deliver up to the last second served and go on from
			// it, so no trade is delivered twice or skipped.
			last := sim[len(sim)-1].BlockTime
			n := len(sim)
			for n > 0 && sim[n-1].BlockTime == last {
				n--
			}
			if n == 0 { // one second holds more than a call returns
				n, last = len(sim), last+1
			}
			if !emit(sim[:n]) {
				return from, from, false
			}
			a = last
		}
	}
	s.next = end
	return from, time.Unix(end, 0), true
}
