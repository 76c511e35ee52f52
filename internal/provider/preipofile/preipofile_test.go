package preipofile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// syntheticMarks are made-up marks of made-up companies (TESTCO, DEMOCO):
// no real feed data.
const syntheticMarks = `{"marks": [
	{"symbol": "TESTCO", "markPriceUsd": 12.5, "markValuationUsd": 1250000000, "tokenPriceUsd": 13.1,
	 "updatedAt": "2025-01-31T00:00:00Z", "note": "synthetic"},
	{"symbol": "DemoCo", "markValuationUsd": 2000000, "tokenPriceUsd": null,
	 "updatedAt": "2025-02-01T09:30:00.5+02:00"}
]}`

func f(v float64) *float64 { return &v }

func TestMark(t *testing.T) {
	s, err := Load(strings.NewReader(syntheticMarks))
	if err != nil {
		t.Fatal(err)
	}
	testco := market.PreIPOMark{
		Symbol: "TESTCO", MarkPriceUSD: f(12.5), MarkValuationUSD: f(1250000000), TokenPriceUSD: f(13.1),
		UpdatedAt: time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC),
	}
	democo := market.PreIPOMark{
		Symbol: "DemoCo", MarkValuationUSD: f(2000000),
		UpdatedAt: time.Date(2025, 2, 1, 7, 30, 0, 500_000_000, time.UTC),
	}
	tests := []struct {
		symbol string
		want   market.PreIPOMark
	}{
		{"TESTCO", testco},
		{"testco", testco},
		{" TestCo ", testco},
		{"DEMOCO", democo},
	}
	for _, tt := range tests {
		t.Run(tt.symbol, func(t *testing.T) {
			got, err := s.Mark(context.Background(), tt.symbol)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Mark (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]string{"DEMOCO", "TESTCO"}, s.Symbols()); diff != "" {
		t.Errorf("Symbols (-want +got):\n%s", diff)
	}
	if s.Source() != asset.SourcePreIPO || s.Source() != "preipo" {
		t.Errorf("Source %q", s.Source())
	}
}

func TestMarkUnknownAndContext(t *testing.T) {
	s, err := Load(strings.NewReader(syntheticMarks))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Mark(context.Background(), "NOPE"); !errors.Is(err, market.ErrNotFound) {
		t.Errorf("unknown symbol: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Mark(context.Background(), ""); !errors.Is(err, market.ErrNotFound) {
		t.Errorf("empty symbol: err = %v, want ErrNotFound", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Mark(ctx, "TESTCO"); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: err = %v", err)
	}
}

func TestMarkReturnsCopies(t *testing.T) {
	s, err := Load(strings.NewReader(syntheticMarks))
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Mark(context.Background(), "TESTCO")
	if err != nil {
		t.Fatal(err)
	}
	*m.MarkPriceUSD = -1
	again, err := s.Mark(context.Background(), "TESTCO")
	if err != nil {
		t.Fatal(err)
	}
	if *again.MarkPriceUSD != 12.5 {
		t.Errorf("stored mark changed through a returned pointer: %v", *again.MarkPriceUSD)
	}
}

func TestLoadEmptyMarks(t *testing.T) {
	s, err := Load(strings.NewReader(`{"marks": []}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Symbols()) != 0 {
		t.Errorf("Symbols %v", s.Symbols())
	}
	if _, err := s.Mark(context.Background(), "TESTCO"); !errors.Is(err, market.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestLoadInvalid(t *testing.T) {
	// mark wraps one synthetic entry in a document.
	mark := func(body string) string { return `{"marks":[` + body + `]}` }
	const at = `"updatedAt":"2025-01-31T00:00:00Z"`
	tests := []struct {
		name string
		doc  string
		want string // substring of the error
	}{
		{"empty document", ``, "decode"},
		{"not JSON", `marks: TESTCO`, "decode"},
		{"array", `[]`, "decode"},
		{"no marks member", `{}`, `missing "marks"`},
		{"null marks", `{"marks":null}`, `missing "marks"`},
		{"trailing data", `{"marks":[]} {}`, "data after"},
		{"unknown member", mark(`{"symbol":"TESTCO","markPrice":1,` + at + `}`), `unknown field "markPrice"`},
		{"unknown top-level member", `{"marks":[],"version":2}`, `unknown field "version"`},
		{"price as string", mark(`{"symbol":"TESTCO","markPriceUsd":"1",` + at + `}`), "decode"},
		{"empty symbol", mark(`{"symbol":"  ","markPriceUsd":1,` + at + `}`), "marks[0]"},
		{"no symbol", mark(`{"markPriceUsd":1,` + at + `}`), "marks[0] (\"\"): empty symbol"},
		{"duplicate symbol", mark(`{"symbol":"TESTCO","markPriceUsd":1,` + at + `},{"symbol":"DEMOCO","markPriceUsd":1,` + at + `},{"symbol":"testco ","markPriceUsd":2,` + at + `}`),
			`marks[2] ("testco "): symbol repeats marks[0]`},
		{"no price nor valuation", mark(`{"symbol":"TESTCO","tokenPriceUsd":1,` + at + `}`), "neither markPriceUsd nor markValuationUsd"},
		{"zero mark price", mark(`{"symbol":"TESTCO","markPriceUsd":0,` + at + `}`), "markPriceUsd 0 is not positive"},
		{"negative valuation", mark(`{"symbol":"TESTCO","markValuationUsd":-5,` + at + `}`), "markValuationUsd -5 is not positive"},
		{"negative token price", mark(`{"symbol":"TESTCO","markPriceUsd":1,"tokenPriceUsd":-0.1,` + at + `}`), "tokenPriceUsd -0.1 is not positive"},
		{"missing updatedAt", mark(`{"symbol":"TESTCO","markPriceUsd":1}`), "missing updatedAt"},
		{"updatedAt not RFC 3339", mark(`{"symbol":"TESTCO","markPriceUsd":1,"updatedAt":"2025-01-31"}`), `updatedAt "2025-01-31" is not RFC 3339`},
		{"updatedAt unix number", mark(`{"symbol":"TESTCO","markPriceUsd":1,"updatedAt":1738281600}`), "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(strings.NewReader(tt.doc))
			if err == nil {
				t.Fatalf("Load succeeded: %v", s.Symbols())
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "marks.json")
	if err := os.WriteFile(path, []byte(syntheticMarks), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"DEMOCO", "TESTCO"}, s.Symbols()); diff != "" {
		t.Errorf("Symbols (-want +got):\n%s", diff)
	}
	if _, err := Open(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"marks":[{"symbol":"TESTCO","markPriceUsd":0,"updatedAt":"2025-01-31T00:00:00Z"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "marks[0]") {
		t.Errorf("bad file: %v, want the path and entry", err)
	}
}
