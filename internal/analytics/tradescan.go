package analytics

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ParseTrade decodes one JSON trade event and validates it. A decode
// failure is a *ValidationError with ReasonMalformedJSON. Unknown fields
// are ignored.
//
// It decodes exactly as encoding/json would into a Trade: a hand-written
// scanner reads the common shape (an object of the Trade's fields under
// their exact names, plain printable-ASCII strings without escapes,
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
	}
	return fieldUnknown
}

// fieldNames are the Trade's JSON keys.
var fieldNames = [...]string{"signature", "slot", "blockTime", "mint", "side", "tokenAmount",
	"usdAmount", "priceUsd", "wallet", "venue", "flowSource", "feeUsd", "isBot"}

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
	s := tradeScanner{b: data}
	s.ws()
	if !s.byte('{') {
		return Trade{}, false
	}
	s.ws()
	if s.byte('}') {
		return t, s.end()
	}
	for {
		if !s.byte('"') {
			return Trade{}, false
		}
		key, kok := s.rawString()
		if !kok {
			return Trade{}, false
		}
		f := fieldOf(key)
		if f == fieldUnknown && foldsToField(key) {
			return Trade{}, false // encoding/json matches keys case-insensitively
		}
		s.ws()
		if !s.byte(':') {
			return Trade{}, false
		}
		s.ws()
		if !s.value(&t, f) {
			return Trade{}, false
		}
		s.ws()
		if s.byte(',') {
			s.ws()
			continue
		}
		if s.byte('}') {
			return t, s.end()
		}
		return Trade{}, false
	}
}

// tradeScanner reads b from i.
type tradeScanner struct {
	b []byte
	i int
}

// ws skips JSON whitespace.
func (s *tradeScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte consumes c if it is next.
func (s *tradeScanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only whitespace follows.
func (s *tradeScanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// rawString reads the rest of a string whose opening quote is consumed:
// printable ASCII other than a backslash up to the closing quote (the
// subset where the JSON string is its bytes).
func (s *tradeScanner) rawString() ([]byte, bool) {
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// str reads a string value.
func (s *tradeScanner) str() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	raw, ok := s.rawString()
	if !ok {
		return "", false
	}
	return string(raw), true
}

// side reads a side value without allocating for the two valid ones.
func (s *tradeScanner) side() (string, bool) {
	if !s.byte('"') {
		return "", false
	}
	raw, ok := s.rawString()
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

// number reads a JSON number token (strict grammar: -?(0|[1-9][0-9]*)
// (.[0-9]+)?([eE][+-]?[0-9]+)?) and reports whether it had a fraction or
// exponent.
func (s *tradeScanner) number() (tok []byte, frac bool, ok bool) {
	start := s.i
	s.byte('-')
	switch {
	case s.byte('0'):
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return nil, false, false
	}
	if s.byte('.') {
		frac = true
		if s.digits() == 0 {
			return nil, false, false
		}
	}
	if s.byte('e') || s.byte('E') {
		frac = true
		if !s.byte('+') {
			s.byte('-')
		}
		if s.digits() == 0 {
			return nil, false, false
		}
	}
	return s.b[start:s.i], frac, true
}

// digits consumes decimal digits and returns how many.
func (s *tradeScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// int reads an integer number (encoding/json refuses a fraction or an
// exponent, or a value out of range, for an int64 field: not in the
// subset).
func (s *tradeScanner) int() (int64, bool) {
	tok, frac, ok := s.number()
	if !ok || frac {
		return 0, false
	}
	v, err := strconv.ParseInt(string(tok), 10, 64)
	return v, err == nil
}

// float reads a number as encoding/json does for a float64 field
// (strconv.ParseFloat; out of range is an error there: not in the subset).
func (s *tradeScanner) float() (float64, bool) {
	tok, _, ok := s.number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	return v, err == nil
}

// bool reads true or false.
func (s *tradeScanner) bool() (bool, bool) {
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// value reads field f's value into t. A following byte that cannot end a
// value (e.g. "truex", "1x") fails at the caller's ',' or '}' check.
func (s *tradeScanner) value(t *Trade, f int) bool {
	var ok bool
	switch f {
	case fieldSignature:
		t.Signature, ok = s.str()
	case fieldSlot:
		t.Slot, ok = s.int()
	case fieldBlockTime:
		t.BlockTime, ok = s.int()
	case fieldMint:
		t.Mint, ok = s.str()
	case fieldSide:
		t.Side, ok = s.side()
	case fieldTokenAmount:
		t.TokenAmount, ok = s.float()
	case fieldUSDAmount:
		t.USDAmount, ok = s.float()
	case fieldPriceUSD:
		t.PriceUSD, ok = s.float()
	case fieldWallet:
		t.Wallet, ok = s.str()
	case fieldVenue:
		t.Venue, ok = s.str()
	case fieldFlowSource:
		t.FlowSource, ok = s.str()
	case fieldFeeUSD:
		t.FeeUSD, ok = s.float()
	case fieldIsBot:
		t.IsBot, ok = s.bool()
	case fieldUnknown:
		ok = s.skip()
	}
	return ok
}

// skip reads the value of an unknown field: a string, number, true,
// false or null of the subset (an object or array is not in it).
func (s *tradeScanner) skip() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		s.i++
		_, ok := s.rawString()
		return ok
	case 't', 'f':
		_, ok := s.bool()
		return ok
	case 'n':
		if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
			s.i += 4
			return true
		}
		return false
	}
	_, _, ok := s.number()
	return ok
}
