package storage

import "github.com/assetd/assetd/internal/analytics"

// TopicTrades is bumped by writers whose trades a running server has not
// applied itself (assetd ingest replay), so servers catch up on them.
const TopicTrades = "trades"

// TradeColumns are the persisted trade columns, in TradeArgs order (seq is
// assigned by the store).
const TradeColumns = `signature, slot, block_time, mint, side, token_amount, usd_amount, price_usd,
	wallet, venue, flow_source, fee_usd, is_bot`

// TradeColumnCount is the number of TradeColumns.
const TradeColumnCount = 13

// TradeArgs flattens a trade into TradeColumns order.
func TradeArgs(t *analytics.Trade) []any {
	return AppendTradeArgs(make([]any, 0, TradeColumnCount), t)
}

// AppendTradeArgs appends the trade's TradeColumns values to args.
func AppendTradeArgs(args []any, t *analytics.Trade) []any {
	return append(args, t.Signature, t.Slot, t.BlockTime, t.Mint, t.Side, t.TokenAmount, t.USDAmount, t.PriceUSD,
		t.Wallet, t.Venue, t.FlowSource, t.FeeUSD, t.IsBot)
}

// StoredTrade is a trade with its commit sequence number.
type StoredTrade struct {
	Seq int64
	analytics.Trade
}

// ScanTrade reads one "seq, " + TradeColumns row.
func ScanTrade(sc Scanner, t *StoredTrade) error {
	return sc.Scan(&t.Seq, &t.Signature, &t.Slot, &t.BlockTime, &t.Mint, &t.Side, &t.TokenAmount, &t.USDAmount, &t.PriceUSD,
		&t.Wallet, &t.Venue, &t.FlowSource, &t.FeeUSD, &t.IsBot)
}

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

// TradeBatchRows is how many trades the engines read per chunk when
// streaming stored trades.
const TradeBatchRows = 8192
