package tradestream

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Admitter validates trades (the analytics engine).
type Admitter interface {
	Admit(trades []analytics.Trade) ([]analytics.Trade, analytics.IngestResult)
}

// SignatureStore reports which trade identities (signature, leg) are
// stored trades.
type SignatureStore interface {
	StoredTradeIDs(ctx context.Context, ids []analytics.TradeID) (map[analytics.TradeID]bool, error)
}

// publishChunk is how many batch messages are in flight before their
// PubAcks are awaited.
const publishChunk = 64

// Publisher publishes trade batches to the stream. It implements
// internal/httpapi's TradeIngester.
type Publisher struct {
	js        jetstream.JetStream
	connected func() bool
	prefix    string
	admit     Admitter
	sigs      SignatureStore
	observe   func(accepted, duplicates int, rejected map[string]int)
	// maxTrades and maxBytes bound a batch message (MaxBatchTrades,
	// MaxBatchBytes; tests lower them).
	maxTrades, maxBytes int
}

// Observe has fn count each acknowledged batch's duplicates and rejections
// (the metrics of ingest outcomes); the accepted trades are counted where
// they are stored (the worker's ingester), so fn always gets 0 accepted.
func (p *Publisher) Observe(fn func(accepted, duplicates int, rejected map[string]int)) {
	p.observe = fn
}

// NewPublisher returns a publisher on js; connected reports whether the
// NATS connection is up (a batch is refused at once when it is not).
func NewPublisher(js jetstream.JetStream, connected func() bool, prefix string, admit Admitter, sigs SignatureStore) *Publisher {
	return &Publisher{js: js, connected: connected, prefix: prefix, admit: admit, sigs: sigs, maxTrades: MaxBatchTrades, maxBytes: MaxBatchBytes}
}

// SetBatchLimits bounds the batch messages to maxTrades trades and
// maxBytes of body (each at least 1; at most MaxBatchTrades and
// MaxBatchBytes).
func (p *Publisher) SetBatchLimits(maxTrades, maxBytes int) {
	p.maxTrades = min(max(maxTrades, 1), MaxBatchTrades)
	p.maxBytes = min(max(maxBytes, 1), MaxBatchBytes)
}

// Ingest validates trades and publishes the new ones as batch messages
// (at most the batch bounds each, in order). It returns only after every
// message's PubAck: Accepted counts the trades of the messages the stream
// took, Duplicates the trades repeated in the batch, already stored, or in
// a message the stream flagged Duplicate (a message with exactly the same
// trades within the duplicate window). A trade in flight in an earlier
// message with another set of trades (not stored yet) counts as accepted
// again; the store keeps it once. An error means nothing of the batch is
// acknowledged (some of it may be in the stream: a retry counts those as
// duplicates once they are stored); it is an *UnavailableError when the
// stream could not be reached.
//
// Exactly-once storage: every acknowledged trade is stored already, or is
// in a message the stream stored (a Duplicate PubAck means a message with
// the same id, so the same identity set, is stored: BatchID); the worker
// acknowledges a message only after its trades are committed, and the
// store keeps one trade per identity, so a redelivered or overlapping
// message stores nothing twice.
func (p *Publisher) Ingest(ctx context.Context, trades []analytics.Trade) (analytics.IngestResult, error) {
	ok, res := p.admit.Admit(trades)
	if len(ok) == 0 {
		p.count(res)
		return res, nil
	}
	if !p.connected() {
		return analytics.IngestResult{}, &UnavailableError{Err: errNotConnected}
	}
	ids := make([]analytics.TradeID, len(ok))
	for i := range ok {
		ids[i] = ok[i].ID()
	}
	stored, err := p.sigs.StoredTradeIDs(ctx, ids)
	if err != nil {
		return analytics.IngestResult{}, fmt.Errorf("trade stream: %w", err)
	}
	fresh := make([]analytics.Trade, 0, len(ok))
	seen := make(map[analytics.TradeID]bool, len(ok))
	for i := range ok {
		if stored[ids[i]] || seen[ids[i]] {
			res.Duplicates++
			continue
		}
		seen[ids[i]] = true
		fresh = append(fresh, ok[i])
	}
	batches, err := encodeBatches(fresh, p.maxTrades, p.batchBytes())
	if err != nil {
		return analytics.IngestResult{}, fmt.Errorf("trade stream: %w", err)
	}
	for len(batches) > 0 {
		n := min(len(batches), publishChunk)
		acc, dup, err := p.publish(ctx, batches[:n])
		if err != nil {
			return analytics.IngestResult{}, err
		}
		res.Accepted += acc
		res.Duplicates += dup
		batches = batches[n:]
	}
	p.count(res)
	return res, nil
}

// batchBytes is the body bound: maxBytes, lowered to what the server
// takes (its max_payload less room for the headers).
func (p *Publisher) batchBytes() int {
	if nc := p.js.Conn(); nc != nil {
		if mp := int(nc.MaxPayload()); mp > 0 && mp-4096 < p.maxBytes {
			return max(mp-4096, 1)
		}
	}
	return p.maxBytes
}

func (p *Publisher) count(res analytics.IngestResult) {
	if p.observe != nil {
		p.observe(0, res.Duplicates, res.Reasons)
	}
}

// publish sends batches and waits for every PubAck.
func (p *Publisher) publish(ctx context.Context, batches []batch) (accepted, duplicates int, err error) {
	futures := make([]jetstream.PubAckFuture, 0, len(batches))
	for i := range batches {
		f, err := p.js.PublishMsgAsync(batches[i].message(p.prefix))
		if err != nil {
			return 0, 0, &UnavailableError{Err: err}
		}
		futures = append(futures, f)
	}
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			if ack.Duplicate {
				duplicates += batches[i].trades
			} else {
				accepted += batches[i].trades
			}
		case err := <-f.Err():
			return 0, 0, &UnavailableError{Err: err}
		case <-ctx.Done():
			return 0, 0, &UnavailableError{Err: ctx.Err()}
		}
	}
	return accepted, duplicates, nil
}

// Message is the one-trade stream message of t, the format before batches
// (still read, and what an external indexer may publish): subject
// <prefix>.trades.<mint> (the legacy stream, StreamName), header
// Nats-Msg-Id: the trade's identity (analytics.TradeID.String: <signature>
// for leg 0, <signature>:<leg> otherwise), body the trade event's JSON
// (the POST /v1/internal/trades event format).
func Message(prefix string, t *analytics.Trade) (*nats.Msg, error) {
	body, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	m := nats.NewMsg(Subject(prefix, t.Mint))
	m.Data = body
	m.Header.Set(jetstream.MsgIDHeader, t.ID().String())
	return m, nil
}
