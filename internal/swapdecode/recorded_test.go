package swapdecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// dataDir is the shared recorded chain data (../shared/data/solana-tx);
// tests that need it skip without it.
const dataDir = "../../../shared/data/solana-tx"

func needData(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dataDir, "MANIFEST.tsv")); err != nil {
		t.Skip("no recorded chain data at " + dataDir)
	}
}

// recordedFiles lists every recorded JSON-RPC transaction file (the
// swap-result expectations and the Yellowstone renderings excluded).
func recordedFiles(t testing.TB) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dataDir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := filepath.Base(p)
		if e.IsDir() || !strings.HasSuffix(base, ".json") || strings.HasPrefix(base, "swap-result") || strings.HasSuffix(base, "_geyser.json") {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func decodeFile(t testing.TB, path string) []Tx {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := DecodeResponse(raw)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return txs
}

// hop is one of Jupiter's ParsedSwapEvents.
type hop struct {
	AMM          string `json:"amm"`
	InputMint    string `json:"inputMint"`
	InputAmount  string `json:"inputAmount"`
	OutputMint   string `json:"outputMint"`
	OutputAmount string `json:"outputAmount"`
}

func jupiterHops(t *testing.T, dir string) []hop {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "swap-result-*.json"))
	var hops []hop
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			ParsedEvents []struct {
				Name string `json:"name"`
				Data hop    `json:"data"`
			} `json:"parsedEvents"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		for _, e := range res.ParsedEvents {
			if e.Name == "ParsedSwapEvent" {
				hops = append(hops, e.Data)
			}
		}
	}
	return hops
}

// TestJupiterGroundTruth: over the ten jup-ag/instruction-parser
// transactions, the stable trades are exactly Jupiter's own USD-stable
// hops (program, mints and raw amounts equal), one each, nothing else.
func TestJupiterGroundTruth(t *testing.T) {
	needData(t)
	stable := DefaultStableMints()
	dirs, _ := filepath.Glob(filepath.Join(dataDir, "jup-ag_instruction-parser/snapshot/*"))
	if len(dirs) != 10 {
		t.Fatalf("%d jup-ag transactions, want 10", len(dirs))
	}
	totalStable := 0
	for _, dir := range dirs {
		sig := filepath.Base(dir)
		txs := decodeFile(t, filepath.Join(dir, "tx-"+sig+".json"))
		if len(txs) != 1 || txs[0].Signature != sig {
			t.Fatalf("%s: decoded %d txs", sig, len(txs))
		}
		tx := txs[0]
		type key struct{ prog, in, inAmt, out, outAmt string }
		want := map[key]int{}
		for _, h := range jupiterHops(t, dir) {
			if stable[h.InputMint] != stable[h.OutputMint] {
				want[key{h.AMM, h.InputMint, h.InputAmount, h.OutputMint, h.OutputAmount}]++
				totalStable++
			}
		}
		got := map[key]int{}
		trades := Trades(tx, stable)
		for _, tr := range trades {
			l := tx.Legs[tr.Leg]
			got[key{l.Program, l.InMint, strconv.FormatUint(l.InAmount, 10), l.OutMint, strconv.FormatUint(l.OutAmount, 10)}]++
			if tr.Signature != sig || tr.Wallet != tx.FeePayer || tr.Validate() != nil {
				t.Errorf("%s: trade %+v", sig[:8], tr)
			}
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("%s: Jupiter's stable hop %+v: %d trades, want %d", sig[:8], k, got[k], n)
			}
		}
		for k, n := range got {
			if want[k] != n {
				t.Errorf("%s: trade %+v is not one of Jupiter's stable hops", sig[:8], k)
			}
		}
		if strings.HasPrefix(sig, "2m6e4MBQ") && len(trades) != 0 {
			t.Errorf("2m6e4MBQ has no stable hop; got %d trades", len(trades))
		}
	}
	if totalStable < 10 {
		t.Fatalf("only %d stable hops in Jupiter's results", totalStable)
	}
}

// token2022FeeMint is the transfer-fee mint in GCeRpjvf… (its Token-2022
// transferChecked moves 6559652940; the account keeps 6428459882).
const token2022FeeMint = "J5tzd1ww1V1qrgDUQHVCGqpmpbnEnjzGs9LAqJxwkNde"

// TestJupiterHopsAll: every hop Jupiter decoded on a program the decoder
// knows is one of the decoder's legs with equal raw amounts; hops on
// programs it does not know show up as Tx.Unparsed instead.
func TestJupiterHopsAll(t *testing.T) {
	needData(t)
	dirs, _ := filepath.Glob(filepath.Join(dataDir, "jup-ag_instruction-parser/snapshot/*"))
	for _, dir := range dirs {
		sig := filepath.Base(dir)
		tx := decodeFile(t, filepath.Join(dir, "tx-"+sig+".json"))[0]
		known := 0
		for _, h := range jupiterHops(t, dir) {
			if VenueOf(h.AMM) == "" {
				found := false
				for _, u := range tx.Unparsed {
					found = found || u == h.AMM
				}
				if !found {
					t.Errorf("%s: hop on unknown program %s not in Unparsed %v", sig[:8], h.AMM, tx.Unparsed)
				}
				continue
			}
			known++
			if h.OutputMint == token2022FeeMint {
				// J5tz… is a Token-2022 mint with a transfer fee: the leg
				// reports the amount transferred, Jupiter the amount the
				// destination kept after the withheld fee.
				continue
			}
			found := false
			for _, l := range tx.Legs {
				if l.Program == h.AMM && l.InMint == h.InputMint && l.OutMint == h.OutputMint &&
					strconv.FormatUint(l.InAmount, 10) == h.InputAmount && strconv.FormatUint(l.OutAmount, 10) == h.OutputAmount {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: Jupiter hop %+v not among legs %+v", sig[:8], h, tx.Legs)
			}
		}
		if known != len(tx.Legs) {
			t.Errorf("%s: %d legs, Jupiter has %d hops on known programs", sig[:8], len(tx.Legs), known)
		}
	}
}

// TestRecordedLegCounts: every recorded transaction decodes without
// error, and the legs per venue over the whole set are as counted (each
// cross-checked: the jup-ag ones against Jupiter's results, the rest by
// reading the transactions).
func TestRecordedLegCounts(t *testing.T) {
	needData(t)
	want := map[string]int{
		"raydium_amm_v4": 19, "raydium_cpmm": 2, "raydium_clmm": 3,
		"orca_whirlpool": 15, "meteora_dlmm": 16, "meteora_damm_v1": 4,
		"pumpfun": 14, "phoenix": 5, "openbook_v1": 2, "lifinity_v2": 5,
		"fluxbeam": 1, "solfi": 1, "invariant": 1, "saros": 1, "cropper": 1,
	}
	wantUnparsed := map[string]int{
		"PERPHjGBqRHArX4DySjwM6UJHiR3sWAatqfdBS2qQJu": 1, // Jupiter Perps hop in 2kai9…
		"stkitrT1Uoy18Dk1fTrgPw8W6MVzoCfYoAFT4MLsmhq": 1, // Sanctum stake-pool hop in 3LF4…
	}
	got, gotUnparsed := map[string]int{}, map[string]int{}
	files := recordedFiles(t)
	if len(files) != 53 {
		t.Fatalf("%d recorded transaction files, want 53", len(files))
	}
	for _, f := range files {
		for _, tx := range decodeFile(t, f) {
			if tx.Signature == "" || tx.FeePayer == "" || tx.Slot <= 0 || tx.BlockTime <= 0 || tx.Failed {
				t.Errorf("%s: header %+v", filepath.Base(f), tx)
			}
			for i, l := range tx.Legs {
				got[l.Venue]++
				if l.Index != i || l.InAmount == 0 || l.OutAmount == 0 || l.InMint == l.OutMint || l.Pool == "" || l.InDecimals < 0 || l.OutDecimals < 0 {
					t.Errorf("%s: leg %+v", filepath.Base(f), l)
				}
			}
			for _, u := range tx.Unparsed {
				gotUnparsed[u]++
			}
		}
	}
	for _, m := range []struct{ got, want map[string]int }{{got, want}, {gotUnparsed, wantUnparsed}} {
		for k, n := range m.want {
			if m.got[k] != n {
				t.Errorf("%s: %d, want %d", k, m.got[k], n)
			}
		}
		for k, n := range m.got {
			if m.want[k] == 0 {
				t.Errorf("%s: %d, want none", k, n)
			}
		}
	}
}

// TestTransfersAndNonSwaps: plain transfers and Jupiter DCA bookkeeping
// yield no legs, no trades and nothing unparsed.
func TestTransfersAndNonSwaps(t *testing.T) {
	needData(t)
	for _, name := range []string{"token_transfer_0", "transferChecked_0", "jupiterDca_openDcaV2_0", "jupiterDca_endAndClose_0", "jupiterDca_CloseDca_0"} {
		tx := decodeFile(t, filepath.Join(dataDir, "0xjeffro_tx-parser/data", name+".json"))[0]
		if len(tx.Legs) != 0 || len(tx.Unparsed) != 0 || len(Trades(tx, DefaultStableMints())) != 0 {
			t.Errorf("%s: legs %+v unparsed %v", name, tx.Legs, tx.Unparsed)
		}
	}
}

// TestPumpFunFromEvent: the bonding curve's SOL side comes from its
// trade event (lamports, reported as wrapped SOL), the token side's mint
// from the instruction; a buy pays SOL in.
func TestPumpFunFromEvent(t *testing.T) {
	needData(t)
	buy := decodeFile(t, filepath.Join(dataDir, "qvecs_soltxs/data/pumpfun_buy_rpc.json"))[0]
	sell := decodeFile(t, filepath.Join(dataDir, "0xjeffro_tx-parser/data/pumpfun_sell_0.json"))[0]
	if len(buy.Legs) != 1 || buy.Legs[0].InMint != WrappedSOL || buy.Legs[0].InDecimals != 9 || buy.Legs[0].Venue != "pumpfun" {
		t.Errorf("buy: %+v", buy.Legs)
	}
	if len(sell.Legs) != 1 || sell.Legs[0].OutMint != WrappedSOL || sell.Legs[0].InMint != "CnNVDyM7GXBBcH8giuRYm17YCn6kpFTTbnd6Tx4hpump" ||
		sell.Legs[0].Pool != "6cSXbsWdUE86Nvwq8UZSQS8X8v4Rz3TP39V6gSb9Rg6f" {
		t.Errorf("sell: %+v", sell.Legs)
	}
	// SOL is not a stable side: no trade.
	if n := len(Trades(buy, DefaultStableMints())); n != 0 {
		t.Errorf("buy: %d trades", n)
	}
}

// TestEnvelopeShapes: the same recorded transaction decodes identically
// from its JSON-RPC envelope (qvecs) and as a bare result in a one-element
// array (0xjeffro).
func TestEnvelopeShapes(t *testing.T) {
	needData(t)
	a := decodeFile(t, filepath.Join(dataDir, "qvecs_soltxs/data/pumpfun_sell_rpc.json"))
	b := decodeFile(t, filepath.Join(dataDir, "0xjeffro_tx-parser/data/pumpfun_sell_0.json"))
	if len(a) != 1 || len(b) != 1 || a[0].Signature != b[0].Signature || len(a[0].Legs) != 1 || a[0].Legs[0] != b[0].Legs[0] {
		t.Fatalf("%+v\n%+v", a, b)
	}
}
