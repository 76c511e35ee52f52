package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Number decodes a JSON number that upstream APIs sometimes send as a
// string (DexScreener's priceUsd) and sometimes as null or omit. A
// quoted empty string counts as absent; a quoted non-number, a
// non-finite value or any other JSON type is a decoding error.
type Number struct {
	V     float64
	Valid bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*n = Number{}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	s := string(b)
	if b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = strings.TrimSpace(str)
		if s == "" {
			return nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number: %.40q", s)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("not a finite number: %.40q", s)
	}
	n.V, n.Valid = f, true
	return nil
}

// Ptr returns a pointer to the value, or nil when absent.
func (n Number) Ptr() *float64 {
	if !n.Valid {
		return nil
	}
	v := n.V
	return &v
}

// Int64Ptr returns the value truncated to an int64, or nil when absent or
// out of range.
func (n Number) Int64Ptr() *int64 {
	if !n.Valid || n.V < math.MinInt64 || n.V >= math.MaxInt64 {
		return nil
	}
	v := int64(n.V)
	return &v
}

// IntPtr returns the value as an int when it is a whole number in
// [0, 255] (token decimals), or nil.
func (n Number) IntPtr() *int {
	if !n.Valid || n.V < 0 || n.V > 255 || n.V != math.Trunc(n.V) {
		return nil
	}
	v := int(n.V)
	return &v
}

// Sum adds the valid values; it is absent only when all are.
func Sum(ns ...Number) Number {
	var out Number
	for _, n := range ns {
		if n.Valid {
			out.V += n.V
			out.Valid = true
		}
	}
	return out
}
