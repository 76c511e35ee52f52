package tokenlist

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/google/go-cmp/cmp"
)

func tok(addr string, sym string) Token {
	return Token{ChainID: ChainID, Address: addr, Symbol: sym, Decimals: 6}
}

func TestNext(t *testing.T) {
	v := Version{Major: 3, Minor: 2, Patch: 1}
	a, b, c := tok("A", "a"), tok("B", "b"), tok("C", "c")
	for _, tc := range []struct {
		name     string
		old, cur []Token
		want     Version
		changed  bool
	}{
		{"same", []Token{a, b}, []Token{a, b}, v, false},
		{"removed", []Token{a, b}, []Token{a}, Version{Major: 4}, true},
		{"removed and added", []Token{a, b}, []Token{a, c}, Version{Major: 4}, true},
		{"added", []Token{a}, []Token{a, b}, Version{Major: 3, Minor: 3}, true},
		{"reordered", []Token{a, b}, []Token{b, a}, Version{Major: 3, Minor: 2, Patch: 2}, true},
		{"metadata", []Token{a}, []Token{tok("A", "A2")}, Version{Major: 3, Minor: 2, Patch: 2}, true},
		{"tag", []Token{a}, []Token{{ChainID: ChainID, Address: "A", Symbol: "a", Decimals: 6, Tags: []string{TagCaution}}}, Version{Major: 3, Minor: 2, Patch: 2}, true},
		{"empty to one", nil, []Token{a}, Version{Major: 3, Minor: 3}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, changed := Next(v, tc.old, tc.cur)
			if got != tc.want || changed != tc.changed {
				t.Fatalf("Next = %+v %v, want %+v %v", got, changed, tc.want, tc.changed)
			}
		})
	}
}

func TestListName(t *testing.T) {
	for in, want := range map[string]string{
		"My list":                          "My list",
		"My list: majors!":                 "My list majors",
		"  ünïcode—dash  ":                 "n code dash",
		"!!!":                              "assetd list",
		"a very long list name that keeps": "a very long list name that kee",
	} {
		if got := ListName(in); got != want {
			t.Errorf("ListName(%q) = %q, want %q", in, got, want)
		}
	}
}

func sp(s string) *string { return &s }
func ip(i int) *int       { return &i }

func TestTokens(t *testing.T) {
	got, omitted := Tokens([]Entry{
		{Mint: "M1", Symbol: sp("US DC"), Name: sp("USD\tCoin"), Decimals: ip(6), LogoURI: sp("https://x.example/l.png"), Verified: true, Advisory: "caution"},
		{Mint: "M2", Decimals: nil, Symbol: sp("NO DEC")},             // no decimals: left out, reported
		{Mint: "M5", Decimals: ip(300)},                               // impossible decimals: left out, reported
		{Mint: "M3", Decimals: ip(9), LogoURI: sp("not a uri")},       // bad logo dropped
		{Mint: "M4", Decimals: ip(0), Advisory: "blocked", Name: nil}, // blocked is not a tag
	})
	want := []Token{
		{ChainID: 101, Address: "M1", Symbol: "USDC", Name: "USD Coin", Decimals: 6, LogoURI: "https://x.example/l.png", Tags: []string{TagVerified, TagCaution}},
		{ChainID: 101, Address: "M3", Decimals: 9},
		{ChainID: 101, Address: "M4", Decimals: 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Tokens (-want +got):\n%s", d)
	}
	wantOmitted := []Omitted{{Address: "M2", Symbol: "NODEC", Reason: ReasonDecimalsUnknown}, {Address: "M5", Reason: ReasonDecimalsInvalid}}
	if d := cmp.Diff(wantOmitted, omitted); d != "" {
		t.Fatalf("omitted (-want +got):\n%s", d)
	}
}

// An export without any token is an error (the schema needs one) and
// persists nothing; omitted members ride along in x-omitted.
func TestExportEmptyAndOmitted(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := &racingStore{}
	e := Exporter{Store: s, Now: func() time.Time { return now }}
	om := []Omitted{{Address: "M2", Reason: ReasonDecimalsUnknown}}
	if _, err := e.Export(context.Background(), "list:x", "X", nil, om); !errors.Is(err, ErrEmpty) || s.st != nil {
		t.Fatalf("empty export: err %v, stored %+v", err, s.st)
	}
	l, err := e.Export(context.Background(), "list:x", "X", []Token{tok("A", "a")}, om)
	if err != nil || len(l.Tokens) != 1 || cmp.Diff(om, l.Omitted) != "" {
		t.Fatalf("export with an omitted member: %+v %v", l, err)
	}
	raw, _ := json.Marshal(l)
	if !strings.Contains(string(raw), `"x-omitted":[{"address":"M2","reason":"decimals_unknown"}]`) {
		t.Fatalf("x-omitted not in the document: %s", raw)
	}
}

// racingStore loses the first save to "another replica".
type racingStore struct {
	st    *State
	races int
}

func (s *racingStore) ExportState(context.Context, string) (State, error) {
	if s.st == nil {
		return State{}, storage.ErrNotFound
	}
	return *s.st, nil
}

func (s *racingStore) SaveExportState(_ context.Context, st State, prev *Version) error {
	if s.races > 0 {
		s.races--
		other := State{Key: st.Key, Version: Initial, Tokens: st.Tokens, UpdatedAt: st.UpdatedAt.Add(-time.Second)}
		s.st = &other
		return storage.ErrConflict
	}
	if (s.st == nil) != (prev == nil) {
		return errors.New("unexpected prev")
	}
	s.st = &st
	return nil
}

func TestExportRetriesAConflict(t *testing.T) {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := &racingStore{races: 1}
	e := Exporter{Store: s, Now: func() time.Time { return now }}
	l, err := e.Export(context.Background(), "list:x", "X", []Token{tok("A", "a")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The other replica stored the same tokens: no bump, its timestamp.
	if l.Version != Initial || l.Timestamp != now.Add(-time.Second).Format(time.RFC3339Nano) || l.Tags != nil {
		t.Fatalf("export after a lost race: %+v", l)
	}
}
