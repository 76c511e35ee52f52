package tradestream

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/assetd/assetd/internal/analytics"
)

// appendTrade appends t's trade event JSON to dst: the bytes json.Marshal
// writes (TestAppendTradeIsJSONMarshal), without its reflection. Strings
// other than plain ASCII and numbers encoding/json would reject go
// through encoding/json.
func appendTrade(dst []byte, t *analytics.Trade) ([]byte, error) {
	if !finite(t.TokenAmount) || !finite(t.USDAmount) || !finite(t.PriceUSD) || !finite(t.FeeUSD) {
		b, err := json.Marshal(t)
		return append(dst, b...), err
	}
	dst = append(dst, `{"signature":`...)
	dst = appendString(dst, t.Signature)
	dst = append(dst, `,"slot":`...)
	dst = strconv.AppendInt(dst, t.Slot, 10)
	dst = append(dst, `,"blockTime":`...)
	dst = strconv.AppendInt(dst, t.BlockTime, 10)
	dst = append(dst, `,"mint":`...)
	dst = appendString(dst, t.Mint)
	dst = append(dst, `,"side":`...)
	dst = appendString(dst, t.Side)
	dst = append(dst, `,"tokenAmount":`...)
	dst = appendFloat(dst, t.TokenAmount)
	dst = append(dst, `,"usdAmount":`...)
	dst = appendFloat(dst, t.USDAmount)
	dst = append(dst, `,"priceUsd":`...)
	dst = appendFloat(dst, t.PriceUSD)
	dst = append(dst, `,"wallet":`...)
	dst = appendString(dst, t.Wallet)
	dst = append(dst, `,"venue":`...)
	dst = appendString(dst, t.Venue)
	if t.FlowSource != "" {
		dst = append(dst, `,"flowSource":`...)
		dst = appendString(dst, t.FlowSource)
	}
	dst = append(dst, `,"feeUsd":`...)
	dst = appendFloat(dst, t.FeeUSD)
	dst = append(dst, `,"isBot":`...)
	dst = strconv.AppendBool(dst, t.IsBot)
	dst = append(dst, `,"leg":`...)
	dst = strconv.AppendInt(dst, int64(t.Leg), 10)
	if t.Pool != "" {
		dst = append(dst, `,"pool":`...)
		dst = appendString(dst, t.Pool)
	}
	if t.Program != "" {
		dst = append(dst, `,"program":`...)
		dst = appendString(dst, t.Program)
	}
	return append(dst, '}'), nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// appendString writes s as encoding/json does: printable ASCII other than
// the characters it escapes as is, anything else through it.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendFloat writes a finite f as encoding/json does (ES6 number form).
func appendFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
