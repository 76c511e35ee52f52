package httpapi

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// routeMetrics caches the Prometheus children of one route pattern so the
// request path does no label hashing for the common status codes.
type routeMetrics struct {
	latency prometheus.Observer
	byCode  map[int]prometheus.Counter
	vec     *prometheus.CounterVec
	route   string
}

var commonCodes = []int{200, 400, 401, 403, 404, 405, 413, 429, 500}

func (m *routeMetrics) observe(status int, d time.Duration) {
	m.latency.Observe(d.Seconds())
	if c, ok := m.byCode[status]; ok {
		c.Inc()
		return
	}
	m.vec.WithLabelValues(m.route, strconv.Itoa(status)).Inc()
}

// routeMetrics returns the cached children of route, creating them once.
func (s *Server) routeMetrics(route string) *routeMetrics {
	if m, ok := (*s.rm.Load())[route]; ok {
		return m
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := *s.rm.Load()
	if m, ok := cur[route]; ok {
		return m
	}
	m := &routeMetrics{latency: s.d.Metrics.Latency.WithLabelValues(route), byCode: map[int]prometheus.Counter{},
		vec: s.d.Metrics.Requests, route: route}
	for _, c := range commonCodes {
		m.byCode[c] = s.d.Metrics.Requests.WithLabelValues(route, strconv.Itoa(c))
	}
	next := make(map[string]*routeMetrics, len(cur)+1)
	for k, v := range cur {
		next[k] = v
	}
	next[route] = m
	s.rm.Store(&next)
	return m
}
