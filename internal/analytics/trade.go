package analytics

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// Trade is one successful swap of a mint against a USD stablecoin, as
// the engine ingests it (JSON field names are the wire format).
type Trade struct {
	// Signature and Leg identify the trade (ID); ingest is idempotent by
	// them.
	Signature string `json:"signature"`
	Slot      int64  `json:"slot"`
	// BlockTime is the block's unix time in seconds.
	BlockTime int64 `json:"blockTime"`
	// Mint is the base58 address of the traded (base) token.
	Mint string `json:"mint"`
	// Side is "buy" or "sell" of the mint.
	Side        string  `json:"side"`
	TokenAmount float64 `json:"tokenAmount"`
	USDAmount   float64 `json:"usdAmount"`
	PriceUSD    float64 `json:"priceUsd"`
	// Wallet is the base58 address of the trader.
	Wallet string `json:"wallet"`
	// Venue is the DEX or pool program that filled the trade.
	Venue string `json:"venue"`
	// FlowSource is the order-flow source (aggregator, frontend), if known.
	FlowSource string  `json:"flowSource,omitempty"`
	FeeUSD     float64 `json:"feeUsd"`
	IsBot      bool    `json:"isBot"`
	// Leg is the trade's 0-based order among the swap legs of its
	// transaction; (Signature, Leg) identifies a trade. Clients that send
	// one trade per signature leave it 0.
	Leg int `json:"leg"`
	// Pool is the pool or market account that filled the leg, if known.
	Pool string `json:"pool,omitempty"`
	// Program is the DEX program id that filled the leg, if known.
	Program string `json:"program,omitempty"`
	// Admission is the price rules' decision (admission.go), never read
	// from the wire: Engine.Classify or Ingest decides it, the trade store
	// keeps it.
	Admission Admission `json:"-"`
}

// TradeID identifies a trade: its transaction's signature and its leg
// (the 0-based order among the transaction's swap legs).
type TradeID struct {
	Signature string
	Leg       int
}

// ID returns the trade's identity.
func (t *Trade) ID() TradeID { return TradeID{Signature: t.Signature, Leg: t.Leg} }

// String is the identity's text form: the signature for leg 0 (what
// clients that send one trade per signature have always used), else
// "<signature>:<leg>". A signature never contains ':' (base58).
func (id TradeID) String() string {
	if id.Leg == 0 {
		return id.Signature
	}
	return id.Signature + ":" + strconv.Itoa(id.Leg)
}

// Trade sides.
const (
	SideBuy  = "buy"
	SideSell = "sell"
)

// Validation limits.
const (
	// MaxSignatureLen bounds a signature (a Solana signature is 87 or 88
	// base58 characters).
	MaxSignatureLen = 128
	// MaxLabelLen bounds venue and flowSource.
	MaxLabelLen = 64
	// MinBlockTime is the earliest accepted block time, 2020-01-01T00:00:00Z
	// (before Solana's mainnet beta).
	MinBlockTime = 1_577_836_800
	// MaxLeg bounds leg, a trade's 0-based order among the swap legs of
	// its transaction (a Solana transaction carries far fewer
	// instructions).
	MaxLeg = 255
)

// Value bounds (docs/analytics.md, "Value bounds"). They reject what no
// real trade carries, long before a sum could overflow: a million
// trades at MaxUSDAmount sum to 1e16, far below MaxSumUSD.
const (
	// MaxUSDAmount bounds usdAmount and feeUsd: $10 billion, more than
	// any single swap has moved.
	MaxUSDAmount = 1e10
	// MinPriceUSD and MaxPriceUSD bound priceUsd (per whole token): from
	// 1e-18 (far below the cheapest meme token) to $1 billion (four
	// orders of magnitude above the dearest token).
	MinPriceUSD = 1e-18
	MaxPriceUSD = 1e9
	// MaxTokenAmount bounds tokenAmount: a u64 raw amount at 0 decimals
	// is at most 1.8e19.
	MaxTokenAmount = 1e20
	// AmountTolerance is how far usdAmount may be from tokenAmount ×
	// priceUsd, relative to the larger of the two: 10% covers fees,
	// slippage and a price quoted before the fill; AmountSlackUSD (one
	// cent) more covers dust trades whose token amount was rounded to the
	// token's decimals.
	AmountTolerance = 0.10
	AmountSlackUSD  = 0.01
	// MaxSumUSD is where candle and window USD sums saturate (and the
	// most a persisted candle's volume may hold).
	MaxSumUSD = 1e18
)

// Reason is the stable code of a rejected trade; IngestResult.Reasons
// counts rejections by it.
type Reason string

// Rejection reasons.
const (
	ReasonMalformedJSON     Reason = "malformed_json"
	ReasonMissingSignature  Reason = "missing_signature"
	ReasonInvalidSignature  Reason = "invalid_signature"
	ReasonInvalidSlot       Reason = "invalid_slot"
	ReasonInvalidBlockTime  Reason = "invalid_block_time"
	ReasonFutureBlockTime   Reason = "future_block_time"
	ReasonInvalidMint       Reason = "invalid_mint"
	ReasonInvalidSide       Reason = "invalid_side"
	ReasonNonPositiveAmount Reason = "non_positive_amount"
	ReasonNonPositivePrice  Reason = "non_positive_price"
	ReasonInvalidWallet     Reason = "invalid_wallet"
	ReasonMissingVenue      Reason = "missing_venue"
	ReasonInvalidVenue      Reason = "invalid_venue"
	ReasonInvalidFlowSource Reason = "invalid_flow_source"
	ReasonInvalidFee        Reason = "invalid_fee"
	ReasonInvalidLeg        Reason = "invalid_leg"
	ReasonInvalidPool       Reason = "invalid_pool"
	ReasonInvalidProgram    Reason = "invalid_program"
	// ReasonAmountTooLarge: tokenAmount above MaxTokenAmount or usdAmount
	// above MaxUSDAmount.
	ReasonAmountTooLarge Reason = "amount_too_large"
	// ReasonPriceOutOfRange: priceUsd outside MinPriceUSD..MaxPriceUSD.
	ReasonPriceOutOfRange Reason = "price_out_of_range"
	// ReasonInconsistentAmount: usdAmount is not tokenAmount × priceUsd
	// within AmountTolerance (+ AmountSlackUSD).
	ReasonInconsistentAmount Reason = "inconsistent_usd_amount"
)

// ValidationError says why a trade was rejected: a stable Code and the
// JSON field at fault.
type ValidationError struct {
	Code  Reason
	Field string
}

func (e *ValidationError) Error() string {
	return "analytics: invalid trade: " + e.Field + ": " + string(e.Code)
}

// ReasonOf returns the code of a *ValidationError in err's chain, or "".
func ReasonOf(err error) Reason {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve.Code
	}
	return ""
}

func invalid(code Reason, field string) error {
	return &ValidationError{Code: code, Field: field}
}

// Validate checks the trade's fields; it returns nil or a
// *ValidationError. It does not look at the clock: Ingest additionally
// rejects block times too far in the future (ReasonFutureBlockTime).
func (t *Trade) Validate() error {
	switch {
	case t.Signature == "":
		return invalid(ReasonMissingSignature, "signature")
	case len(t.Signature) > MaxSignatureLen || !printable(t.Signature):
		return invalid(ReasonInvalidSignature, "signature")
	case t.Slot < 0:
		return invalid(ReasonInvalidSlot, "slot")
	case t.Leg < 0 || t.Leg > MaxLeg:
		return invalid(ReasonInvalidLeg, "leg")
	case t.BlockTime < MinBlockTime:
		return invalid(ReasonInvalidBlockTime, "blockTime")
	case !validAddress(t.Mint):
		return invalid(ReasonInvalidMint, "mint")
	case t.Side != SideBuy && t.Side != SideSell:
		return invalid(ReasonInvalidSide, "side")
	case !positive(t.TokenAmount):
		return invalid(ReasonNonPositiveAmount, "tokenAmount")
	case t.TokenAmount > MaxTokenAmount:
		return invalid(ReasonAmountTooLarge, "tokenAmount")
	case !positive(t.USDAmount):
		return invalid(ReasonNonPositiveAmount, "usdAmount")
	case t.USDAmount > MaxUSDAmount:
		return invalid(ReasonAmountTooLarge, "usdAmount")
	case !positive(t.PriceUSD):
		return invalid(ReasonNonPositivePrice, "priceUsd")
	case t.PriceUSD < MinPriceUSD || t.PriceUSD > MaxPriceUSD:
		return invalid(ReasonPriceOutOfRange, "priceUsd")
	case !consistentAmounts(t.USDAmount, t.TokenAmount, t.PriceUSD):
		return invalid(ReasonInconsistentAmount, "usdAmount")
	case !validAddress(t.Wallet):
		return invalid(ReasonInvalidWallet, "wallet")
	case t.Venue == "":
		return invalid(ReasonMissingVenue, "venue")
	case len(t.Venue) > MaxLabelLen || !printable(t.Venue):
		return invalid(ReasonInvalidVenue, "venue")
	case len(t.FlowSource) > MaxLabelLen || !printable(t.FlowSource):
		return invalid(ReasonInvalidFlowSource, "flowSource")
	case !(t.FeeUSD >= 0) || t.FeeUSD > MaxUSDAmount:
		return invalid(ReasonInvalidFee, "feeUsd")
	case t.Pool != "" && !validAddress(t.Pool):
		return invalid(ReasonInvalidPool, "pool")
	case t.Program != "" && !validAddress(t.Program):
		return invalid(ReasonInvalidProgram, "program")
	}
	return nil
}

// consistentAmounts reports whether usd is tokens × price within
// AmountTolerance of the larger of the two, plus AmountSlackUSD. The
// operands are bounded (validated before), so the product is finite.
func consistentAmounts(usd, tokens, price float64) bool {
	implied := tokens * price
	return math.Abs(usd-implied) <= AmountTolerance*max(usd, implied)+AmountSlackUSD
}

// addSat adds v to a USD sum, saturating at MaxSumUSD.
func addSat(sum, v float64) float64 { return min(sum+v, MaxSumUSD) }

// addSatSigned adds v to a signed USD sum (a markout PnL), saturating at
// ±MaxSumUSD.
func addSatSigned(sum, v float64) float64 { return max(min(sum+v, MaxSumUSD), -MaxSumUSD) }

// positive reports whether v is a positive finite number.
func positive(v float64) bool {
	return v > 0 && !math.IsInf(v, 1)
}

// printable reports whether s is printable ASCII (0x20..0x7e): labels
// and signatures end up in logs and persisted rows. It tests 8 bytes at a
// time: a byte below 0x20 sets its high bit in (x - 0x20..) &^ x, a byte
// above 0x7e sets it in x | (x + 0x01..) (a 0xff byte's carry into the
// next byte does not matter, its own high bit is set).
func printable(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var bad uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		bad |= (x-0x20*ones)&^x | x | (x + ones)
	}
	if bad&highs != 0 {
		return false
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// TradeRef identifies a trade's place in the trade order used for candle
// open/close, the last price and markouts: by block time, then slot, then
// signature. The engine reads the first SignatureOrderBytes of the
// signature; the refs it returns carry just those bytes.
type TradeRef struct {
	BlockTime int64  `json:"blockTime"`
	Slot      int64  `json:"slot"`
	Signature string `json:"signature"`
}

// SignatureOrderBytes is how much of a signature the trade order reads.
// Real signatures (87 or 88 random base58 characters) never share 16
// bytes; trades that tie on block time, slot and these bytes keep their
// arrival order.
const SignatureOrderBytes = 16

// Compare orders two refs by block time, slot and (whole) signature: -1,
// 0 or +1.
func (a TradeRef) Compare(b TradeRef) int {
	switch {
	case a.BlockTime != b.BlockTime:
		return cmp3(a.BlockTime < b.BlockTime)
	case a.Slot != b.Slot:
		return cmp3(a.Slot < b.Slot)
	case a.Signature < b.Signature:
		return -1
	case a.Signature > b.Signature:
		return 1
	}
	return 0
}

// IsZero reports whether the ref is unset.
func (a TradeRef) IsZero() bool { return a == TradeRef{} }

func cmp3(less bool) int {
	if less {
		return -1
	}
	return 1
}

// Ref returns the trade's order key.
func (t *Trade) Ref() TradeRef {
	return TradeRef{BlockTime: t.BlockTime, Slot: t.Slot, Signature: t.Signature}
}

// orderKey is the engine's pointer-free form of a TradeRef: the signature
// cut to its first 16 bytes, big-endian and zero-padded, so comparing
// words orders like comparing the (printable) strings' prefixes. The zero
// key sorts before every trade.
type orderKey struct {
	t, slot int64
	s0, s1  uint64
}

func keyOf(t *Trade) orderKey {
	return orderKey{t: t.BlockTime, slot: t.Slot, s0: sigPrefix(t.Signature), s1: sigPrefix(after8(t.Signature))}
}

func refKey(r TradeRef) orderKey {
	return orderKey{t: r.BlockTime, slot: r.Slot, s0: sigPrefix(r.Signature), s1: sigPrefix(after8(r.Signature))}
}

func after8(s string) string {
	if len(s) <= 8 {
		return ""
	}
	return s[8:]
}

// after reports whether a comes strictly after b.
func (a *orderKey) after(b *orderKey) bool {
	switch {
	case a.t != b.t:
		return a.t > b.t
	case a.slot != b.slot:
		return a.slot > b.slot
	case a.s0 != b.s0:
		return a.s0 > b.s0
	}
	return a.s1 > b.s1
}

// ref turns the key back into a TradeRef (signature cut to 16 bytes).
func (a orderKey) ref() TradeRef {
	if a == (orderKey{}) {
		return TradeRef{}
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], a.s0)
	binary.BigEndian.PutUint64(b[8:], a.s1)
	n := len(b)
	for n > 0 && b[n-1] == 0 {
		n--
	}
	return TradeRef{BlockTime: a.t, Slot: a.slot, Signature: string(b[:n])}
}

// sigPrefix is the first 8 bytes of s, big-endian and zero-padded: for
// printable strings, comparing prefixes orders like comparing the strings
// unless both share their first 8 bytes.
func sigPrefix(s string) uint64 {
	if len(s) >= 8 {
		return binary.BigEndian.Uint64([]byte(s[:8]))
	}
	var v uint64
	for i := 0; i < 8; i++ {
		v <<= 8
		if i < len(s) {
			v |= uint64(s[i])
		}
	}
	return v
}
