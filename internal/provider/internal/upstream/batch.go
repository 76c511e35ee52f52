package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/assetd/assetd/internal/market"
)

// ForEach runs fn(ctx, i) for i in [0, n) with at most limit calls at
// once. After a call returns a *market.RateLimitedError no further calls
// start and the ones running are cancelled: the provider asked us to
// stop. The returned slice holds each call's error.
func ForEach(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) []error {
	errs := make([]error, n)
	if n == 0 {
		return errs
	}
	limit = max(1, min(limit, n))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			errs[i] = notStarted(ctx)
			continue
		}
		if err := ctx.Err(); err != nil {
			<-sem
			errs[i] = notStarted(ctx)
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			err := fn(ctx, i)
			errs[i] = err
			var rl *market.RateLimitedError
			if errors.As(err, &rl) {
				cancel()
			}
		})
	}
	wg.Wait()
	return errs
}

func notStarted(ctx context.Context) error {
	return fmt.Errorf("not started: %w: %w", market.ErrUpstream, context.Cause(ctx))
}

// BatchError picks the error a batch call returns from its parts' errors,
// given how many parts succeeded:
//   - a rate limit anywhere is returned (the caller should back off);
//   - the parent context ending is returned;
//   - otherwise failures are tolerated as long as one part succeeded
//     (the failed parts' mints are simply absent), and when none did the
//     first failure is returned.
//
// failed is the number of parts that failed; err is nil when the batch
// stands.
func BatchError(parent context.Context, errs []error) (failed int, err error) {
	ok := 0
	var first, limited error
	for _, e := range errs {
		if e == nil {
			ok++
			continue
		}
		failed++
		var rl *market.RateLimitedError
		if limited == nil && errors.As(e, &rl) {
			limited = e
		}
		if first == nil {
			first = e
		}
	}
	switch {
	case limited != nil:
		return failed, limited
	case failed > 0 && parent.Err() != nil:
		return failed, fmt.Errorf("%w: %w", market.ErrUpstream, context.Cause(parent))
	case failed > 0 && ok == 0:
		return failed, first
	}
	return failed, nil
}

// SettleBatch ends a batch call of provider: it returns BatchError's
// verdict on the calls' errors and, when the batch stands although some
// calls failed, logs one warning with how many.
func SettleBatch(ctx context.Context, log *slog.Logger, provider string, errs []error) error {
	failed, err := BatchError(ctx, errs)
	if err != nil {
		return err
	}
	if failed > 0 {
		log.LogAttrs(ctx, slog.LevelWarn, "provider batch partly failed", slog.String("provider", provider),
			slog.Int("failedCalls", failed), slog.Int("calls", len(errs)))
	}
	return nil
}
