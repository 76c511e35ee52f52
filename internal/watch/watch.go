// Package watch propagates store changes across processes. Every write
// bumps a per-topic version in the same transaction; a Poller reads the
// versions on an interval and runs the reload functions of the topics that
// moved. Polling one small table works identically on SQLite and PostgreSQL
// and across any number of replicas. A change bus (internal/natsbus) calls
// Kick when another process announces a change, so the poll runs at once
// and the interval is only the fallback.
package watch

import (
	"context"
	"log/slog"
	"time"
)

// VersionSource reports the current version of every change topic.
type VersionSource interface {
	Versions(ctx context.Context) (map[string]int64, error)
}

// ReloadFunc rebuilds one in-memory view from the store.
type ReloadFunc func(ctx context.Context) error

// Poller runs reload functions when their topic's version changes.
type Poller struct {
	src      VersionSource
	interval time.Duration
	log      *slog.Logger
	topics   map[string][]ReloadFunc
	seen     map[string]int64
	observe  func(topic string, err error)
	kick     chan struct{}
}

// NewPoller returns a poller reading src every interval.
func NewPoller(src VersionSource, interval time.Duration, log *slog.Logger) *Poller {
	return &Poller{src: src, interval: interval, log: log, topics: map[string][]ReloadFunc{}, seen: map[string]int64{},
		kick: make(chan struct{}, 1)}
}

// Kick makes Run poll now (once, however many kicks arrive meanwhile). It
// never blocks and is safe to call from any goroutine.
func (p *Poller) Kick() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// On registers fn for topic. Register before Run.
func (p *Poller) On(topic string, fn ReloadFunc) { p.topics[topic] = append(p.topics[topic], fn) }

// Observe has fn called after every reload a store change triggers, with
// its topic and error (metrics). Register before Run.
func (p *Poller) Observe(fn func(topic string, err error)) { p.observe = fn }

// Sync runs every registered reload once, recording the versions first so
// no change between the two is missed. Used at start.
func (p *Poller) Sync(ctx context.Context) error {
	v, err := p.src.Versions(ctx)
	if err != nil {
		return err
	}
	for topic, fns := range p.topics {
		for _, fn := range fns {
			if err := fn(ctx); err != nil {
				return err
			}
		}
		p.seen[topic] = v[topic]
	}
	return nil
}

// Poll checks the versions once and reloads topics that moved. A failed
// reload is retried on the next poll.
func (p *Poller) Poll(ctx context.Context) {
	v, err := p.src.Versions(ctx)
	if err != nil {
		p.log.Warn("change poll failed", "err", err)
		return
	}
	for topic, fns := range p.topics {
		if v[topic] == p.seen[topic] {
			continue
		}
		ok := true
		for _, fn := range fns {
			err := fn(ctx)
			if err != nil {
				p.log.Warn("reload failed", "topic", topic, "err", err)
				ok = false
			}
			if p.observe != nil {
				p.observe(topic, err)
			}
		}
		if ok {
			p.log.Info("reloaded after store change", "topic", topic, "version", v[topic])
			p.seen[topic] = v[topic]
		}
	}
}

// Run polls until ctx is done.
func (p *Poller) Run(ctx context.Context) {
	t := time.NewTicker(p.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.Poll(ctx)
		case <-p.kick:
			p.Poll(ctx)
		}
	}
}
