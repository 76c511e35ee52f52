package execution

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"
	"time"
)

// fake is a scripted provider: out(amount) or an error; hang blocks until
// the call's context ends (or forever when ignoreCtx).
type fake struct {
	id        string
	out       func(req QuoteRequest) (*big.Int, error)
	hang      bool
	ignoreCtx bool
	release   chan struct{}

	mu        sync.Mutex
	deadlines []time.Time
	calls     int
}

func (f *fake) ID() string { return f.id }

func (f *fake) Quote(ctx context.Context, req QuoteRequest) (Quote, error) {
	f.mu.Lock()
	f.calls++
	if dl, ok := ctx.Deadline(); ok {
		f.deadlines = append(f.deadlines, dl)
	}
	f.mu.Unlock()
	if f.hang {
		if f.ignoreCtx {
			<-f.release
			return Quote{}, errors.New("released")
		}
		<-ctx.Done()
		return Quote{}, ctx.Err()
	}
	out, err := f.out(req)
	if err != nil {
		return Quote{}, err
	}
	return Quote{InAmount: req.Amount, OutAmount: out}, nil
}

// scale returns amount·num/den.
func scale(num, den int64) func(QuoteRequest) (*big.Int, error) {
	return func(r QuoteRequest) (*big.Int, error) {
		v := new(big.Int).Mul(r.Amount, big.NewInt(num))
		return v.Quo(v, big.NewInt(den)), nil
	}
}

func waitDone[T any](t *testing.T, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute): // a generous safety net, not a threshold
		t.Fatal("fan-out did not return")
	}
	var zero T
	return zero
}

// TestFanoutHangingProviderStaysInBudget: a provider that hangs (honouring
// its context or not) never holds the fan-out beyond its budget: every call
// it gets carries a deadline within the budget, and its rows come back as
// timeouts while the healthy provider's quotes stand. How many calls it
// gets is up to the scheduler (a loaded machine may spend the 50 ms budget
// before a call starts); that the first batch's are the only ones holds by
// construction, as it holds the fan-out until the budget's end.
func TestFanoutHangingProviderStaysInBudget(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		good := &fake{id: "good", out: scale(2, 1)}
		bad := &fake{id: "bad", hang: true, ignoreCtx: ignore, release: make(chan struct{})}
		t.Cleanup(func() { close(bad.release) })
		budget := 50 * time.Millisecond
		var once sync.Once
		var start time.Time
		now := func() time.Time { // the real clock, remembering the fan-out's start
			t := time.Now()
			once.Do(func() { start = t })
			return t
		}
		f := Fanout{Providers: []Provider{good, bad}, Budget: budget, Now: now}
		reqs := make([]QuoteRequest, 5)
		for i := range reqs {
			reqs[i] = QuoteRequest{InputMint: USDCMint, OutputMint: cbBTC, Amount: big.NewInt(int64(1000 * (i + 1)))}
		}
		res := waitDone(t, func() [][]Result { return f.Run(context.Background(), reqs) })
		if len(res) != len(reqs) {
			t.Fatalf("rows = %d", len(res))
		}
		for i, row := range res {
			if len(row) != 2 || row[1].Provider != "bad" || row[1].Reason != ReasonTimeout || row[1].Quote != nil {
				t.Fatalf("ignoreCtx=%v row %d: %+v", ignore, i, row)
			}
			if row[0].Quote == nil && row[0].Reason != ReasonTimeout {
				t.Fatalf("row %d good: %+v", i, row[0])
			}
		}
		bad.mu.Lock()
		for _, dl := range bad.deadlines {
			if dl.After(start.Add(budget)) {
				t.Errorf("a call's deadline %v is beyond the budget end %v", dl, start.Add(budget))
			}
		}
		if bad.calls > QuoteConcurrency {
			t.Errorf("calls = %d; want at most the first batch's %d", bad.calls, QuoteConcurrency)
		}
		bad.mu.Unlock()
	}
}

// TestFanoutSpentBudget: with an injected clock whose budget is already
// spent, no provider is called and every row is a timeout.
func TestFanoutSpentBudget(t *testing.T) {
	good := &fake{id: "good", out: scale(2, 1)}
	base := time.Unix(0, 0)
	n := 0
	now := func() time.Time { n++; return base.Add(time.Duration(n-1) * DefaultQuoteBudget) } // each reading a whole budget later
	f := Fanout{Providers: []Provider{good}, Now: now}
	res := f.Run(context.Background(), []QuoteRequest{{Amount: big.NewInt(1)}, {Amount: big.NewInt(2)}, {Amount: big.NewInt(3)}})
	if good.calls != 0 {
		t.Errorf("calls = %d, want 0", good.calls)
	}
	for _, row := range res {
		if row[0].Reason != ReasonTimeout {
			t.Errorf("row %+v", row)
		}
	}
}

// TestFanoutPerCallTimeout: the per-call timeout is the remaining budget
// over the batches left (a stopped clock keeps the whole budget remaining),
// at least MinProviderTimeout, never beyond the remaining budget.
func TestFanoutPerCallTimeout(t *testing.T) {
	// The stopped clock reads an hour ahead: the fan-out's own context
	// deadline (t0 + budget, on the real clock) cannot pass during the test,
	// however slow the machine, so every call is made.
	t0 := time.Now().Add(time.Hour)
	good := &fake{id: "good", out: scale(1, 1)}
	f := Fanout{Providers: []Provider{good}, Budget: 12 * time.Second, Now: func() time.Time { return t0 }}
	reqs := make([]QuoteRequest, 6)
	for i := range reqs {
		reqs[i] = QuoteRequest{Amount: big.NewInt(int64(i + 1))}
	}
	f.Run(context.Background(), reqs)
	got := make([]time.Duration, len(good.deadlines))
	for i, dl := range good.deadlines {
		got[i] = dl.Sub(t0)
	}
	slices.Sort(got)
	want := []time.Duration{4 * time.Second, 4 * time.Second, 6 * time.Second, 6 * time.Second, 12 * time.Second, 12 * time.Second}
	if !slices.Equal(got, want) {
		t.Errorf("call timeouts = %v, want %v", got, want)
	}
	// A small budget: the floor never exceeds what remains.
	good.deadlines = nil
	f.Budget = time.Second
	f.Run(context.Background(), reqs[:4])
	for _, dl := range good.deadlines {
		if dl.Sub(t0) != time.Second {
			t.Errorf("timeout %v, want the whole remaining 1s", dl.Sub(t0))
		}
	}
}

func TestFanoutReasons(t *testing.T) {
	ps := []Provider{
		&fake{id: "noroute", out: func(QuoteRequest) (*big.Int, error) { return nil, ErrNoRoute }},
		&fake{id: "auth", out: func(QuoteRequest) (*big.Int, error) { return nil, Unavailable(ReasonAuth, "401") }},
		&fake{id: "err", out: func(QuoteRequest) (*big.Int, error) { return nil, errors.New("boom") }},
		&fake{id: "zero", out: scale(0, 1)},
	}
	res := Fanout{Providers: ps}.Run(context.Background(), []QuoteRequest{{Amount: big.NewInt(10)}})
	want := []string{ReasonNoRoute, ReasonAuth, ReasonError, ReasonNoRoute}
	for i, r := range res[0] {
		if r.Reason != want[i] {
			t.Errorf("%s: reason %q, want %q", r.Provider, r.Reason, want[i])
		}
	}
}
