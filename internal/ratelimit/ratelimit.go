// Package ratelimit enforces per-key request rates and monthly quotas.
// Limiter is the interface the HTTP layer consumes; Memory is the
// in-process implementation (a Redis one can satisfy the same interface).
// Quotas wraps a Limiter and enforces monthly quotas through a durable
// Ledger instead, reserving units in blocks before they are granted, so a
// crash never lets a key past its quota.
//
// The rate limit is a sliding window approximated by two fixed buckets: the
// previous bucket's count is weighted by the part of it still inside the
// window. The quota counts requests per UTC calendar month.
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"
)

// Policy is the limit applied to one key.
type Policy struct {
	Requests      int           // allowed per Window; <= 0 disables the rate limit
	Window        time.Duration // sliding window length
	QuotaPerMonth int64         // allowed per UTC month; <= 0 disables the quota
}

// Decision is the outcome of one check, with what the rate-limit headers
// report.
type Decision struct {
	Allowed    bool
	Reason     string        // "rate" or "quota" when refused
	Limit      int           // the rate limit in force
	Remaining  int           // requests left in the window after this one
	Reset      time.Duration // until the window frees up
	RetryAfter time.Duration // when refused: how long to wait
}

// Limiter checks and charges one request for key.
type Limiter interface {
	Allow(ctx context.Context, key string, p Policy, now time.Time) (Decision, error)
}

// Memory is an in-process Limiter. It is safe for concurrent use.
type Memory struct {
	mu     sync.Mutex
	rate   map[string]*window
	quota  map[string]*month
	sweeps int
}

type window struct {
	start      int64 // bucket start, unix ns
	cur, prev  int
	windowSize int64
}

type month struct {
	key  int // year*12+month
	used int64
}

// NewMemory returns an empty in-memory limiter.
func NewMemory() *Memory {
	return &Memory{rate: map[string]*window{}, quota: map[string]*month{}}
}

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, key string, p Policy, now time.Time) (Decision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := Decision{Allowed: true, Limit: p.Requests, Remaining: math.MaxInt32}
	var w *window
	var weighted float64
	if p.Requests > 0 && p.Window > 0 {
		size := int64(p.Window)
		ns := now.UnixNano()
		start := ns - ns%size
		w = m.rate[key]
		if w == nil || w.windowSize != size {
			w = &window{start: start, windowSize: size}
			m.rate[key] = w
		}
		switch {
		case start == w.start:
		case start-w.start == size:
			w.prev, w.cur, w.start = w.cur, 0, start
		default:
			w.prev, w.cur, w.start = 0, 0, start
		}
		elapsed := float64(ns-start) / float64(size)
		weighted = math.Floor(float64(w.prev) * (1 - elapsed))
		d.Reset = time.Duration(start + size - ns)
		used := int(weighted) + w.cur
		if used >= p.Requests {
			d.Allowed, d.Reason, d.Remaining, d.RetryAfter = false, "rate", 0, d.Reset
			return d, nil
		}
	}
	if p.QuotaPerMonth > 0 {
		u := now.UTC()
		mk := monthKey(u)
		q := m.quota[key]
		if q == nil || q.key != mk {
			q = &month{key: mk}
			m.quota[key] = q
		}
		if q.used >= p.QuotaPerMonth {
			next := time.Date(u.Year(), u.Month()+1, 1, 0, 0, 0, 0, time.UTC)
			d.Allowed, d.Reason, d.RetryAfter = false, "quota", next.Sub(u)
			if w != nil {
				d.Remaining = max(0, p.Requests-int(weighted)-w.cur)
			}
			return d, nil
		}
		q.used++
	}
	if w != nil {
		w.cur++
		d.Remaining = max(0, p.Requests-int(weighted)-w.cur)
	}
	m.sweepLocked(now)
	return d, nil
}

// sweepLocked drops idle windows now and then so the maps stay bounded by
// the number of recently active keys.
func (m *Memory) sweepLocked(now time.Time) {
	m.sweeps++
	if m.sweeps < 4096 {
		return
	}
	m.sweeps = 0
	ns := now.UnixNano()
	for k, w := range m.rate {
		if ns-w.start > 2*w.windowSize {
			delete(m.rate, k)
		}
	}
}
