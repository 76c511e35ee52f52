// Package preipofile is a market.PreIPOProvider (spec source "preipo")
// over an operator-supplied JSON file of reference marks of tokenized
// pre-IPO equities, in this service's own format:
//
//	{"marks": [
//	  {"symbol": "TESTCO", "markPriceUsd": 12.5, "markValuationUsd": 1250000000,
//	   "tokenPriceUsd": 13.1, "updatedAt": "2025-01-31T00:00:00Z"}
//	]}
//
// Members of a mark:
//   - symbol: required, unique case-insensitively; lookups are
//     case-insensitive;
//   - markPriceUsd: the reference price of one share, USD;
//   - markValuationUsd: the company valuation that price implies, USD;
//   - tokenPriceUsd: optional, the feed's own token price;
//   - updatedAt: required, RFC 3339, when the mark was set;
//   - note: optional free text (provenance), ignored.
//
// At least one of markPriceUsd and markValuationUsd is required; every
// price present (not null) must be > 0. Unknown members are rejected,
// which catches misspelt names. The file is read once: to pick up a new
// version the caller opens it again.
package preipofile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/market"
)

// markJSON is one entry of the file's marks array.
type markJSON struct {
	Symbol           string   `json:"symbol"`
	MarkPriceUSD     *float64 `json:"markPriceUsd"`
	MarkValuationUSD *float64 `json:"markValuationUsd"`
	TokenPriceUSD    *float64 `json:"tokenPriceUsd"`
	UpdatedAt        string   `json:"updatedAt"`
	Note             string   `json:"note"`
}

type fileJSON struct {
	Marks []markJSON `json:"marks"`
}

// Source serves the marks of one loaded file. It is immutable after Load
// and safe for concurrent use.
type Source struct {
	marks map[string]market.PreIPOMark // upper-case symbol → mark
}

var _ market.PreIPOProvider = (*Source)(nil)

// Open loads the marks file at path.
func Open(path string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("preipofile: %w", err)
	}
	defer f.Close()
	s, err := Load(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Load decodes and validates a marks document (see the package comment).
// Errors name the offending entry by index and symbol. A document whose
// marks array is empty is valid and serves no mark.
func Load(r io.Reader) (*Source, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var doc fileJSON
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("preipofile: decode: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("preipofile: data after the top-level object")
	}
	if doc.Marks == nil {
		return nil, errors.New(`preipofile: missing "marks" array`)
	}
	marks := make(map[string]market.PreIPOMark, len(doc.Marks))
	first := make(map[string]int, len(doc.Marks))
	for i, m := range doc.Marks {
		mk, err := m.mark()
		if err != nil {
			return nil, fmt.Errorf("preipofile: marks[%d] (%q): %w", i, m.Symbol, err)
		}
		key := strings.ToUpper(mk.Symbol)
		if j, dup := first[key]; dup {
			return nil, fmt.Errorf("preipofile: marks[%d] (%q): symbol repeats marks[%d]", i, m.Symbol, j)
		}
		first[key] = i
		marks[key] = mk
	}
	return &Source{marks: marks}, nil
}

// mark validates one entry and maps it onto market.PreIPOMark.
func (m markJSON) mark() (market.PreIPOMark, error) {
	sym := strings.TrimSpace(m.Symbol)
	if sym == "" {
		return market.PreIPOMark{}, errors.New("empty symbol")
	}
	if m.MarkPriceUSD == nil && m.MarkValuationUSD == nil {
		return market.PreIPOMark{}, errors.New("neither markPriceUsd nor markValuationUsd")
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"markPriceUsd", m.MarkPriceUSD}, {"markValuationUsd", m.MarkValuationUSD}, {"tokenPriceUsd", m.TokenPriceUSD}} {
		if p.v != nil && !(*p.v > 0) {
			return market.PreIPOMark{}, fmt.Errorf("%s %v is not positive", p.name, *p.v)
		}
	}
	if strings.TrimSpace(m.UpdatedAt) == "" {
		return market.PreIPOMark{}, errors.New("missing updatedAt")
	}
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(m.UpdatedAt))
	if err != nil {
		return market.PreIPOMark{}, fmt.Errorf("updatedAt %q is not RFC 3339", m.UpdatedAt)
	}
	return market.PreIPOMark{
		Symbol:           sym,
		MarkPriceUSD:     m.MarkPriceUSD,
		MarkValuationUSD: m.MarkValuationUSD,
		TokenPriceUSD:    m.TokenPriceUSD,
		UpdatedAt:        at.UTC(),
	}, nil
}

// Source is the spec's source name "preipo".
func (s *Source) Source() string { return asset.SourcePreIPO }

// Symbols lists the symbols with a mark (upper case), sorted.
func (s *Source) Symbols() []string {
	out := make([]string, 0, len(s.marks))
	for k := range s.marks {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Mark returns the mark of symbol (case-insensitive, surrounding spaces
// ignored). Symbol is spelt as in the file and UpdatedAt is UTC. An
// unknown symbol wraps market.ErrNotFound.
func (s *Source) Mark(ctx context.Context, symbol string) (market.PreIPOMark, error) {
	if err := ctx.Err(); err != nil {
		return market.PreIPOMark{}, fmt.Errorf("preipofile %q: %w", symbol, err)
	}
	m, ok := s.marks[strings.ToUpper(strings.TrimSpace(symbol))]
	if !ok {
		return market.PreIPOMark{}, fmt.Errorf("preipofile: symbol %q: %w", symbol, market.ErrNotFound)
	}
	// Copies, so that callers cannot change the stored mark.
	m.MarkPriceUSD = clone(m.MarkPriceUSD)
	m.MarkValuationUSD = clone(m.MarkValuationUSD)
	m.TokenPriceUSD = clone(m.TokenPriceUSD)
	return m, nil
}

func clone(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
