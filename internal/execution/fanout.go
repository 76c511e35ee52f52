package execution

import (
	"context"
	"time"
)

// Fan-out constants.
const (
	// DefaultQuoteBudget bounds one fan-out (all sizes, all providers).
	DefaultQuoteBudget = 12 * time.Second
	// MinProviderTimeout is the floor of one provider call's timeout
	// (never beyond what is left of the budget).
	MinProviderTimeout = 1500 * time.Millisecond
	// QuoteConcurrency is how many sizes are quoted at a time; every
	// provider is asked in parallel for each size.
	QuoteConcurrency = 2
)

// Fanout quotes sizes across providers within a total budget.
type Fanout struct {
	Providers []Provider
	// Budget is the total budget (default DefaultQuoteBudget).
	Budget time.Duration
	// Now is the clock the remaining budget is measured with (default
	// time.Now). Call deadlines are also bounded by one context deadline
	// of Budget, so a provider that hangs cannot hold the fan-out longer.
	Now func() time.Time
}

// Result is one provider's answer for one size.
type Result struct {
	Provider string
	Quote    *Quote // nil when unavailable
	Reason   string // unavailable reason
	QuotedAt time.Time
}

// Run quotes every request with every provider and returns, per request,
// one Result per provider in provider order. Requests are processed
// QuoteConcurrency at a time; each call's timeout is the remaining budget
// divided by the batches left, at least MinProviderTimeout and at most the
// remaining budget. Requests whose batch starts with the budget spent are
// answered with timeout results without calling anyone.
func (f Fanout) Run(ctx context.Context, reqs []QuoteRequest) [][]Result {
	budget := f.Budget
	if budget <= 0 {
		budget = DefaultQuoteBudget
	}
	now := f.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	ctx, cancel := context.WithDeadline(ctx, start.Add(budget))
	defer cancel()
	out := make([][]Result, len(reqs))
	batches := (len(reqs) + QuoteConcurrency - 1) / QuoteConcurrency
	for b := 0; b < batches; b++ {
		lo, hi := b*QuoteConcurrency, min((b+1)*QuoteConcurrency, len(reqs))
		remaining := budget - now().Sub(start)
		if remaining <= 0 || ctx.Err() != nil {
			for i := lo; i < len(reqs); i++ {
				out[i] = f.timeouts(now())
			}
			return out
		}
		per := remaining / time.Duration(batches-b)
		per = min(max(per, MinProviderTimeout), remaining)
		type cell struct {
			i, p int
			r    Result
		}
		ch := make(chan cell, (hi-lo)*len(f.Providers))
		for i := lo; i < hi; i++ {
			out[i] = make([]Result, len(f.Providers))
			for p, prov := range f.Providers {
				go func() { ch <- cell{i, p, f.call(ctx, prov, reqs[i], per, now)} }()
			}
		}
		for range (hi - lo) * len(f.Providers) {
			c := <-ch
			out[c.i][c.p] = c.r
		}
	}
	return out
}

// call runs one provider call and returns when it answers or its timeout
// passes, whichever is first (a provider that ignores ctx is abandoned).
func (f Fanout) call(ctx context.Context, p Provider, req QuoteRequest, timeout time.Duration, now func() time.Time) Result {
	ctx, cancel := context.WithDeadline(ctx, now().Add(timeout)) // never beyond the fan-out's own deadline
	defer cancel()
	type answer struct {
		q   Quote
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		q, err := p.Quote(ctx, req)
		ch <- answer{q, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return Result{Provider: p.ID(), Reason: ReasonOf(a.err), QuotedAt: now()}
		}
		if a.q.OutAmount == nil || a.q.OutAmount.Sign() <= 0 {
			return Result{Provider: p.ID(), Reason: ReasonNoRoute, QuotedAt: now()}
		}
		if a.q.InAmount == nil {
			a.q.InAmount = req.Amount
		}
		return Result{Provider: p.ID(), Quote: &a.q, QuotedAt: now()}
	case <-ctx.Done():
		return Result{Provider: p.ID(), Reason: ReasonTimeout, QuotedAt: now()}
	}
}

func (f Fanout) timeouts(at time.Time) []Result {
	out := make([]Result, len(f.Providers))
	for i, p := range f.Providers {
		out[i] = Result{Provider: p.ID(), Reason: ReasonTimeout, QuotedAt: at}
	}
	return out
}
