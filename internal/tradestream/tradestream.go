// Package tradestream carries trade ingest through a durable JetStream
// stream, so any replica may acknowledge a batch and a replica killed after
// acknowledging loses none of it.
//
// Publisher (POST /v1/internal/trades with --nats-url): validates the
// batch, drops trades the store already holds (by identity: signature and
// leg), publishes each trade as one message on <prefix>.trades.<mint> with
// its identity as Nats-Msg-Id (the signature for leg 0,
// <signature>:<leg> otherwise), and acknowledges only after the stream's
// PubAck: a PubAck flagged Duplicate (the same identity within the
// stream's duplicate window) or a stored identity counts as a duplicate,
// every other as accepted.
//
// Worker: every replica runs one on the shared durable pull consumer, so
// each message is handled by one replica. It stores the trades through the
// replica's ingester (deduplicated by signature and leg in the store, so a
// redelivery is harmless), tells the other replicas (the trades change
// topic, which the change bus carries at once), and only then acks. Every
// replica's analytics engine applies stored trades in the store's commit
// order (internal/ingest's seq), so windows, trending, execution rollups and
// candles are the same on every replica and a restarted replica rebuilds
// from the store; messages not yet stored are redelivered from the stream.
//
// An external indexer may publish to the stream itself: docs/nats.md
// ("Trade stream") documents the subject and message format.
package tradestream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of Config.
const (
	// DefaultDuplicateWindow is how long the stream remembers a message id
	// (signature): a re-sent trade within it is a duplicate by the stream's
	// PubAck; after it, by the store's stored-signature check.
	DefaultDuplicateWindow = 10 * time.Minute
	// DefaultMaxAge is how long the stream keeps messages (acknowledged or
	// not): the store holds the stored trades, the stream only has to
	// outlive an outage of the store or of every worker.
	DefaultMaxAge = 24 * time.Hour
	// DurableName is the consumer all replicas' workers share.
	DurableName = "store"
)

// Config names and sizes the stream.
type Config struct {
	// Prefix is the subject prefix (natsbus): subjects are
	// <Prefix>.trades.<mint>, the stream <PREFIX>_TRADES.
	Prefix string
	// DuplicateWindow (0: DefaultDuplicateWindow) and MaxAge (0:
	// DefaultMaxAge) configure the stream; Replicas its JetStream replicas
	// (0: 1).
	DuplicateWindow, MaxAge time.Duration
	Replicas                int
}

func (c Config) withDefaults() Config {
	if c.DuplicateWindow == 0 {
		c.DuplicateWindow = DefaultDuplicateWindow
	}
	if c.MaxAge == 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	return c
}

// StreamName is the stream's name for prefix.
func StreamName(prefix string) string {
	return strings.ToUpper(strings.ReplaceAll(prefix, "-", "_")) + "_TRADES"
}

// Subject is the subject a trade of mint is published on.
func Subject(prefix, mint string) string { return prefix + ".trades." + mint }

// Ensure creates the stream, or updates it to cfg, and returns it. Every
// replica calls it at start; concurrent calls agree.
func Ensure(ctx context.Context, js jetstream.JetStream, cfg Config) (jetstream.Stream, error) {
	cfg = cfg.withDefaults()
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        StreamName(cfg.Prefix),
		Description: "assetd trade ingest (docs/nats.md)",
		Subjects:    []string{cfg.Prefix + ".trades.>"},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      cfg.MaxAge,
		Duplicates:  cfg.DuplicateWindow,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("trade stream %s: %w", StreamName(cfg.Prefix), err)
	}
	return s, nil
}

// UnavailableError is returned when the stream cannot take a batch (NATS
// down, no PubAck): nothing of the batch is acknowledged, and the client
// should retry (HTTP 503).
type UnavailableError struct{ Err error }

func (e *UnavailableError) Error() string {
	return "trade stream unavailable: " + e.Err.Error()
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// Unavailable marks the error for internal/httpapi (503, retry).
func (e *UnavailableError) Unavailable() bool { return true }

// errNotConnected is the cause when the connection is down at publish.
var errNotConnected = errors.New("not connected to NATS")
