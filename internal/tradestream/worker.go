package tradestream

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Sink stores trades (deduplicated by signature) and applies the new ones
// to the replica's engine: internal/ingest's Ingester.
type Sink interface {
	Ingest(ctx context.Context, trades []analytics.Trade) (analytics.IngestResult, error)
}

// Notifier tells the other replicas that trades were stored (the trades
// change topic, carried by the change bus).
type Notifier interface {
	NotifyTrades(ctx context.Context) error
}

// Worker tuning.
const (
	// fetchBatch is the most messages stored in one transaction.
	fetchBatch = 2000
	// fetchWait is how long a fetch waits for the first message.
	fetchWait = time.Second
	// ackWait is how long the stream waits for a worker's ack before
	// redelivering to another (a replica killed mid-batch).
	ackWait = 30 * time.Second
	// retryDelay is the redelivery delay after a failed store, and the
	// pause after a failed fetch.
	retryDelay = 2 * time.Second
)

// Worker moves trades from the stream into the store.
type Worker struct {
	stream jetstream.Stream
	sink   Sink
	notify Notifier
	log    *slog.Logger
}

// NewWorker returns a worker on stream (from Ensure).
func NewWorker(stream jetstream.Stream, sink Sink, notify Notifier, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{stream: stream, sink: sink, notify: notify, log: log}
}

// Run consumes until ctx ends. NATS or store outages are logged once per
// state change and retried; messages are acked only after their trades
// are committed.
func (w *Worker) Run(ctx context.Context) {
	var cons jetstream.Consumer
	failing := false
	report := func(what string, err error) {
		if !failing {
			w.log.Warn("trade stream worker: "+what+"; retrying", "err", err)
		}
		failing = true
	}
	for ctx.Err() == nil {
		if cons == nil {
			c, err := w.stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
				Durable:       DurableName,
				Description:   "stores trades (every assetd replica pulls from it)",
				AckPolicy:     jetstream.AckExplicitPolicy,
				AckWait:       ackWait,
				MaxAckPending: 4 * fetchBatch * 8,
				DeliverPolicy: jetstream.DeliverAllPolicy,
			})
			if err != nil {
				report("consumer unavailable", err)
				sleep(ctx, retryDelay)
				continue
			}
			cons = c
		}
		n, err := w.step(ctx, cons)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			report("batch failed", err)
			if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
				cons = nil
			}
			sleep(ctx, retryDelay)
			continue
		}
		if failing {
			w.log.Info("trade stream worker recovered", "stored_batch", n)
			failing = false
		}
	}
}

// step fetches one batch, stores it and acks it. It returns the messages
// handled. It waits (up to fetchWait) for the first message only, then
// takes what else is pending at once: a fetch of a whole batch would wait
// for the batch to fill, adding its wait to every trade's latency.
func (w *Worker) step(ctx context.Context, cons jetstream.Consumer) (int, error) {
	var msgs []jetstream.Msg
	trades := make([]analytics.Trade, 0, 64)
	take := func(batch jetstream.MessageBatch) error {
		for m := range batch.Messages() {
			t, perr := analytics.ParseTrade(m.Data())
			if perr != nil {
				// Never storable: redelivering would loop forever.
				w.log.Warn("trade stream message dropped: not a valid trade event", "subject", m.Subject(), "err", perr)
				_ = m.Term()
				continue
			}
			msgs = append(msgs, m)
			trades = append(trades, t)
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, nats.ErrTimeout) {
			return err
		}
		return nil
	}
	first, err := cons.Fetch(1, jetstream.FetchMaxWait(fetchWait))
	if err != nil {
		return 0, err
	}
	if err := take(first); err != nil {
		return 0, err
	}
	if len(msgs) > 0 {
		rest, err := cons.FetchNoWait(fetchBatch - 1)
		if err == nil {
			err = take(rest)
		}
		if err != nil && len(msgs) == 0 {
			return 0, err
		}
	}
	if len(trades) == 0 {
		return 0, nil
	}
	res, err := w.sink.Ingest(ctx, trades)
	if err != nil {
		for _, m := range msgs {
			_ = m.NakWithDelay(retryDelay)
		}
		return 0, err
	}
	if res.Rejected > 0 {
		w.log.Warn("trade stream messages rejected by validation", "rejected", res.Rejected, "reasons", res.Reasons)
	}
	if res.Accepted > 0 && w.notify != nil {
		// Committed already: a failed notification only delays the other
		// replicas until their fallback poll.
		if nerr := w.notify.NotifyTrades(ctx); nerr != nil {
			w.log.Warn("trade notification failed", "err", nerr)
		}
	}
	for _, m := range msgs {
		if aerr := m.Ack(); aerr != nil {
			// Stored: a redelivery is a store duplicate.
			w.log.Debug("trade stream ack failed", "err", aerr)
		}
	}
	return len(msgs), nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
