package yellowstone

import (
	"context"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/swapdecode"
)

// Cursor stores the stream durably: each slot's trades with the cursor
// moved to it, in one store transaction, and the slots that could not be
// got as gaps (chainsource.Source with Pushed: the same cursor table,
// write path and gap retries through getBlock as the JSON-RPC source).
type Cursor interface {
	StoreSlot(ctx context.Context, slot int64, txs []swapdecode.Tx, trades []analytics.Trade) error
	StoreGap(ctx context.Context, from, to int64, cause string) error
}

// CursorSink is the Sink that stores through a Cursor. Start the Source
// with FromSlot from the cursor (chainsource.Source.Resume) so a restart,
// kill -9 included, resumes after the last committed slot: nothing is
// lost, and what the server replays again is stored as duplicates only.
type CursorSink struct{ Cursor Cursor }

// Slot stores the batch (a Late batch too: its slot is behind the
// cursor, which stays where it is).
func (c CursorSink) Slot(ctx context.Context, b Batch) error {
	return c.Cursor.StoreSlot(ctx, b.Slot, b.Txs, b.Trades)
}

// Gap records the range as an open gap of the cursor.
func (c CursorSink) Gap(ctx context.Context, g Gap) error {
	msg := "missed slots"
	if g.Err != nil {
		msg = g.Err.Error()
	}
	return c.Cursor.StoreGap(ctx, g.FromSlot, g.ToSlot, msg)
}
