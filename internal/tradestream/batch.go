package tradestream

import (
	"bytes"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The batch message format (docs/nats.md, "Trade stream").
const (
	// FormatHeader names a message's format; a message without it is one
	// trade event (the format before batches, and what an external
	// indexer may still publish).
	FormatHeader = "Assetd-Format"
	// FormatBatch is a batch: the body holds trade events, one JSON
	// object per line (the POST /v1/internal/trades NDJSON body).
	FormatBatch = "trades-ndjson-v1"
	// CountHeader holds a batch's trade count (informational).
	CountHeader = "Assetd-Trades"
	// batchIDPrefix starts a batch's Nats-Msg-Id. With the hash's 128 hex
	// digits the id is 144 characters, longer than any one-trade id
	// (a signature of at most analytics.MaxSignatureLen characters and
	// ":<leg>"), so a batch never collides with a one-trade message.
	batchIDPrefix = "trades-batch-v1:"
)

// Batch bounds: a batch message holds at most MaxBatchTrades trades and
// MaxBatchBytes of body (below NATS's default 1 MiB max_payload, leaving
// room for the headers; a server configured smaller lowers it).
const (
	MaxBatchTrades = 4096
	MaxBatchBytes  = 1<<20 - 16<<10
)

// BatchID is the Nats-Msg-Id of a batch holding the trades of ids: a
// hash of their identities' text forms in sorted order, so the same set
// of trades, in any order, has the same id and any other set another.
// JetStream drops a message whose id it stored within the duplicate
// window: it drops a batch only when a batch with exactly these trades is
// already in the stream.
func BatchID(ids []analytics.TradeID) string {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = id.String()
	}
	slices.Sort(keys)
	// Each identity length-prefixed: no two lists hash the same input.
	h := sha512.New()
	var n []byte
	for _, k := range keys {
		n = binary.AppendUvarint(n[:0], uint64(len(k)))
		h.Write(n)
		h.Write([]byte(k))
	}
	var sum [sha512.Size]byte
	return batchIDPrefix + hex.EncodeToString(h.Sum(sum[:0]))
}

// BatchSubject is the subject batches are published on; the batch stream
// (BatchStreamName) holds it.
func BatchSubject(prefix string) string { return prefix + ".tradebatch" }

// batch is an encoded batch message's content.
type batch struct {
	body   []byte
	ids    []analytics.TradeID
	trades int
}

// encodeBatches encodes trades into batches of at most maxTrades trades
// and maxBytes of body, in order.
func encodeBatches(trades []analytics.Trade, maxTrades, maxBytes int) ([]batch, error) {
	var out []batch
	var cur batch
	var line []byte
	for i := range trades {
		var err error
		if line, err = appendTrade(line[:0], &trades[i]); err != nil {
			return nil, fmt.Errorf("encode %s: %w", trades[i].Signature, err)
		}
		if cur.trades > 0 && (cur.trades == maxTrades || len(cur.body)+len(line)+1 > maxBytes) {
			out = append(out, cur)
			cur = batch{}
		}
		if cur.body == nil {
			// About 300 bytes a trade.
			cur.body = make([]byte, 0, min(maxBytes, 320*min(maxTrades, len(trades)-i)))
		}
		cur.body = append(cur.body, line...)
		cur.body = append(cur.body, '\n')
		cur.ids = append(cur.ids, trades[i].ID())
		cur.trades++
	}
	if cur.trades > 0 {
		out = append(out, cur)
	}
	return out, nil
}

// BatchMessage is the stream message of a batch of trades: subject
// BatchSubject, headers Nats-Msg-Id (BatchID), Assetd-Format
// (FormatBatch) and Assetd-Trades (the count), body the trade events as
// NDJSON. The caller keeps it within the bounds (MaxBatchTrades,
// MaxBatchBytes).
func BatchMessage(prefix string, trades []analytics.Trade) (*nats.Msg, error) {
	bs, err := encodeBatches(trades, len(trades), int(^uint(0)>>1))
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	return bs[0].message(prefix), nil
}

func (b *batch) message(prefix string) *nats.Msg {
	m := nats.NewMsg(BatchSubject(prefix))
	m.Data = b.body
	m.Header.Set(jetstream.MsgIDHeader, BatchID(b.ids))
	m.Header.Set(FormatHeader, FormatBatch)
	m.Header.Set(CountHeader, strconv.Itoa(b.trades))
	return m
}

// errUnknownFormat marks a message of a format this version does not read
// (a newer replica's): it is left to a replica that does.
var errUnknownFormat = fmt.Errorf("unknown %s", FormatHeader)

// decode returns the trades of a stream message, either format. A line of
// a batch that is not a valid trade event is skipped and counted in
// invalid (never storable); a one-trade message that is not one is an
// error (terminated). errUnknownFormat: another format.
func decode(format string, data []byte, trades []analytics.Trade) (out []analytics.Trade, invalid int, err error) {
	switch format {
	case "":
		t, err := analytics.ParseTrade(data)
		if err != nil {
			return trades, 0, err
		}
		return append(trades, t), 0, nil
	case FormatBatch:
		for len(data) > 0 {
			line := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			t, err := analytics.ParseTrade(line)
			if err != nil {
				invalid++
				continue
			}
			trades = append(trades, t)
		}
		return trades, invalid, nil
	default:
		return trades, 0, fmt.Errorf("%w %q", errUnknownFormat, format)
	}
}
