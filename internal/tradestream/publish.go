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

// publishChunk is how many trades are in flight before their PubAcks are
// awaited (within the connection's async-publish limit).
const publishChunk = 1024

// Publisher publishes trade batches to the stream. It implements
// internal/httpapi's TradeIngester.
type Publisher struct {
	js        jetstream.JetStream
	connected func() bool
	prefix    string
	admit     Admitter
	sigs      SignatureStore
	observe   func(accepted, duplicates int, rejected map[string]int)
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
	return &Publisher{js: js, connected: connected, prefix: prefix, admit: admit, sigs: sigs}
}

// Ingest validates trades and publishes the new ones. It returns only
// after every published trade's PubAck: Accepted counts the trades the
// stream took for the first time, Duplicates those repeated in the batch,
// already stored, or flagged Duplicate by the stream. An error means
// nothing of the batch is acknowledged (some of it may be in the stream: a
// retry counts those as duplicates); it is an *UnavailableError when the
// stream could not be reached.
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
	fresh := ok[:0:0]
	for i := range ok {
		if stored[ids[i]] {
			res.Duplicates++
			continue
		}
		fresh = append(fresh, ok[i])
	}
	for len(fresh) > 0 {
		n := min(len(fresh), publishChunk)
		acc, dup, err := p.publish(ctx, fresh[:n])
		if err != nil {
			return analytics.IngestResult{}, err
		}
		res.Accepted += acc
		res.Duplicates += dup
		fresh = fresh[n:]
	}
	p.count(res)
	return res, nil
}

func (p *Publisher) count(res analytics.IngestResult) {
	if p.observe != nil {
		p.observe(0, res.Duplicates, res.Reasons)
	}
}

// publish sends trades and waits for every PubAck.
func (p *Publisher) publish(ctx context.Context, trades []analytics.Trade) (accepted, duplicates int, err error) {
	futures := make([]jetstream.PubAckFuture, 0, len(trades))
	for i := range trades {
		m, err := Message(p.prefix, &trades[i])
		if err != nil {
			return 0, 0, fmt.Errorf("trade stream: encode %s: %w", trades[i].Signature, err)
		}
		f, err := p.js.PublishMsgAsync(m)
		if err != nil {
			return 0, 0, &UnavailableError{Err: err}
		}
		futures = append(futures, f)
	}
	for _, f := range futures {
		select {
		case ack := <-f.Ok():
			if ack.Duplicate {
				duplicates++
			} else {
				accepted++
			}
		case err := <-f.Err():
			return 0, 0, &UnavailableError{Err: err}
		case <-ctx.Done():
			return 0, 0, &UnavailableError{Err: ctx.Err()}
		}
	}
	return accepted, duplicates, nil
}

// Message is the stream message of t: subject <prefix>.trades.<mint>,
// header Nats-Msg-Id: the trade's identity (analytics.TradeID.String:
// <signature> for leg 0, as before legs existed, <signature>:<leg>
// otherwise), body the trade event's JSON (the POST /v1/internal/trades
// event format).
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
