package tokenindex

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// benchFile is the file named by ASSETD_TOKENS_FILE (for example the 709k
// sonarwatch list), else the shared 150k CSV.
func benchFile(b *testing.B) string {
	b.Helper()
	path := os.Getenv("ASSETD_TOKENS_FILE")
	if path == "" {
		path = dataDir + "token-index-sonarwatch-solana-150k.csv"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip("token file absent:", err)
	}
	return path
}

func benchTokens(b *testing.B) []Token {
	b.Helper()
	f, err := os.Open(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var ts []Token
	if _, err := Parse(f, func(t Token) { ts = append(ts, t) }, nil); err != nil {
		b.Fatal(err)
	}
	return ts
}

// BenchmarkBuild measures building the index from parsed tokens (what a
// reload does after reading the rows). cpu-s/op is the process CPU time
// per build (user + system), which a busy shared machine does not
// inflate the way it inflates wall time.
func BenchmarkBuild(b *testing.B) {
	ts := benchTokens(b)
	var x *Index
	cpu0 := cpuSeconds()
	for b.Loop() {
		var bl Builder
		bl.Grow(len(ts))
		for _, t := range ts {
			bl.Add(t)
		}
		x = bl.Build()
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(x.Len()), "tokens")
}

// rssMB reads the process's resident set size.
func rssMB(b *testing.B) float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkIndexMemory streams the file into a Builder (as a reload
// streams rows) and reports the heap the built index holds and the extra
// resident memory after a forced GC and scavenge.
func BenchmarkIndexMemory(b *testing.B) {
	path := benchFile(b)
	for b.Loop() {
		runtime.GC()
		debug.FreeOSMemory()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		rss0 := rssMB(b)
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		var bl Builder
		if _, err := Parse(f, bl.Add, nil); err != nil {
			b.Fatal(err)
		}
		f.Close()
		x := bl.Build()
		runtime.GC()
		debug.FreeOSMemory()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "heapMB")
		b.ReportMetric(rssMB(b)-rss0, "extraRSSMB")
		b.ReportMetric(float64(x.Len()), "tokens")
		runtime.KeepAlive(x)
	}
}

func benchIndex(b *testing.B) *Index {
	b.Helper()
	x, _, err := LoadFile(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// BenchmarkQueries measures the index lookups behind a search.
func BenchmarkQueries(b *testing.B) {
	x := benchIndex(b)
	count := func(id ID) bool { return true }
	b.Run("exact-symbol/BTC", func(b *testing.B) {
		for b.Loop() {
			x.BySymbol("BTC", false, count)
		}
	})
	b.Run("exact-symbol/BTC-first100", func(b *testing.B) {
		for b.Loop() {
			n := 0
			x.BySymbol("BTC", false, func(ID) bool { n++; return n < 100 })
		}
	})
	b.Run("name-prefix/DOG WIF", func(b *testing.B) {
		for b.Loop() {
			n := 0
			x.ByName("DOG WIF", true, func(ID) bool { n++; return n < 20 })
		}
	})
	b.Run("symbol-prefix/BON", func(b *testing.B) {
		for b.Loop() {
			n := 0
			x.BySymbol("BON", true, func(ID) bool { n++; return n < 20 })
		}
	})
	b.Run("name-word-prefix/DOG", func(b *testing.B) {
		for b.Loop() {
			n := 0
			x.ByNameWord("DOG", func(ID) bool { n++; return n < 20 })
		}
	})
	b.Run("name-contains/WIF HAT", func(b *testing.B) {
		for b.Loop() {
			n := 0
			x.NameContains("WIF HAT", func(ID) bool { n++; return n < 20 })
		}
	})
	b.Run("mint", func(b *testing.B) {
		for b.Loop() {
			x.Lookup("So11111111111111111111111111111111111111112")
		}
	})
}
