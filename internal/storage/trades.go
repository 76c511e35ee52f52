package storage

// TopicTrades is bumped by writers whose trades a running server has not
// applied itself (assetd ingest replay), so servers catch up on them.
const TopicTrades = "trades"

// TradeInsert is the outcome of storing one batch of trades.
type TradeInsert struct {
	// Inserted[i] reports whether trades[i] was new (false: its signature
	// was already stored, or came earlier in the batch).
	Inserted []bool
	// Count is the number of inserted trades.
	Count int
	// First and Last are the lowest and highest seq given to an inserted
	// trade (0 when none was). Every trade with a lower seq than First was
	// committed before this batch.
	First, Last int64
}

// MarkCandles names the analytics_marks row holding the seq through which
// the stored candles reflect every stored trade.
const MarkCandles = "candles"
