package analytics

// Admit is the validation half of Ingest, for callers that store trades
// before they enter the engine (internal/ingest): it returns the trades
// Ingest would not reject (Validate, and block times past the clock plus
// MaxFutureSkew) in their order, dropping the later of two with one
// identity (signature and leg), and counts the rejected and the dropped (Duplicates). It
// changes no engine state.
func (e *Engine) Admit(trades []Trade) ([]Trade, IngestResult) {
	latest := e.clock().Unix() + e.skew
	var res IngestResult
	out := make([]Trade, 0, len(trades))
	seen := make(map[TradeID]struct{}, len(trades))
	for i := range trades {
		t := &trades[i]
		if !res.admit(t, latest) {
			continue
		}
		if _, dup := seen[t.ID()]; dup {
			res.Duplicates++
			continue
		}
		seen[t.ID()] = struct{}{}
		out = append(out, *t)
	}
	return out, res
}

// admit reports whether t passes Validate and its block time is at most
// latest, counting the rejection in r otherwise.
func (r *IngestResult) admit(t *Trade, latest int64) bool {
	if err := t.Validate(); err != nil {
		r.reject(ReasonOf(err))
		return false
	}
	if t.BlockTime > latest {
		r.reject(ReasonFutureBlockTime)
		return false
	}
	return true
}
