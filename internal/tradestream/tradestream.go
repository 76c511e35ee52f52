// Package tradestream carries trade ingest through a durable JetStream
// stream, so any replica may acknowledge a batch and a replica killed after
// acknowledging loses none of it.
//
// Publisher (POST /v1/internal/trades with --nats-url): validates the
// batch, drops trades the store already holds (by identity: signature and
// leg) and repeats within the batch, publishes the rest as batch messages
// (at most MaxBatchTrades trades and MaxBatchBytes each) on
// <prefix>.tradebatch, the batch stream <PREFIX>_TRADEBATCHES, each with a
// Nats-Msg-Id derived from its trades' sorted identities (BatchID), and
// acknowledges only after every message's PubAck. The chain trade source
// publishes its block ranges through the same publisher.
//
// Worker: every replica runs one on the shared durable pull consumer of
// each stream, so each message is handled by one replica. It stores a
// fetched group of messages' trades through the replica's ingester in one
// transaction (deduplicated by signature and leg in the store, so a
// redelivered or overlapping batch stores nothing twice), tells the other
// replicas (the trades change topic, which the change bus carries at
// once), and only then acks the messages. Every replica's analytics engine
// applies stored trades in the store's commit order (internal/ingest's
// seq), so windows, trending, execution rollups and candles are the same
// on every replica and a restarted replica rebuilds from the store;
// messages not yet stored are redelivered from the stream.
//
// The legacy stream <PREFIX>_TRADES (subjects <prefix>.trades.<mint>, one
// trade per message: the format before batches) is still consumed, so
// messages an older version published, during a rolling upgrade or before
// it, are stored; batches have their own stream so an older replica's
// worker, which reads one trade per message, never receives one.
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
	// DefaultDuplicateWindow is how long a stream remembers a message id
	// (a batch's BatchID, a one-trade message's identity): the same
	// message re-sent within it is a duplicate by the stream's PubAck;
	// after it, by the store's stored-identity check.
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
	// <Prefix>.tradebatch (stream <PREFIX>_TRADEBATCHES) and
	// <Prefix>.trades.<mint> (legacy, stream <PREFIX>_TRADES).
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

// BatchStreamName is the batch stream's name for prefix.
func BatchStreamName(prefix string) string {
	return strings.ToUpper(strings.ReplaceAll(prefix, "-", "_")) + "_TRADEBATCHES"
}

// Subject is the subject of the legacy one-trade message of a trade of
// mint (the legacy stream, StreamName).
func Subject(prefix, mint string) string { return prefix + ".trades." + mint }

// Streams are the trade streams: Batches (the publisher's) and Legacy
// (one trade per message: an older version's, or an external indexer's).
type Streams struct {
	Batches, Legacy jetstream.Stream
}

// Ready reports whether both streams are set.
func (s Streams) Ready() bool { return s.Batches != nil && s.Legacy != nil }

// Ensure creates the streams, or updates them to cfg, and returns them.
// Every replica calls it at start; concurrent calls agree.
func Ensure(ctx context.Context, js jetstream.JetStream, cfg Config) (Streams, error) {
	cfg = cfg.withDefaults()
	// The legacy stream keeps the description older versions give it, so
	// old and new replicas do not update it back and forth.
	ensure := func(name, desc, subject string) (jetstream.Stream, error) {
		s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
			Name:        name,
			Description: desc,
			Subjects:    []string{subject},
			Retention:   jetstream.LimitsPolicy,
			Storage:     jetstream.FileStorage,
			Discard:     jetstream.DiscardOld,
			MaxAge:      cfg.MaxAge,
			Duplicates:  cfg.DuplicateWindow,
			Replicas:    cfg.Replicas,
		})
		if err != nil {
			return nil, fmt.Errorf("trade stream %s: %w", name, err)
		}
		return s, nil
	}
	var out Streams
	var err error
	if out.Batches, err = ensure(BatchStreamName(cfg.Prefix), "assetd trade ingest, batches (docs/nats.md)", BatchSubject(cfg.Prefix)); err != nil {
		return Streams{}, err
	}
	if out.Legacy, err = ensure(StreamName(cfg.Prefix), "assetd trade ingest (docs/nats.md)", cfg.Prefix+".trades.>"); err != nil {
		return Streams{}, err
	}
	return out, nil
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
