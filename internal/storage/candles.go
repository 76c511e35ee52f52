package storage

import (
	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/market"
)

// CandleColumns are the persisted candle columns, in CandleArgs order.
const CandleColumns = `mint, interval, start, open, high, low, close, volume, trades,
	open_slot, open_time, open_sig, close_slot, close_time, close_sig`

// CandleArgs flattens a candle into CandleColumns order.
func CandleArgs(c *analytics.CandleUpdate) []any {
	return []any{c.Mint, string(c.Interval), c.Time, c.Open, c.High, c.Low, c.Close, c.Volume, c.Trades,
		c.OpenRef.Slot, c.OpenRef.BlockTime, c.OpenRef.Signature, c.CloseRef.Slot, c.CloseRef.BlockTime, c.CloseRef.Signature}
}

// ScanCandle reads one CandleColumns row.
func ScanCandle(sc Scanner) (analytics.CandleUpdate, error) {
	var c analytics.CandleUpdate
	var iv string
	err := sc.Scan(&c.Mint, &iv, &c.Time, &c.Open, &c.High, &c.Low, &c.Close, &c.Volume, &c.Trades,
		&c.OpenRef.Slot, &c.OpenRef.BlockTime, &c.OpenRef.Signature, &c.CloseRef.Slot, &c.CloseRef.BlockTime, &c.CloseRef.Signature)
	c.Interval = market.Interval(iv)
	return c, err
}
