// Package jsonscan reads the subset of JSON whose values are their own
// bytes: strings without escapes or control characters, numbers in the
// strict grammar, true, false and null. Decoders of hot inputs (trades,
// the stored registry) use it for the common shape without reflection and
// hand anything outside the subset to encoding/json, which then decides;
// within the subset they must give what encoding/json gives.
package jsonscan

import (
	"strconv"
	"unicode/utf8"
)

// Scanner reads B from I.
type Scanner struct {
	B []byte
	I int
}

// Space skips JSON white space.
func (s *Scanner) Space() {
	for s.I < len(s.B) {
		switch s.B[s.I] {
		case ' ', '\t', '\n', '\r':
			s.I++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte (0 at the end).
func (s *Scanner) Peek() byte {
	s.Space()
	if s.I < len(s.B) {
		return s.B[s.I]
	}
	return 0
}

// Byte consumes c if it is the next byte (no white space skipped).
func (s *Scanner) Byte(c byte) bool {
	if s.I < len(s.B) && s.B[s.I] == c {
		s.I++
		return true
	}
	return false
}

// Consume skips white space and consumes c if it is next.
func (s *Scanner) Consume(c byte) bool {
	s.Space()
	return s.Byte(c)
}

// End reports whether only white space follows.
func (s *Scanner) End() bool {
	s.Space()
	return s.I == len(s.B)
}

// Null skips white space and consumes a null literal if one is next.
func (s *Scanner) Null() bool {
	s.Space()
	if len(s.B)-s.I >= 4 && string(s.B[s.I:s.I+4]) == "null" {
		s.I += 4
		return true
	}
	return false
}

// String skips white space and reads a string of the subset: valid UTF-8
// without a backslash or a control character, returned as a slice of B
// (its JSON value is its bytes). ascii reports whether it is all ASCII.
func (s *Scanner) String() (b []byte, ascii, ok bool) {
	if !s.Consume('"') {
		return nil, false, false
	}
	return s.StringRest()
}

// StringRest is String after the opening quote.
func (s *Scanner) StringRest() (b []byte, ascii, ok bool) {
	start := s.I
	ascii = true
	for s.I < len(s.B) {
		c := s.B[s.I]
		switch {
		case c == '"':
			b = s.B[start:s.I]
			s.I++
			if !ascii && !utf8.Valid(b) {
				return nil, false, false
			}
			return b, ascii, true
		case c == '\\' || c < 0x20:
			return nil, false, false
		case c >= 0x80:
			ascii = false
		}
		s.I++
	}
	return nil, false, false
}

// Number skips white space and reads a number token in the strict
// grammar -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; frac reports a
// fraction or an exponent.
func (s *Scanner) Number() (tok []byte, frac, ok bool) {
	s.Space()
	start := s.I
	s.Byte('-')
	switch {
	case s.Byte('0'):
	case s.I < len(s.B) && s.B[s.I] >= '1' && s.B[s.I] <= '9':
		s.digits()
	default:
		return nil, false, false
	}
	if s.Byte('.') {
		frac = true
		if s.digits() == 0 {
			return nil, false, false
		}
	}
	if s.Byte('e') || s.Byte('E') {
		frac = true
		if !s.Byte('+') {
			s.Byte('-')
		}
		if s.digits() == 0 {
			return nil, false, false
		}
	}
	return s.B[start:s.I], frac, true
}

// digits consumes decimal digits and returns how many.
func (s *Scanner) digits() int {
	start := s.I
	for s.I < len(s.B) && s.B[s.I] >= '0' && s.B[s.I] <= '9' {
		s.I++
	}
	return s.I - start
}

// Int reads an integer that fits in bits bits; a fraction, an exponent or
// a value out of range is outside the subset (encoding/json refuses them
// for an integer field).
func (s *Scanner) Int(bits int) (int64, bool) {
	tok, frac, ok := s.Number()
	if !ok || frac {
		return 0, false
	}
	v, err := strconv.ParseInt(string(tok), 10, bits)
	if err != nil {
		return 0, false
	}
	return v, true
}

// Float reads a number as encoding/json does for a float64 field (out of
// range is an error there: outside the subset).
func (s *Scanner) Float() (float64, bool) {
	tok, _, ok := s.Number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// Bool skips white space and reads true or false.
func (s *Scanner) Bool() (v, ok bool) {
	s.Space()
	rest := s.B[s.I:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.I += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.I += 5
		return false, true
	}
	return false, false
}
