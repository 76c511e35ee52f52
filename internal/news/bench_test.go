package news

import (
	"fmt"
	"testing"
	"time"
)

func benchItems(n int) []Item {
	words := []string{"Bitcoin", "Solana", "$SOL", "ETF", "markets", "Jupiter", "$BONK", "regulation", "validators", "stablecoin"}
	out := make([]Item, n)
	for i := range out {
		fs := FeedNews
		if i%3 == 0 {
			fs = FeedSocial
		}
		u := fmt.Sprintf("https://bench.example.test/%d", i)
		out[i] = Item{Title: fmt.Sprintf("Synthetic story %d about %s and %s", i, words[i%len(words)], words[(i/7)%len(words)]),
			URL: u, CanonicalURL: u, Summary: "A synthetic summary of the story for the benchmark, with some words.", FeedSource: fs,
			PostedAt: t0.Add(-time.Duration(i) * 3 * time.Minute), SourceName: "Synthetic", Author: "bench"}
	}
	return out
}

// BenchmarkNewSnapshot is the cost of one rebuild (every ingest that
// brings new items): dedupe, sort and index 6,000 items.
func BenchmarkNewSnapshot(b *testing.B) {
	items := benchItems(6000)
	tg := NewTagger(testAssets())
	b.ReportAllocs()
	for b.Loop() {
		NewSnapshot(items, tg)
	}
}

// BenchmarkTag is the ingest-time tagging of one item against the test
// registry's coins.
func BenchmarkTag(b *testing.B) {
	tg := NewTagger(testAssets())
	b.ReportAllocs()
	for b.Loop() {
		tg.Tag("Bitcoin and Solana rally as LINK breaks out", "A synthetic summary of the story for the benchmark, with $W.")
	}
}

func BenchmarkFeed(b *testing.B) {
	s := NewSnapshot(benchItems(6000), NewTagger(testAssets()))
	for _, bc := range []struct {
		name string
		q    Query
	}{
		{"global", Query{Limit: 10, Select: SelectAll, Reserve: 3}},
		{"token", Query{Limit: 10, Select: SelectAll, Reserve: 3, CoinID: "solana", Terms: CompileTerms([]string{"solana", "SOL", "Solana"})}},
		{"phrase", Query{Limit: 10, Select: SelectAll, Reserve: 3, Terms: CompileTerms([]string{"about bitcoin"})}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Feed(bc.q)
			}
		})
	}
}
