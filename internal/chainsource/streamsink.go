package chainsource

import (
	"context"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
)

// Publisher makes trades durable elsewhere before it returns: the NATS
// trade stream's publisher (tradestream.Publisher), which validates the
// trades, drops stored ones and returns after the stream's PubAcks.
type Publisher interface {
	Ingest(ctx context.Context, trades []analytics.Trade) (analytics.IngestResult, error)
}

// StreamIngester is the Ingester of a source in a cluster with a trade
// stream: a block range's trades are published through the stream (so a
// cluster has one ingest path, and the stream's workers store them), and
// only after the PubAcks is the cursor moved (insert with no trades: the
// cursor alone, in its own transaction). A crash between the two
// republishes the range from the stored cursor; the stream drops the same
// batch within its duplicate window and the store keeps one trade per
// identity, so each trade is stored once.
type StreamIngester struct {
	Publish Publisher
	// Clock is the cursor write's time (nil: time.Now).
	Clock func() time.Time
}

// IngestVia publishes trades, then writes the cursor through insert.
func (s StreamIngester) IngestVia(ctx context.Context, trades []analytics.Trade, insert ingest.InsertFunc) (analytics.IngestResult, error) {
	var res analytics.IngestResult
	if len(trades) > 0 {
		var err error
		if res, err = s.Publish.Ingest(ctx, trades); err != nil {
			return analytics.IngestResult{}, err
		}
	}
	now := time.Now
	if s.Clock != nil {
		now = s.Clock
	}
	if _, err := insert(ctx, nil, now()); err != nil {
		return analytics.IngestResult{}, err
	}
	return res, nil
}
