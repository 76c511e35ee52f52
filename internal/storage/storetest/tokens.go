package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/google/go-cmp/cmp"
)

// Synthetic mints (valid base58 shapes, not real tokens).
const (
	tokMintA = "TokA1111111111111111111111111111111111111111"
	tokMintB = "TokB1111111111111111111111111111111111111111"
	tokMintC = "TokC1111111111111111111111111111111111111111"
)

func each(t *testing.T, s tokenindex.Store) []tokenindex.Token {
	t.Helper()
	var out []tokenindex.Token
	if err := s.EachToken(context.Background(), func(tk tokenindex.Token) error { out = append(out, tk); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func testTokenIndex(t *testing.T, h Harness) {
	ctx := context.Background()
	s, another := h.Fresh(t)
	six := 6
	first := []tokenindex.Token{
		{Mint: tokMintB, Symbol: "BBB", Name: "Token B", Decimals: &six, LogoURI: "https://example.org/b.png", CoingeckoID: "b-coin"},
		{Mint: tokMintA, Symbol: "AAA", Name: "Token A"},
	}
	v0, _ := s.Versions(ctx)
	if n, err := s.ReplaceTokenSource(ctx, "one", first, t0); err != nil || n != 2 {
		t.Fatalf("ReplaceTokenSource = %d, %v", n, err)
	}
	v1, _ := s.Versions(ctx)
	if v1[storage.TopicTokens] <= v0[storage.TopicTokens] {
		t.Fatalf("tokens version did not move: %v -> %v", v0, v1)
	}
	want := []tokenindex.Token{first[1], first[0]} // mint order
	if d := cmp.Diff(want, each(t, another())); d != "" {
		t.Fatalf("tokens (-want +got):\n%s", d)
	}
	// A second source takes over B; re-importing "one" without A drops A
	// and leaves B with "two".
	if _, err := s.ReplaceTokenSource(ctx, "two", []tokenindex.Token{{Mint: tokMintB, Symbol: "B2", Name: "Token B two"}}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceTokenSource(ctx, "one", []tokenindex.Token{{Mint: tokMintC, Symbol: "CCC", Name: "Token C"}}, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	got := each(t, s)
	want = []tokenindex.Token{{Mint: tokMintB, Symbol: "B2", Name: "Token B two"}, {Mint: tokMintC, Symbol: "CCC", Name: "Token C"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("after replace (-want +got):\n%s", d)
	}
	src, err := s.TokenSources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantSrc := []tokenindex.SourceCount{{Source: "one", Tokens: 1, ImportedAt: t0.Add(2 * time.Minute).UnixMilli()},
		{Source: "two", Tokens: 1, ImportedAt: t0.Add(time.Minute).UnixMilli()}}
	if d := cmp.Diff(wantSrc, src); d != "" {
		t.Fatalf("sources (-want +got):\n%s", d)
	}
	// The loaded index finds what was stored.
	x, err := tokenindex.Load(ctx, s)
	if err != nil || x.Len() != 2 {
		t.Fatalf("Load = %v, %v", x.Len(), err)
	}
	if tk, ok := x.Get(tokMintC); !ok || tk.Symbol != "CCC" {
		t.Fatalf("Get(C) = %+v, %v", tk, ok)
	}
}
