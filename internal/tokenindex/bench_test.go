package tokenindex

import (
	"os"
	"runtime"
	"testing"
)

// benchTokens parses the file named by ASSETD_TOKENS_FILE (for example
// the 709k sonarwatch list), else the shared 150k CSV.
func benchTokens(b *testing.B) []Token {
	b.Helper()
	path := os.Getenv("ASSETD_TOKENS_FILE")
	if path == "" {
		path = dataDir + "token-index-sonarwatch-solana-150k.csv"
	}
	f, err := os.Open(path)
	if err != nil {
		b.Skip("token file absent:", err)
	}
	defer f.Close()
	var ts []Token
	if _, err := Parse(f, func(t Token) { ts = append(ts, t) }, nil); err != nil {
		b.Fatal(err)
	}
	return ts
}

// BenchmarkBuild measures building the index from parsed tokens and
// reports the heap the built index holds.
func BenchmarkBuild(b *testing.B) {
	ts := benchTokens(b)
	var x *Index
	for b.Loop() {
		var bl Builder
		bl.Grow(len(ts))
		for _, t := range ts {
			bl.Add(t)
		}
		x = bl.Build()
	}
	b.StopTimer()
	ts = nil
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	x = nil
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(before.HeapAlloc-after.HeapAlloc)/(1<<20), "indexMB")
	b.ReportMetric(float64(len(ts)), "tokens")
	_ = x
}
