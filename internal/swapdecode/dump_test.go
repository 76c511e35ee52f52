package swapdecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDumpAll(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	files, _ := filepath.Glob("../../../shared/data/solana-tx/*/*/*.json")
	f2, _ := filepath.Glob("../../../shared/data/solana-tx/*/*/*/*.json")
	files = append(files, f2...)
	for _, f := range files {
		if strings.Contains(f, "swap-result") || strings.Contains(f, "geyser") {
			continue
		}
		raw, _ := os.ReadFile(f)
		txs, err := DecodeResponse(raw)
		t.Logf("== %s err=%v", filepath.Base(f), err)
		for _, tx := range txs {
			t.Logf("   unparsed=%v", tx.Unparsed)
			for _, l := range tx.Legs {
				t.Logf("   %d %s pool=%s in=%s:%d(%d) out=%s:%d(%d)", l.Index, l.Venue, l.Pool, l.InMint[:4], l.InAmount, l.InDecimals, l.OutMint[:4], l.OutAmount, l.OutDecimals)
			}
			for _, tr := range Trades(tx, DefaultStableMints()) {
				t.Logf("   TRADE %s %s mint=%s tok=%v usd=%v", tr.Venue, tr.Side, tr.Mint[:4], tr.TokenAmount, tr.USDAmount)
			}
		}
	}
}

func TestDumpCounts(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	legs := map[string]int{}
	unp := map[string]int{}
	n := 0
	for _, f := range recordedFiles(t) {
		for _, tx := range decodeFile(t, f) {
			n++
			for _, l := range tx.Legs {
				legs[l.Venue]++
			}
			for _, u := range tx.Unparsed {
				unp[u]++
			}
		}
	}
	t.Logf("txs=%d legs=%v unparsed=%v", n, legs, unp)
}
