// Package natsbus connects a replica to NATS and carries the change bus:
// after a store transaction that bumped change topics commits, the store's
// commit hook publishes each topic on <prefix>.changes.<topic> (core NATS,
// fire and forget), and every replica subscribed to <prefix>.changes.>
// reloads that topic at once instead of at its next store poll. The store
// stays the truth: an event only says "look now", so a lost event (NATS
// down, a replica reconnecting) costs latency until the slow fallback poll,
// never correctness. The JetStream trade stream (internal/tradestream)
// shares the connection.
package natsbus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultPrefix is the subject prefix (and stream name stem) when none is
// configured.
const DefaultPrefix = "assetd"

// prefixRE is what a prefix may be: one subject token that is also valid
// in a stream name.
var prefixRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// ValidPrefix reports whether p may be used as a prefix.
func ValidPrefix(p string) error {
	if !prefixRE.MatchString(p) {
		return fmt.Errorf("NATS prefix %q must be 1-32 letters, digits, '_' or '-'", p)
	}
	return nil
}

// Config configures Connect.
type Config struct {
	// URL is the NATS server URL (nats://host:4222; a comma list for a
	// cluster).
	URL string
	// Prefix starts every subject and stream name (DefaultPrefix if
	// empty), so several deployments or test runs share one server.
	Prefix string
	// Name is the connection name the server shows (monitoring).
	Name string
	// Log receives connection state changes (nil: discarded).
	Log *slog.Logger
	// WaitConnected is how long Connect waits for the first connection;
	// after it the connection keeps retrying in the background (0: 5 s).
	WaitConnected time.Duration
}

// Bus is a replica's NATS connection. It is safe for concurrent use.
type Bus struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	prefix string
	log    *slog.Logger

	mu          sync.Mutex
	onReconnect []func()
	closing     atomic.Bool
}

// Connect dials cfg.URL. A server that is down at start is not fatal: the
// connection retries forever in the background (Connected reports it), so a
// replica serves reads while NATS is away and catches up when it returns.
// Connect waits up to cfg.WaitConnected for the first connection and then
// returns in any case; a malformed URL is an error.
func Connect(ctx context.Context, cfg Config) (*Bus, error) {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	if err := ValidPrefix(cfg.Prefix); err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.WaitConnected == 0 {
		cfg.WaitConnected = 5 * time.Second
	}
	b := &Bus{prefix: cfg.Prefix, log: cfg.Log}
	var late atomic.Bool // Connect stopped waiting
	connected := make(chan struct{}, 1)
	signal := func() {
		select {
		case connected <- struct{}{}:
		default:
		}
	}
	nc, err := nats.Connect(cfg.URL,
		nats.Name(cfg.Name),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		// Callbacks run on the client's goroutine, possibly after Close
		// returned: nothing is logged once closing began.
		nats.ConnectHandler(func(*nats.Conn) {
			// Connect logs the first connection itself; one made after
			// it gave up waiting is logged (and treated as a reconnection)
			// here.
			if late.Load() && !b.closing.Load() {
				cfg.Log.Info("NATS connected", "url", redact(cfg.URL))
				b.reconnected()
			}
			signal()
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if !b.closing.Load() {
				cfg.Log.Warn("NATS disconnected: trade ingest answers 503, changes propagate by store polling", "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			if !b.closing.Load() {
				cfg.Log.Info("NATS reconnected", "url", redact(cfg.URL))
				b.reconnected()
			}
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("nats: connect %s: %w", redact(cfg.URL), err)
	}
	b.nc = nc
	if nc.IsConnected() {
		signal()
	}
	t := time.NewTimer(cfg.WaitConnected)
	defer t.Stop()
	select {
	case <-connected:
		cfg.Log.Info("NATS connected", "url", redact(cfg.URL))
	case <-t.C:
		late.Store(true)
		cfg.Log.Warn("NATS not reachable yet; retrying in the background", "url", redact(cfg.URL))
	case <-ctx.Done():
		nc.Close()
		return nil, ctx.Err()
	}
	js, err := jetstream.New(nc,
		jetstream.WithPublishAsyncMaxPending(16384),
		jetstream.WithPublishAsyncTimeout(10*time.Second),
		jetstream.WithDefaultTimeout(5*time.Second))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: jetstream: %w", err)
	}
	b.js = js
	return b, nil
}

// redact drops credentials from a NATS URL for logs.
func redact(u string) string {
	if i := strings.LastIndex(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "***@" + u[i+1:]
		}
	}
	return u
}

// Conn is the core NATS connection.
func (b *Bus) Conn() *nats.Conn { return b.nc }

// JetStream is the JetStream API on the connection.
func (b *Bus) JetStream() jetstream.JetStream { return b.js }

// Prefix is the subject prefix.
func (b *Bus) Prefix() string { return b.prefix }

// Connected reports whether the connection is up now.
func (b *Bus) Connected() bool { return b.nc.IsConnected() }

// OnReconnect has fn called after every reconnection (events published
// while disconnected may be lost: reload everything).
func (b *Bus) OnReconnect(fn func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onReconnect = append(b.onReconnect, fn)
}

func (b *Bus) reconnected() {
	b.mu.Lock()
	fns := append([]func(){}, b.onReconnect...)
	b.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// ChangeSubject is the subject change events of topic are published on.
func (b *Bus) ChangeSubject(topic string) string { return b.prefix + ".changes." + topic }

// PublishChanges publishes one change event per topic. It is the store's
// commit hook (storage.CommitHook): it never blocks on the network (core
// NATS buffers, also while reconnecting) and only logs a failure, which
// the replicas' store polling covers.
func (b *Bus) PublishChanges(topics []string) {
	for _, t := range topics {
		if err := b.nc.Publish(b.ChangeSubject(t), nil); err != nil {
			b.log.Warn("change event not published; replicas see it at their next store poll", "topic", t, "err", err)
		}
	}
}

// SubscribeChanges calls fn with the topic of every change event any
// replica (or CLI) publishes, on the subscription's goroutine. The returned
// function unsubscribes.
func (b *Bus) SubscribeChanges(fn func(topic string)) (func(), error) {
	pre := b.prefix + ".changes."
	sub, err := b.nc.Subscribe(pre+">", func(m *nats.Msg) {
		fn(strings.TrimPrefix(m.Subject, pre))
	})
	if err != nil {
		return nil, fmt.Errorf("nats: subscribe to changes: %w", err)
	}
	return func() { _ = sub.Unsubscribe() }, nil
}

// Close flushes what was published (bounded by ctx, 5 s without a
// deadline) and closes the
// connection. A CLI calls it before exiting so its change events leave.
func (b *Bus) Close(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	b.closing.Store(true)
	var err error
	if b.nc.IsConnected() {
		if ferr := b.nc.FlushWithContext(ctx); ferr != nil {
			err = fmt.Errorf("nats: flush: %w", ferr)
		}
	} else if n, _ := b.nc.Buffered(); n > 0 {
		err = errors.New("nats: not connected; buffered change events dropped (replicas see the changes at their next store poll)")
	}
	b.nc.Close()
	return err
}
