package swapdecode

import (
	"encoding/json"
	"os"
	"testing"
)

// recordedResults returns the bare results of every recorded
// transaction (envelopes and arrays stripped), the benchmark's corpus.
func recordedResults(tb testing.TB) [][]byte {
	tb.Helper()
	needData(tb)
	var out [][]byte
	for _, f := range recordedFiles(tb) {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		body, err := unwrap(raw)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, body)
	}
	return out
}

// BenchmarkDecodeTransaction decodes the recorded set round-robin with
// one Decoder (as a source's worker does); one op is one transaction.
func BenchmarkDecodeTransaction(b *testing.B) {
	corpus := recordedResults(b)
	var n int64
	for _, c := range corpus {
		n += int64(len(c))
	}
	b.SetBytes(n / int64(len(corpus)))
	b.ReportAllocs()
	var d Decoder
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := d.DecodeTransaction(corpus[i%len(corpus)]); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}

// reportCPU reports process CPU time per op and the per-core rate it
// implies (meaningful with -cpu 1: one P runs the loop and the GC).
func reportCPU(b *testing.B, cpu0 int64) {
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(b.N)/(float64(cpu)/1e9), "tx/cpu-s")
	}
}

// BenchmarkEncodingJSONBaseline unmarshals the same corpus with
// encoding/json into structs holding only the fields the decoder reads
// (no leg logic): the cost a reflection decoder pays before any work.
func BenchmarkEncodingJSONBaseline(b *testing.B) {
	corpus := recordedResults(b)
	type ixJSON struct {
		ProgramIDIndex *int            `json:"programIdIndex"`
		ProgramID      string          `json:"programId"`
		Accounts       json.RawMessage `json:"accounts"`
		Data           string          `json:"data"`
		StackHeight    *int            `json:"stackHeight"`
		Parsed         json.RawMessage `json:"parsed"`
	}
	type txJSON struct {
		Slot        int64 `json:"slot"`
		BlockTime   int64 `json:"blockTime"`
		Transaction struct {
			Signatures []string `json:"signatures"`
			Message    struct {
				AccountKeys  json.RawMessage `json:"accountKeys"`
				Instructions []ixJSON        `json:"instructions"`
			} `json:"message"`
		} `json:"transaction"`
		Meta struct {
			Err               json.RawMessage `json:"err"`
			InnerInstructions []struct {
				Index        int      `json:"index"`
				Instructions []ixJSON `json:"instructions"`
			} `json:"innerInstructions"`
			PreTokenBalances  json.RawMessage `json:"preTokenBalances"`
			PostTokenBalances json.RawMessage `json:"postTokenBalances"`
			LoadedAddresses   json.RawMessage `json:"loadedAddresses"`
		} `json:"meta"`
	}
	var n int64
	for _, c := range corpus {
		n += int64(len(c))
	}
	b.SetBytes(n / int64(len(corpus)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		var v txJSON
		if err := json.Unmarshal(corpus[i%len(corpus)], &v); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0)
}

// FuzzDecodeTransaction: any input decodes or errors, never panics, and
// a decoded transaction's legs are well-formed.
func FuzzDecodeTransaction(f *testing.F) {
	if _, err := os.Stat(dataDir); err == nil {
		for _, c := range recordedResults(f) {
			f.Add(c)
		}
	}
	f.Add([]byte(`{"slot":1,"blockTime":2,"transaction":{"signatures":["s"],"message":{"accountKeys":["a","TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"],"instructions":[{"programIdIndex":1,"accounts":[0,0,0],"data":"3Bxs4NN8M2Yn4TLb","stackHeight":null}]}},"meta":{"err":null,"innerInstructions":[],"preTokenBalances":[],"postTokenBalances":[]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var d Decoder
		tx, err := d.DecodeTransaction(raw)
		if err != nil {
			return
		}
		for i, l := range tx.Legs {
			if l.Index != i || l.Venue == "" || l.InAmount == 0 || l.OutAmount == 0 {
				t.Fatalf("leg %+v", l)
			}
		}
		for _, tr := range Trades(tx, DefaultStableMints()) {
			if err := tr.Validate(); err != nil {
				t.Fatalf("trade %+v: %v", tr, err)
			}
		}
		if _, err := d.DecodeBlock(raw, 1); err == nil {
			_ = err
		}
	})
}
