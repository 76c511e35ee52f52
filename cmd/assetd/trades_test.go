package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/swapdecode"
)

const solanaTxDir = "../../../shared/data/solana-tx"

func runDecode(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard}
	if err := c.run(context.Background(), append([]string{"trades", "decode"}, args...)); err != nil {
		t.Fatalf("trades decode: %v", err)
	}
	var events []map[string]any
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		events = append(events, e)
	}
	return events
}

// TestTradesDecodeJupiterAcceptance: `assetd trades decode` over the ten
// jup-ag/instruction-parser transactions and the two recorded transfers
// emits exactly one trade per USD-stable hop of Jupiter's own
// swap-result files (program, mints and raw amounts equal), nothing for
// 2m6e4MBQ… (no stable hop) and nothing for the transfers.
func TestTradesDecodeJupiterAcceptance(t *testing.T) {
	if _, err := os.Stat(filepath.Join(solanaTxDir, "MANIFEST.tsv")); err != nil {
		t.Skip("no recorded chain data at " + solanaTxDir)
	}
	dirs, _ := filepath.Glob(filepath.Join(solanaTxDir, "jup-ag_instruction-parser/snapshot/*"))
	if len(dirs) != 10 {
		t.Fatalf("%d jup-ag transactions", len(dirs))
	}
	var files []string
	type hopKey struct{ sig, prog, in, inAmt, out, outAmt string }
	want := map[hopKey]int{}
	stable := swapdecode.DefaultStableMints()
	for _, dir := range dirs {
		sig := filepath.Base(dir)
		files = append(files, filepath.Join(dir, "tx-"+sig+".json"))
		results, _ := filepath.Glob(filepath.Join(dir, "swap-result-*.json"))
		for _, r := range results {
			raw, err := os.ReadFile(r)
			if err != nil {
				t.Fatal(err)
			}
			var res struct {
				ParsedEvents []struct {
					Name string            `json:"name"`
					Data map[string]string `json:"data"`
				} `json:"parsedEvents"`
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				t.Fatal(err)
			}
			for _, e := range res.ParsedEvents {
				d := e.Data
				if e.Name == "ParsedSwapEvent" && stable[d["inputMint"]] != stable[d["outputMint"]] {
					want[hopKey{sig, d["amm"], d["inputMint"], d["inputAmount"], d["outputMint"], d["outputAmount"]}]++
				}
			}
		}
	}
	transfers := []string{
		filepath.Join(solanaTxDir, "0xjeffro_tx-parser/data/token_transfer_0.json"),
		filepath.Join(solanaTxDir, "0xjeffro_tx-parser/data/transferChecked_0.json"),
	}
	files = append(files, transfers...)

	trades := runDecode(t, files...)
	legs := runDecode(t, append([]string{"--all-legs"}, files...)...)
	legByID := map[string]map[string]any{}
	for _, l := range legs {
		legByID[l["signature"].(string)+"/"+strconv.Itoa(int(l["leg"].(float64)))] = l
	}
	got := map[hopKey]int{}
	for _, tr := range trades {
		raw, _ := json.Marshal(tr)
		var at analytics.Trade
		if err := json.Unmarshal(raw, &at); err != nil || at.Validate() != nil {
			t.Fatalf("trade %s is not a valid ingest event: %v", raw, err)
		}
		if strings.HasPrefix(at.Signature, "2m6e4MBQ") {
			t.Errorf("2m6e4MBQ has no stable hop, got %s", raw)
		}
		l := legByID[at.Signature+"/"+strconv.Itoa(at.Leg)]
		if l == nil {
			t.Fatalf("trade %s: no such leg", raw)
		}
		k := hopKey{at.Signature, l["program"].(string), l["inMint"].(string), l["inAmount"].(string), l["outMint"].(string), l["outAmount"].(string)}
		got[k]++
		// UI amounts are the raw amounts over the decimals.
		usdRaw, _ := strconv.ParseFloat(l["outAmount"].(string), 64)
		if at.Side == analytics.SideBuy {
			usdRaw, _ = strconv.ParseFloat(l["inAmount"].(string), 64)
		}
		if math.Abs(at.USDAmount-usdRaw/1e6) > 1e-9 || at.Venue != l["venue"] || at.Pool != l["pool"] || at.Program != l["program"] {
			t.Errorf("trade %s vs leg %v", raw, l)
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("Jupiter stable hop %+v: %d trades, want %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if want[k] != n {
			t.Errorf("trade %+v (x%d) is not a Jupiter stable hop", k, n)
		}
	}
	if len(trades) != 14 || len(want) == 0 {
		t.Errorf("%d trades, Jupiter has %d distinct stable hops", len(trades), len(want))
	}
	if tr := runDecode(t, transfers...); len(tr) != 0 {
		t.Errorf("transfers emitted %v", tr)
	}
}

func TestTradesDecodeUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"--stable-mints", "nope", "x.json"}} {
		c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		err := c.run(context.Background(), append([]string{"trades", "decode"}, args...))
		if _, ok := err.(usageError); !ok {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	if err := c.run(context.Background(), []string{"trades", "decode", filepath.Join(t.TempDir(), "missing.json")}); err == nil {
		t.Error("missing file: no error")
	}
}
