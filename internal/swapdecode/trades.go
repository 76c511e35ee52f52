package swapdecode

import (
	"fmt"
	"math"
	"strings"

	"github.com/assetd/assetd/internal/analytics"
)

const (
	usdcMint = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	usdtMint = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"
)

// DefaultStableList is DefaultStableMints as the --stable-mints flag
// spells it.
const DefaultStableList = usdcMint + "," + usdtMint

// DefaultStableMints are the USD-stable mints a leg is priced against
// unless configured otherwise: USDC and USDT (SPL Token, 6 decimals).
func DefaultStableMints() map[string]bool {
	return map[string]bool{usdcMint: true, usdtMint: true}
}

// ParseStableMints reads a comma-separated list of base58 mint addresses
// (the --stable-mints flag); blanks around entries are ignored, an empty
// list or an entry that is not a 32-byte base58 key is an error.
func ParseStableMints(list string) (map[string]bool, error) {
	out := make(map[string]bool)
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if b, ok := b58decode(nil, []byte(f)); !ok || len(b) != 32 {
			return nil, fmt.Errorf("stable mint %q is not a base58 32-byte address", f)
		}
		out[f] = true
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no stable mint in %q", list)
	}
	return out, nil
}

// Trades turns tx's legs with exactly one side in stable into trade
// events in the ingest format (mint the other side, side buy when the
// token is the leg's output, UI amounts, price usd/token, wallet the fee
// payer, leg, pool, program, venue, slot, blockTime). A leg whose amounts
// do not make a valid trade (unknown decimals, a price out of
// analytics' bounds, a leg index above analytics.MaxLeg) yields none.
func Trades(tx Tx, stable map[string]bool) []analytics.Trade {
	if tx.Failed {
		return nil
	}
	var out []analytics.Trade
	for _, l := range tx.Legs {
		inStable, outStable := stable[l.InMint], stable[l.OutMint]
		if inStable == outStable || l.Index > analytics.MaxLeg {
			continue
		}
		t := analytics.Trade{
			Signature: tx.Signature,
			Slot:      tx.Slot,
			BlockTime: tx.BlockTime,
			Wallet:    tx.FeePayer,
			Venue:     l.Venue,
			Leg:       l.Index,
			Pool:      l.Pool,
			Program:   l.Program,
		}
		var usdRaw, tokRaw uint64
		var usdDec, tokDec int
		if inStable { // paid USD, received the token: a buy
			t.Side, t.Mint = analytics.SideBuy, l.OutMint
			usdRaw, usdDec, tokRaw, tokDec = l.InAmount, l.InDecimals, l.OutAmount, l.OutDecimals
		} else {
			t.Side, t.Mint = analytics.SideSell, l.InMint
			usdRaw, usdDec, tokRaw, tokDec = l.OutAmount, l.OutDecimals, l.InAmount, l.InDecimals
		}
		if usdDec < 0 || tokDec < 0 || usdDec > 30 || tokDec > 30 || usdRaw == 0 || tokRaw == 0 {
			continue
		}
		t.USDAmount = ui(usdRaw, usdDec)
		t.TokenAmount = ui(tokRaw, tokDec)
		t.PriceUSD = t.USDAmount / t.TokenAmount
		if t.Validate() != nil {
			continue
		}
		out = append(out, t)
	}
	return out
}

// ui converts a raw amount to UI units.
func ui(raw uint64, decimals int) float64 {
	return float64(raw) / math.Pow10(decimals)
}
