package analytics

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/assetd/assetd/internal/jsonscan"
)

// ParseTrade decodes one JSON trade event and validates it. A decode
// failure is a *ValidationError with ReasonMalformedJSON. Unknown fields
// are ignored.
//
// It decodes exactly as encoding/json would into a Trade: a hand-written
// scanner reads the common shape (an object of the Trade's fields under
// their exact names, ASCII strings without escapes or control characters,
// numbers the field's type holds, unknown fields with scalar values)
// without reflection, and any other input (escapes, non-ASCII, null for a
// field, other spellings of a field's key, nested unknown values, syntax
// errors) goes to encoding/json. FuzzParseTradeAgrees and TestParseTradeAgrees
// check the two agree.
func ParseTrade(data []byte) (Trade, error) {
	t, ok := scanTrade(data)
	if !ok {
		return parseTradeJSON(data)
	}
	if err := t.Validate(); err != nil {
		return Trade{}, err
	}
	return t, nil
}

// parseTradeJSON is ParseTrade through encoding/json.
func parseTradeJSON(data []byte) (Trade, error) {
	var t Trade
	if err := json.Unmarshal(data, &t); err != nil {
		return Trade{}, invalid(ReasonMalformedJSON, "")
	}
	if err := t.Validate(); err != nil {
		return Trade{}, err
	}
	return t, nil
}

// Trade fields as the scanner knows them.
const (
	fieldUnknown = iota
	fieldSignature
	fieldSlot
	fieldBlockTime
	fieldMint
	fieldSide
	fieldTokenAmount
	fieldUSDAmount
	fieldPriceUSD
	fieldWallet
	fieldVenue
	fieldFlowSource
	fieldFeeUSD
	fieldIsBot
	fieldLeg
	fieldPool
	fieldProgram
)

// fieldOf maps an exact JSON key to its field.
func fieldOf(key []byte) int {
	switch string(key) { // no allocation: the compiler compares in place
	case "signature":
		return fieldSignature
	case "slot":
		return fieldSlot
	case "blockTime":
		return fieldBlockTime
	case "mint":
		return fieldMint
	case "side":
		return fieldSide
	case "tokenAmount":
		return fieldTokenAmount
	case "usdAmount":
		return fieldUSDAmount
	case "priceUsd":
		return fieldPriceUSD
	case "wallet":
		return fieldWallet
	case "venue":
		return fieldVenue
	case "flowSource":
		return fieldFlowSource
	case "feeUsd":
		return fieldFeeUSD
	case "isBot":
		return fieldIsBot
	case "leg":
		return fieldLeg
	case "pool":
		return fieldPool
	case "program":
		return fieldProgram
	}
	return fieldUnknown
}

// fieldNames are the Trade's JSON keys.
var fieldNames = [...]string{"signature", "slot", "blockTime", "mint", "side", "tokenAmount",
	"usdAmount", "priceUsd", "wallet", "venue", "flowSource", "feeUsd", "isBot", "leg", "pool", "program"}

// foldsToField reports whether an (ASCII) key matches a field's name
// ignoring case, as encoding/json matches keys it has no exact field for.
func foldsToField(key []byte) bool {
	for _, n := range fieldNames {
		if len(n) == len(key) && strings.EqualFold(n, string(key)) {
			return true
		}
	}
	return false
}

// scanTrade decodes data when it is in the scanner's subset of JSON; ok
// is false for anything else (the caller then uses encoding/json, which
// decides between a valid odd form and an error). Within the subset the
// result is what encoding/json produces: every input it accepts is valid
// JSON decoding to the same Trade.
func scanTrade(data []byte) (t Trade, ok bool) {
	s := tradeScanner{jsonscan.Scanner{B: data}}
	if !s.Consume('{') {
		return Trade{}, false
	}
	if s.Consume('}') {
		return t, s.End()
	}
	for {
		key, kok := s.str()
		if !kok {
			return Trade{}, false
		}
		f := fieldOf(key)
		if f == fieldUnknown && foldsToField(key) {
			return Trade{}, false // encoding/json matches keys case-insensitively
		}
		if !s.Consume(':') || !s.value(&t, f) {
			return Trade{}, false
		}
		if s.Consume(',') {
			continue
		}
		if s.Consume('}') {
			return t, s.End()
		}
		return Trade{}, false
	}
}

// tradeScanner reads a trade's values: strings of the subset that are
// ASCII (a non-ASCII key could fold to a field's name as encoding/json
// folds keys, so the scanner leaves all of them to encoding/json).
type tradeScanner struct{ jsonscan.Scanner }

// str reads an ASCII string of the subset.
func (s *tradeScanner) str() ([]byte, bool) {
	b, ascii, ok := s.String()
	return b, ok && ascii
}

// side reads a side value without allocating for the two valid ones.
func (s *tradeScanner) side() (string, bool) {
	raw, ok := s.str()
	if !ok {
		return "", false
	}
	switch string(raw) {
	case SideBuy:
		return SideBuy, true
	case SideSell:
		return SideSell, true
	}
	return string(raw), true
}

// text reads a string value.
func (s *tradeScanner) text(dst *string) bool {
	b, ok := s.str()
	if ok {
		*dst = string(b)
	}
	return ok
}

// value reads field f's value into t. A following byte that cannot end a
// value (e.g. "truex", "1x") fails at the caller's ',' or '}' check.
func (s *tradeScanner) value(t *Trade, f int) bool {
	var ok bool
	switch f {
	case fieldSignature:
		ok = s.text(&t.Signature)
	case fieldSlot:
		t.Slot, ok = s.Int(64)
	case fieldBlockTime:
		t.BlockTime, ok = s.Int(64)
	case fieldMint:
		ok = s.text(&t.Mint)
	case fieldSide:
		t.Side, ok = s.side()
	case fieldTokenAmount:
		t.TokenAmount, ok = s.Float()
	case fieldUSDAmount:
		t.USDAmount, ok = s.Float()
	case fieldPriceUSD:
		t.PriceUSD, ok = s.Float()
	case fieldWallet:
		ok = s.text(&t.Wallet)
	case fieldVenue:
		ok = s.text(&t.Venue)
	case fieldFlowSource:
		ok = s.text(&t.FlowSource)
	case fieldFeeUSD:
		t.FeeUSD, ok = s.Float()
	case fieldIsBot:
		t.IsBot, ok = s.Bool()
	case fieldLeg:
		var v int64
		v, ok = s.Int(strconv.IntSize)
		t.Leg = int(v)
	case fieldPool:
		ok = s.text(&t.Pool)
	case fieldProgram:
		ok = s.text(&t.Program)
	case fieldUnknown:
		ok = s.skip()
	}
	return ok
}

// skip reads the value of an unknown field: a string, number, true,
// false or null of the subset (an object or array is not in it).
func (s *tradeScanner) skip() bool {
	switch s.Peek() {
	case '"':
		_, ok := s.str()
		return ok
	case 't', 'f':
		_, ok := s.Bool()
		return ok
	case 'n':
		return s.Null()
	}
	_, _, ok := s.Number()
	return ok
}
