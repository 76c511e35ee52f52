package demo

import (
	"math"

	b58 "github.com/mr-tron/base58"
)

// Counter-based randomness. Every random number of the world is a pure
// function of (seed, a string such as a mint or an asset id, a purpose tag,
// a counter such as a minute index), so any value can be computed without
// replaying a sequence, and two processes agree on every value.

const golden = 0x9E3779B97F4A7C15

// mix64 is the splitmix64 finalizer: a bijective avalanche of 64 bits.
func mix64(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xBF58476D1CE4E5B9
	z ^= z >> 27
	z *= 0x94D049BB133111EB
	z ^= z >> 31
	return z
}

// strHash is 64-bit FNV-1a.
func strHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Purpose tags keep the streams of one key independent.
const (
	tagProfile uint64 = iota + 1
	tagPath
	tagAnchor
	tagDayVol
	tagHourBridge
	tagBurst
	tagMinuteBridge
	tagWiggle
	tagDayFlow
	tagHourFlow
	tagHourCount
	tagHourSize
	tagMinuteWeight
	tagLiquidity
	tagPools
	tagPoolAddress
	tagPoolPrice
	tagTrade
	tagTradeSecond
	tagWallet
	tagSignature
	tagLastSecond
	tagPoolAge
	tagCanonical
	tagCoinFlow
	tagStockFlow
	tagTickers
)

// derive combines a key with further words into a new key.
func derive(key uint64, words ...uint64) uint64 {
	h := mix64(key ^ golden)
	for _, w := range words {
		h = mix64(h ^ mix64(w+golden))
	}
	return h
}

// stream is a counter-based random stream: value i is a pure function of
// the stream key and i.
type stream uint64

func (s stream) bits(i int64) uint64 { return mix64(uint64(s) ^ mix64(uint64(i)+golden)) }

// u is uniform in [0, 1).
func (s stream) u(i int64) float64 { return float64(s.bits(i)>>11) * 0x1p-53 }

// normal is an approximately standard normal deviate: the Irwin-Hall sum
// of four 16-bit uniforms, rescaled to unit variance. Cheap and free of
// transcendental functions; its tails stop at ±3.46, which suits a
// simulation (bursts come from explicit burst hours instead).
func (s stream) normal(i int64) float64 { return bitsNormal(s.bits(i)) }

// u2 gives two independent uniforms in (0, 1] from one draw.
func (s stream) u2(i int64) (float64, float64) {
	b := s.bits(i)
	return (float64(b>>32) + 1) * 0x1p-32, (float64(b&0xFFFFFFFF) + 1) * 0x1p-32
}

func bitsNormal(b uint64) float64 {
	sum := (b & 0xFFFF) + (b >> 16 & 0xFFFF) + (b >> 32 & 0xFFFF) + (b >> 48)
	// four uniforms on [0, 65535]: mean 131070, standard deviation ≈ 65536/√3
	return (float64(sum) - 131070) * (1.7320508075688772 / 65536)
}

// seq draws successive values from a stream; used when building profiles.
type seq struct {
	s stream
	i int64
}

func newSeq(key uint64) *seq { return &seq{s: stream(key)} }

func (q *seq) u() float64 { q.i++; return q.s.u(q.i) }

func (q *seq) normal() float64 { q.i++; return q.s.normal(q.i) }

// between is uniform in [lo, hi).
func (q *seq) between(lo, hi float64) float64 { return lo + (hi-lo)*q.u() }

// logBetween is log-uniform in [lo, hi).
func (q *seq) logBetween(lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*q.u())
}

// intn is uniform in [0, n).
func (q *seq) intn(n int) int { q.i++; return int(q.s.bits(q.i) % uint64(n)) }

// lognormal1 is a log-normal factor with mean 1 and log-sd sigma.
func lognormal1(n, sigma float64) float64 { return math.Exp(sigma*n - sigma*sigma/2) }

// floorDiv is integer division rounding toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

const b58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58 encodes bytes with the Bitcoin alphabet (as Solana does).
func base58(b []byte) string { return b58.Encode(b) }

// decode58 decodes a base58 string; nil when it is not base58 or decodes
// to more than 64 bytes.
func decode58(s string) []byte {
	if s == "" {
		return nil
	}
	b, err := b58.Decode(s)
	if err != nil || len(b) > 64 {
		return nil
	}
	return b
}

// validMint reports whether s looks like a Solana address: base58 of 32
// bytes.
func validMint(s string) bool { return len(s) >= 32 && len(s) <= 44 && len(decode58(s)) == 32 }

// syntheticAddress is base58 of 32 pseudo-random bytes derived from key:
// shaped like a Solana address, owned by nobody.
func syntheticAddress(key uint64) string { return base58(hashBytes(key, 32)) }

func hashBytes(key uint64, n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := mix64(key ^ mix64(uint64(i)+golden))
		for k := 0; k < 8 && i+k < n; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return b
}
