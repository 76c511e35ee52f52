package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/storage"
)

// TradeColumns are the persisted trade columns, in TradeArgs order (seq is
// assigned by the store). (signature, leg) is the unique key. data holds
// the fields other than signature, leg, mint and block time
// (EncodeTradeData): fewer columns make the batch insert and the start-up
// scan several times cheaper.
//
// reason is the price rules' decision (” accepted, 'dust',
// 'price_outlier'; docs/prices.md), stored so a rebuild applies it again.
const TradeColumns = `signature, leg, mint, block_time, data, reason`

// TradeColumnCount is the number of TradeColumns.
const TradeColumnCount = 6

// AppendTradeArgs appends the trade's TradeColumns values to args.
func AppendTradeArgs(args []any, t *analytics.Trade) []any {
	return append(args, t.Signature, t.Leg, t.Mint, t.BlockTime, EncodeTradeData(nil, t), t.Admission.Reason())
}

// ScanTrade reads one "seq, " + TradeColumns row.
func ScanTrade(sc storage.Scanner, t *ingest.StoredTrade, data *[]byte) error {
	var reason string
	if err := sc.Scan(&t.Seq, &t.Signature, &t.Leg, &t.Mint, &t.BlockTime, data, &reason); err != nil {
		return err
	}
	t.Admission = analytics.AdmissionOf(reason)
	return DecodeTradeData(*data, &t.Trade)
}

// Trade data flags.
const (
	flagSell = 1 << iota
	flagBot
)

// EncodeTradeData appends the trade's fields other than signature, leg,
// mint and block time to dst: slot (8 bytes), token amount, USD amount,
// price and fee (float64 bits, 8 bytes each), flags (1 byte: sell, bot),
// then wallet, venue and flow source, each a length byte and its bytes
// (the engine bounds them to 64 bytes; longer ones are cut at 255), then,
// when either is set, pool and program the same way (data written before
// they existed ends after the flow source).
func EncodeTradeData(dst []byte, t *analytics.Trade) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(t.Slot))
	for _, f := range [...]float64{t.TokenAmount, t.USDAmount, t.PriceUSD, t.FeeUSD} {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
	}
	var flags byte
	if t.Side == analytics.SideSell {
		flags |= flagSell
	}
	if t.IsBot {
		flags |= flagBot
	}
	dst = append(dst, flags)
	strs := [...]string{t.Wallet, t.Venue, t.FlowSource, t.Pool, t.Program}
	n := len(strs)
	if t.Pool == "" && t.Program == "" {
		n = 3
	}
	for _, s := range strs[:n] {
		s = s[:min(len(s), 255)]
		dst = append(dst, byte(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

// DecodeTradeData is the inverse of EncodeTradeData.
func DecodeTradeData(b []byte, t *analytics.Trade) error {
	const fixed = 5*8 + 1
	if len(b) < fixed {
		return fmt.Errorf("trade data: %d bytes, want at least %d", len(b), fixed)
	}
	t.Slot = int64(binary.LittleEndian.Uint64(b))
	t.TokenAmount = math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	t.USDAmount = math.Float64frombits(binary.LittleEndian.Uint64(b[16:]))
	t.PriceUSD = math.Float64frombits(binary.LittleEndian.Uint64(b[24:]))
	t.FeeUSD = math.Float64frombits(binary.LittleEndian.Uint64(b[32:]))
	flags := b[40]
	t.Side = analytics.SideBuy
	if flags&flagSell != 0 {
		t.Side = analytics.SideSell
	}
	t.IsBot = flags&flagBot != 0
	b = b[fixed:]
	t.Pool, t.Program = "", ""
	for i, dst := range [...]*string{&t.Wallet, &t.Venue, &t.FlowSource, &t.Pool, &t.Program} {
		if i == 3 && len(b) == 0 {
			break // written before pool and program existed, or neither set
		}
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return errors.New("trade data: truncated string")
		}
		*dst = string(b[1 : 1+int(b[0])])
		b = b[1+int(b[0]):]
	}
	return nil
}

// TradeBatchRows is how many trades the engines read per chunk when
// streaming stored trades.
const TradeBatchRows = 8192

// TradePage queries the trades with seq in (after, before), ascending, at
// most limit of them; done releases the rows.
type TradePage func(after, before int64, limit int) (rows storage.RowIter, done func(), err error)

// ScanTradePages calls fn with the trades with seq in (after, before) (no
// upper bound when before <= 0), ascending, TradeBatchRows at a time, one
// query per chunk (keyset pagination: no long-lived read transaction). The
// chunk is reused after fn returns.
func ScanTradePages(after, before int64, page TradePage, fn func([]ingest.StoredTrade) error) error {
	if before <= 0 {
		before = math.MaxInt64
	}
	buf := make([]ingest.StoredTrade, 0, TradeBatchRows)
	var data []byte
	for {
		buf = buf[:0]
		rows, done, err := page(after, before, TradeBatchRows)
		if err != nil {
			return err
		}
		for rows.Next() {
			buf = append(buf, ingest.StoredTrade{})
			if err := ScanTrade(rows, &buf[len(buf)-1], &data); err != nil {
				done()
				return err
			}
		}
		err = rows.Err()
		done()
		if err != nil {
			return err
		}
		if len(buf) == 0 {
			return nil
		}
		if err := fn(buf); err != nil {
			return err
		}
		if len(buf) < TradeBatchRows {
			return nil
		}
		after = buf[len(buf)-1].Seq
	}
}
