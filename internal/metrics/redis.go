package metrics

import "github.com/prometheus/client_golang/prometheus"

// Redis are the collectors of the shared limits in Redis (internal/redis).
type Redis struct {
	RedisState     prometheus.Gauge       // 1 up, 0 down (failing open)
	RedisFallbacks *prometheus.CounterVec // use: limits, budgets, quotes
}

func newRedis() Redis {
	r := Redis{
		RedisState: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "assetd_redis_up", Help: "1 while Redis answers the shared-limit calls, 0 while they fail open to the local limiters (only with --redis-url).",
		}),
		RedisFallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "assetd_redis_fallbacks_total", Help: "Decisions made by a local limiter because Redis failed or was down, by use (limits, budgets, quotes).",
		}, []string{"use"}),
	}
	for _, use := range []string{"limits", "budgets", "quotes"} {
		r.RedisFallbacks.WithLabelValues(use) // exported at 0 from the start
	}
	return r
}

// RedisUp records the Redis state (redis.Observer).
func (m *Metrics) RedisUp(up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.RedisState.Set(v)
}

// RedisFallback counts one decision made locally (redis.Observer).
func (m *Metrics) RedisFallback(use string) { m.RedisFallbacks.WithLabelValues(use).Inc() }
