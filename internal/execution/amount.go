package execution

import (
	"math/big"
	"strings"
)

// maxU64 bounds raw amounts (an SPL amount is a u64).
var maxU64 = new(big.Int).SetUint64(^uint64(0))

// ParseDecimal parses a non-negative decimal string of the shape
// ^(0|[1-9]\d*)(\.\d+)?$ with at most maxFrac fractional digits into raw
// units scaled by 10^decimals. ok is false on a bad shape, too many
// fractional digits or a raw amount beyond u64.
func ParseDecimal(s string, maxFrac, decimals int) (raw *big.Int, ok bool) {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if intPart == "" || (len(intPart) > 1 && intPart[0] == '0') || !digits(intPart) {
		return nil, false
	}
	if hasFrac && (frac == "" || !digits(frac)) {
		return nil, false
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > maxFrac || len(frac) > decimals {
		return nil, false
	}
	raw, _ = new(big.Int).SetString(intPart+frac+strings.Repeat("0", decimals-len(frac)), 10)
	if raw == nil || raw.Cmp(maxU64) > 0 {
		return nil, false
	}
	return raw, true
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// pow10s holds 10^0..10^38, shared and read-only.
var pow10s = func() []*big.Int {
	out := make([]*big.Int, 39)
	for i := range out {
		out[i] = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(i)), nil)
	}
	return out
}()

// pow10 returns 10^n. The result may be shared: never modify it.
func pow10(n int) *big.Int {
	if n >= 0 && n < len(pow10s) {
		return pow10s[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// FormatRaw renders raw units with decimals as a decimal string without
// trailing fractional zeros ("1.5", "100").
func FormatRaw(raw *big.Int, decimals int) string {
	if raw == nil {
		return "0"
	}
	neg := raw.Sign() < 0
	s := new(big.Int).Abs(raw).String()
	if decimals > 0 {
		if len(s) <= decimals {
			s = strings.Repeat("0", decimals-len(s)+1) + s
		}
		i, f := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
		s = i
		if f != "" {
			s += "." + f
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ratString renders r with up to prec fractional digits, trailing zeros
// removed.
func ratString(r *big.Rat, prec int) string {
	s := r.FloatString(prec)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// usdRaw is whole dollars in USDC raw units (6 decimals).
func usdRaw(usd int64) *big.Int { return new(big.Int).Mul(big.NewInt(usd), big.NewInt(1_000_000)) }
