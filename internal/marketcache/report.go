package marketcache

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Coverage is the share of mints that have a cached price: over all
// providers merged (any) and per snapshot provider (by source name). With
// no mints both are zero. It reads the cache without scheduling anything.
func (c *Cache) Coverage(mints []string) (any float64, per map[string]float64) {
	per = make(map[string]float64, len(c.o.Snapshots))
	for _, p := range c.o.Snapshots {
		per[p.Source()] = 0
	}
	if len(mints) == 0 {
		return 0, per
	}
	var priced int
	counts := make(map[string]int, len(c.o.Snapshots))
	for _, m := range mints {
		it := c.snaps.peek(m)
		if it == nil {
			continue
		}
		if it.val.merged != nil && it.val.merged.Price != nil {
			priced++
		}
		for src, t := range it.val.sources {
			if t.Market.Price != nil {
				counts[src]++
			}
		}
	}
	for src, n := range counts {
		per[src] = float64(n) / float64(len(mints))
	}
	return float64(priced) / float64(len(mints)), per
}

// LogCycle writes one line summarising the provider activity since the
// previous call (the serve command calls it once per warm cycle): calls,
// failures and deferred calls across providers, each provider's state, and
// the share of mints priced. It is INFO while every provider is up, WARN
// otherwise; provider state changes are logged as they happen (outcome).
func (c *Cache) LogCycle(log *slog.Logger, mints []string) {
	cur := c.Providers()
	c.mu.Lock()
	prev := c.lastCycle
	c.lastCycle = make(map[string]ProviderStatus, len(cur))
	for _, p := range cur {
		c.lastCycle[p.Source] = p
	}
	c.mu.Unlock()
	var calls, errs, deferred int64
	level := slog.LevelInfo
	states := make([]string, 0, len(cur))
	now := c.o.Now()
	for _, p := range cur {
		before := prev[p.Source]
		calls += p.Calls - before.Calls
		errs += p.Errors - before.Errors
		for reason, n := range p.Deferred {
			deferred += n - before.Deferred[reason]
		}
		if p.Up {
			states = append(states, p.Source+"=up")
			continue
		}
		level = slog.LevelWarn
		states = append(states, fmt.Sprintf("%s=down(failures=%d next_probe=%s)", p.Source, p.Failures,
			max(0, p.BackoffUntil.Sub(now)).Round(time.Second)))
	}
	anyCov, _ := c.Coverage(mints)
	log.Log(context.Background(), level, "market warm cycle", "mints", len(mints), "priced", fmt.Sprintf("%.0f%%", anyCov*100),
		"calls", calls, "errors", errs, "deferred", deferred, "providers", strings.Join(states, " "))
}

// CacheStats is one of the cache's stores: entries held and reads so far.
type CacheStats struct {
	Name    string // snapshots, markets, daily, metadata, coins, tickers, quotes, marks, candles
	Entries int
	// Hits were fresh, Stale hits older than the store's fresh TTL
	// (served while a refresh is scheduled), Misses found nothing.
	Hits, Stale, Misses int64
}

// Stats returns every store's entries and read counts.
func (c *Cache) Stats() []CacheStats {
	return []CacheStats{
		statsOf("snapshots", c.snaps), statsOf("markets", c.markets), statsOf("daily", c.daily),
		statsOf("metadata", c.meta), statsOf("coins", c.coins), statsOf("tickers", c.tickers),
		statsOf("quotes", c.quotes), statsOf("marks", c.marks), statsOf("candles", c.series),
	}
}

func statsOf[V any](name string, s *store[V]) CacheStats {
	return CacheStats{Name: name, Entries: s.len(), Hits: s.hits.Load(), Stale: s.stale.Load(), Misses: s.misses.Load()}
}
