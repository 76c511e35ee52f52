package tradestream

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ctxwait"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Sink stores trades (deduplicated by identity) and applies the new ones
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
	// fetchBatch is the most messages fetched at once.
	fetchBatch = 2000
	// fetchBytes bounds the bytes fetched at once (a few batch messages,
	// thousands of one-trade ones).
	fetchBytes = 4 << 20
	// storeTrades is the most trades stored in one transaction (whole
	// messages: one larger message is stored alone).
	storeTrades = 8192
	// pullers is how many fetch-and-store loops a worker runs on the batch
	// stream: the ingester stores concurrent batches in parallel (and
	// applies them in commit order), so one loop's fetch and decode
	// overlap another's store.
	pullers = 4
	// fetchWait is how long a fetch waits for the first message.
	fetchWait = time.Second
	// restWait is how long the fetch after the first message waits for
	// the fetch to fill (only when less than a fetch is pending: the
	// latency it adds is this, once per stored group).
	restWait = 5 * time.Millisecond
	// restGuard is how long the worker reads that fetch at most. The
	// server ends an expired pull request with a 408 status, but that
	// status can come late (nats-server checks expiries when its
	// consumer loop waits), and the client library's own fallback is the
	// expiry plus a second: a second during which the trades already
	// fetched were neither stored nor acknowledged (seen as 1 s stalls of
	// bench/natsingest). The server sends nothing after the expiry, so
	// what arrives within the guard is the whole fetch.
	restGuard = 50 * time.Millisecond
	// ackWait is how long the stream waits for a worker's ack before
	// redelivering to another (a replica killed mid-batch).
	ackWait = 30 * time.Second
	// retryDelay is the redelivery delay after a failed store, and the
	// pause after a failed fetch.
	retryDelay = 2 * time.Second
	// unknownDelay is the redelivery delay of a message of a format this
	// version does not read (left to a newer replica).
	unknownDelay = time.Minute
)

// Worker moves trades from the streams into the store.
type Worker struct {
	streams Streams
	sink    Sink
	notify  Notifier
	log     *slog.Logger
	// after is time.After (tests end the guard themselves).
	after func(time.Duration) <-chan time.Time
}

// NewWorker returns a worker on streams (from Ensure).
func NewWorker(streams Streams, sink Sink, notify Notifier, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{streams: streams, sink: sink, notify: notify, log: log, after: time.After}
}

// Run consumes both streams until ctx ends. NATS or store outages are
// logged once per state change and retried; messages are acked only after
// their trades are committed.
func (w *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if s := w.streams.Batches; s != nil {
		for range pullers {
			wg.Go(func() { w.run(ctx, s) })
		}
	}
	if s := w.streams.Legacy; s != nil {
		wg.Go(func() { w.run(ctx, s) })
	}
	wg.Wait()
}

// run consumes one stream.
func (w *Worker) run(ctx context.Context, stream jetstream.Stream) {
	var cons jetstream.Consumer
	failing := false
	name := stream.CachedInfo().Config.Name
	report := func(what string, err error) {
		if !failing {
			w.log.Warn("trade stream worker: "+what+"; retrying", "stream", name, "err", err)
		}
		failing = true
	}
	for ctx.Err() == nil {
		if cons == nil {
			// Explicit acks, not AckAll: the durable is shared by every
			// replica's worker, and a cumulative ack from one would also
			// acknowledge the messages another holds, not yet stored.
			c, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
				Durable:       DurableName,
				Description:   "stores trades (every assetd replica pulls from it)",
				AckPolicy:     jetstream.AckExplicitPolicy,
				AckWait:       ackWait,
				MaxAckPending: 4 * fetchBatch * 8,
				DeliverPolicy: jetstream.DeliverAllPolicy,
			})
			if err != nil {
				report("consumer unavailable", err)
				_ = ctxwait.Sleep(ctx, retryDelay)
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
			_ = ctxwait.Sleep(ctx, retryDelay)
			continue
		}
		if failing {
			w.log.Info("trade stream worker recovered", "stream", name, "stored_messages", n)
			failing = false
		}
	}
}

// received is a fetched message and how many trades it holds (in order
// in the step's trade slice).
type received struct {
	msg    jetstream.Msg
	trades int
}

// step fetches messages, stores their trades and acks them. It returns the
// messages handled. It waits (up to fetchWait) for the first message, then
// takes what else is pending (up to fetchBatch messages and fetchBytes),
// waiting at most restWait for more: a fetch waiting for a whole batch
// would add its wait to every trade's latency.
func (w *Worker) step(ctx context.Context, cons jetstream.Consumer) (int, error) {
	var got []received
	var all []analytics.Trade // the trades of got, in order
	// take reads a fetch until it ends or, when guard is not nil, until
	// guard fires (what the fetch delivers later is handed back unstored,
	// never acknowledged).
	take := func(batch jetstream.MessageBatch, guard <-chan time.Time) error {
		msgs := batch.Messages()
		add := func(m jetstream.Msg) {
			var n int
			if all, n = w.decode(m, all); n > 0 {
				got = append(got, received{msg: m, trades: n})
			}
		}
		for {
			select {
			case m, ok := <-msgs:
				if !ok {
					if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, nats.ErrTimeout) {
						return err
					}
					return nil
				}
				add(m)
			case <-guard:
				for { // what has arrived already is taken
					select {
					case m, ok := <-msgs:
						if !ok {
							return nil
						}
						add(m)
					default:
						// A server that took the request late may still
						// deliver: those messages go back at once (a Nak
						// redelivers them to the next fetch) instead of
						// waiting out ackWait. The fetch ends within the
						// client's fallback (the expiry plus a second).
						go func() {
							for m := range msgs {
								_ = m.Nak()
							}
						}()
						return nil
					}
				}
			}
		}
	}
	first, err := cons.Fetch(1, jetstream.FetchMaxWait(fetchWait))
	if err != nil {
		return 0, err
	}
	if err := take(first, nil); err != nil {
		return 0, err
	}
	if len(got) > 0 {
		rest, err := cons.Fetch(fetchBatch-1, jetstream.FetchMaxBytes(fetchBytes), jetstream.FetchMaxWait(restWait))
		if err == nil {
			err = take(rest, w.after(restGuard))
		}
		if err != nil && len(got) == 0 {
			return 0, err
		}
	}
	handled := 0
	for len(got) > 0 {
		n, trades := 0, 0
		for n < len(got) && (n == 0 || trades+got[n].trades <= storeTrades) {
			trades += got[n].trades
			n++
		}
		// Capped: nothing the sink appends reaches the next group.
		if err := w.store(ctx, got[:n], all[:trades:trades]); err != nil {
			for _, r := range got {
				_ = r.msg.NakWithDelay(retryDelay)
			}
			return handled, err
		}
		handled += n
		got, all = got[n:], all[trades:]
	}
	return handled, nil
}

// decode appends the trades of a message of either format to all and
// returns how many it appended; a message with nothing storable is
// terminated (redelivering it would loop forever), one of an unknown
// format left to another replica.
func (w *Worker) decode(m jetstream.Msg, all []analytics.Trade) ([]analytics.Trade, int) {
	format := ""
	if h := m.Headers(); h != nil {
		format = h.Get(FormatHeader)
		if c, err := strconv.Atoi(h.Get(CountHeader)); err == nil && c > 0 {
			all = slices.Grow(all, min(c, MaxBatchTrades))
		}
	}
	before := len(all)
	all, invalid, err := decode(format, m.Data(), all)
	switch {
	case errors.Is(err, errUnknownFormat):
		w.log.Warn("trade stream message of an unknown format left to another replica", "subject", m.Subject(), "err", err)
		_ = m.NakWithDelay(unknownDelay)
		return all[:before], 0
	case err != nil:
		w.log.Warn("trade stream message dropped: not a valid trade event", "subject", m.Subject(), "err", err)
		_ = m.Term()
		return all[:before], 0
	}
	n := len(all) - before
	if invalid > 0 {
		w.log.Warn("trade stream batch: events that are not valid trade events dropped", "subject", m.Subject(), "invalid", invalid, "valid", n)
	}
	if n == 0 {
		_ = m.Term()
	}
	return all, n
}

// store stores trades (those of got's messages) in one ingest batch and,
// once committed, notifies and acks the messages.
func (w *Worker) store(ctx context.Context, got []received, trades []analytics.Trade) error {
	res, err := w.sink.Ingest(ctx, trades)
	if err != nil {
		return err
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
	for _, r := range got {
		if aerr := r.msg.Ack(); aerr != nil {
			// Stored: a redelivery is a store duplicate.
			w.log.Debug("trade stream ack failed", "err", aerr)
		}
	}
	return nil
}
