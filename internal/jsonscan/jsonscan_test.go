package jsonscan

import (
	"encoding/json"
	"testing"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  string
		ascii bool
		ok    bool
	}{
		{` "abc"`, "abc", true, true},
		{`""`, "", true, true},
		{`"é"`, "é", false, true},
		{`"a\"b"`, "", false, false},   // escape: outside the subset
		{"\"a\tb\"", "", false, false}, // control character
		{"\"\xff\"", "", false, false}, // invalid UTF-8
		{`"abc`, "", false, false},
		{`abc"`, "", false, false},
	} {
		s := Scanner{B: []byte(tc.in)}
		b, ascii, ok := s.String()
		if ok != tc.ok || string(b) != tc.want || (ok && ascii != tc.ascii) {
			t.Errorf("%q: %q %v %v, want %q %v %v", tc.in, b, ascii, ok, tc.want, tc.ascii, tc.ok)
		}
		if ok { // within the subset the value is what encoding/json gives
			var v string
			if err := json.Unmarshal([]byte(tc.in), &v); err != nil || v != string(b) {
				t.Errorf("%q: encoding/json gives %q, %v", tc.in, v, err)
			}
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct {
		in         string
		tok        string
		frac, ok   bool
		intOK      bool
		intVal     int64
		bits       int
		floatValue float64
	}{
		{"0", "0", false, true, true, 0, 64, 0},
		{" -12", "-12", false, true, true, -12, 64, -12},
		{"1.5", "1.5", true, true, false, 0, 64, 1.5},
		{"2e3", "2e3", true, true, false, 0, 64, 2000},
		{"128", "128", false, true, false, 0, 8, 128}, // out of range for 8 bits
		{"-", "", false, false, false, 0, 64, 0},
		{"1.", "", false, false, false, 0, 64, 0},
		{"1e+", "", false, false, false, 0, 64, 0},
		{".5", "", false, false, false, 0, 64, 0},
	} {
		s := Scanner{B: []byte(tc.in)}
		tok, frac, ok := s.Number()
		if ok != tc.ok || string(tok) != tc.tok || frac != tc.frac {
			t.Errorf("Number(%q) = %q %v %v", tc.in, tok, frac, ok)
		}
		s = Scanner{B: []byte(tc.in)}
		if v, ok := s.Int(tc.bits); ok != tc.intOK || v != tc.intVal {
			t.Errorf("Int(%q, %d) = %d %v", tc.in, tc.bits, v, ok)
		}
		s = Scanner{B: []byte(tc.in)}
		if v, ok := s.Float(); ok != tc.ok || v != tc.floatValue {
			t.Errorf("Float(%q) = %v %v", tc.in, v, ok)
		}
	}
}

func TestLiteralsAndLayout(t *testing.T) {
	s := Scanner{B: []byte(` [ true , false , null ] `)}
	if !s.Consume('[') {
		t.Fatal("[")
	}
	if v, ok := s.Bool(); !ok || !v || !s.Consume(',') {
		t.Fatal("true")
	}
	if v, ok := s.Bool(); !ok || v || !s.Consume(',') {
		t.Fatal("false")
	}
	if !s.Null() || s.Peek() != ']' || !s.Byte(']') || !s.End() {
		t.Fatal("null ]")
	}
	for _, in := range []string{"nul", "tru", "fals"} {
		s := Scanner{B: []byte(in)}
		if _, ok := s.Bool(); ok || s.Null() {
			t.Errorf("%q read as a literal", in)
		}
	}
	if (&Scanner{B: []byte("x")}).Byte('y') || (&Scanner{}).Peek() != 0 {
		t.Error("Byte or Peek at a mismatch or the end")
	}
}
