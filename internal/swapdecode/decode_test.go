package swapdecode

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mr-tron/base58"

	"github.com/assetd/assetd/internal/analytics"
)

// composedBlock builds a getBlock result from recorded jsonParsed
// transactions (no whole recorded block with swaps exists; see the data
// README). The composition is the test's; every transaction in it is a
// recorded one. failIdx, when >= 0, gets meta.err set by the test (the
// recorded data has no failed swap).
func composedBlock(t testing.TB, failIdx int) (block []byte, sigs []string) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(dataDir, "jup-ag_instruction-parser/snapshot/*"))
	var txs []map[string]json.RawMessage
	for i, dir := range dirs {
		raw, err := os.ReadFile(filepath.Join(dir, "tx-"+filepath.Base(dir)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var env struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatal(err)
		}
		r := env.Result
		el := map[string]json.RawMessage{"transaction": r["transaction"], "meta": r["meta"], "version": r["version"]}
		if i == failIdx {
			var meta map[string]json.RawMessage
			if err := json.Unmarshal(r["meta"], &meta); err != nil {
				t.Fatal(err)
			}
			meta["err"] = json.RawMessage(`{"InstructionError":[3,{"Custom":6001}]}`)
			el["meta"], _ = json.Marshal(meta)
		}
		txs = append(txs, el)
		sigs = append(sigs, filepath.Base(dir))
	}
	b, err := json.Marshal(map[string]any{
		"blockHeight": nil, "blockTime": 1720000000, "blockhash": "composed-by-test",
		"parentSlot": 299999999, "previousBlockhash": "composed-by-test", "transactions": txs,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b, sigs
}

func TestDecodeBlockComposed(t *testing.T) {
	needData(t)
	block, sigs := composedBlock(t, 2)
	txs, err := DecodeBlock(block, 300000000)
	if err != nil {
		t.Fatal(err)
	}
	if len(txs) != len(sigs) {
		t.Fatalf("%d txs, want %d", len(txs), len(sigs))
	}
	for i, tx := range txs {
		if tx.Signature != sigs[i] || tx.Slot != 300000000 || tx.BlockTime != 1720000000 {
			t.Errorf("tx %d: %s slot %d time %d", i, tx.Signature, tx.Slot, tx.BlockTime)
		}
		single, err := os.ReadFile(filepath.Join(dataDir, "jup-ag_instruction-parser/snapshot", sigs[i], "tx-"+sigs[i]+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := DecodeResponse(single)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if !tx.Failed || len(tx.Legs) != 0 || Trades(tx, DefaultStableMints()) != nil {
				t.Errorf("failed tx: %+v", tx)
			}
			continue
		}
		if tx.Failed || len(tx.Legs) != len(want[0].Legs) {
			t.Errorf("tx %d: %d legs, the getTransaction decode has %d", i, len(tx.Legs), len(want[0].Legs))
			continue
		}
		for j := range tx.Legs {
			if tx.Legs[j] != want[0].Legs[j] {
				t.Errorf("tx %d leg %d: %+v, want %+v", i, j, tx.Legs[j], want[0].Legs[j])
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":          ``,
		"not an object":  `[]`,
		"no transaction": `{"slot":1,"meta":null}`,
		"base64":         `{"slot":1,"transaction":["AAAA","base64"],"meta":null}`,
		"bad program":    `{"slot":1,"transaction":{"message":{"accountKeys":["a"],"instructions":[{"programIdIndex":5,"accounts":[],"data":""}]},"signatures":["s"]},"meta":{"err":null}}`,
		"orphan inner":   `{"slot":1,"transaction":{"message":{"accountKeys":["a"],"instructions":[]},"signatures":["s"]},"meta":{"err":null,"innerInstructions":[{"index":3,"instructions":[]}]}}`,
		"trailing":       `{"slot":1,"transaction":{"message":{"accountKeys":[],"instructions":[]},"signatures":["s"]},"meta":null} x`,
		"unterminated":   `{"slot":1,"transaction":{"message":{"accountKeys":["a`,
	} {
		if _, err := DecodeTransaction([]byte(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestB58(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []byte
		ok   bool
	}{
		{"", nil, true},
		{"1", []byte{0}, true},
		{"11", []byte{0, 0}, true},
		{"2", []byte{1}, true},
		{"5Q", []byte{0xff}, true},
		{"LUv", []byte{0xff, 0xff}, true},
		{"LUw", []byte{1, 0, 0}, true},
		{"0", nil, false},
		{"I", nil, false},
	} {
		got, ok := b58decode(nil, []byte(tc.in))
		if ok != tc.ok || (ok && !bytes.Equal(got, tc.want)) {
			t.Errorf("%q: %x %v, want %x %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	// A recorded 32-byte key.
	if b, ok := b58decode(nil, []byte(usdcMint)); !ok || len(b) != 32 {
		t.Errorf("USDC mint: %d bytes", len(b))
	}
}

func TestParseStableMints(t *testing.T) {
	m, err := ParseStableMints(" " + usdcMint + " ,," + usdtMint)
	if err != nil || len(m) != 2 || !m[usdcMint] || !m[usdtMint] {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"", " , ", "notbase58!", "abc", usdcMint + ",x0x"} {
		if _, err := ParseStableMints(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if d := DefaultStableMints(); len(d) != 2 || !d[usdcMint] || !d[usdtMint] {
		t.Errorf("defaults %v", d)
	}
}

// TestTrades uses the legs of recorded transactions, plus stable-to-stable
// and unknown-decimals variants of them made by the test.
func TestTrades(t *testing.T) {
	needData(t)
	dir := filepath.Join(dataDir, "jup-ag_instruction-parser/snapshot/5SnGKXqNQ6zYGfNHQwHWwRtbxnYHUHLbANXgpvCLuXD1LA5paStRBcuXwu2T5eM9xsVWFQTzeUNwPWx6UAQhUb2t")
	tx := decodeFile(t, filepath.Join(dir, "tx-"+filepath.Base(dir)+".json"))[0]
	trades := Trades(tx, DefaultStableMints())
	if len(trades) != 2 {
		t.Fatalf("%d trades", len(trades))
	}
	// Saros DezX… -> USDC: the token was paid in, a sell.
	s := trades[0]
	if s.Side != analytics.SideSell || s.Mint != "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263" || s.Leg != 0 || s.Venue != "saros" ||
		s.TokenAmount != 214663.35085 || s.USDAmount != 4.939254 || s.PriceUSD != 4.939254/214663.35085 ||
		s.Wallet != tx.FeePayer || s.Pool != tx.Legs[0].Pool || s.Program != Saros || s.Slot != tx.Slot || s.BlockTime != tx.BlockTime {
		t.Errorf("saros trade %+v", s)
	}
	// Phoenix USDC -> wSOL: the token is the output, a buy.
	if b := trades[1]; b.Side != analytics.SideBuy || b.Mint != WrappedSOL || b.Leg != 1 || b.TokenAmount != 0.0357 || b.USDAmount != 4.935798 {
		t.Errorf("phoenix trade %+v", b)
	}
	// Only USDT stable: no trade for these USDC legs.
	if n := len(Trades(tx, map[string]bool{usdtMint: true})); n != 0 {
		t.Errorf("USDT-only: %d trades", n)
	}
	v := tx
	v.Legs = []Leg{tx.Legs[1]}
	v.Legs[0].InMint, v.Legs[0].Index = usdtMint, 0 // both sides stable
	v.Legs[0].OutMint = usdcMint
	if n := len(Trades(v, DefaultStableMints())); n != 0 {
		t.Errorf("stable-to-stable: %d trades", n)
	}
	v.Legs = []Leg{tx.Legs[1]}
	v.Legs[0].OutDecimals = -1
	if n := len(Trades(v, DefaultStableMints())); n != 0 {
		t.Errorf("unknown decimals: %d trades", n)
	}
	v.Legs = []Leg{tx.Legs[1]}
	v.Legs[0].Index = analytics.MaxLeg + 1
	if n := len(Trades(v, DefaultStableMints())); n != 0 {
		t.Errorf("leg past MaxLeg: %d trades", n)
	}
	v = tx
	v.Failed = true
	if Trades(v, DefaultStableMints()) != nil {
		t.Error("failed tx traded")
	}
	if !strings.HasPrefix(tx.Signature, "5SnGKXqN") {
		t.Error(tx.Signature)
	}
}

// TestTransferCheckedWithFee reads Token-2022's transferCheckedWithFee in
// both encodings. No recorded transaction has one (shared/data/solana-tx
// README), so the instructions here are SYNTHETIC: the layout is the
// token program's (tag 26, sub-tag 1, amount u64, decimals u8, fee u64;
// accounts source, mint, destination, authority; jsonParsed tokenAmount
// and feeAmount), the keys are made up.
func TestTransferCheckedWithFee(t *testing.T) {
	keys := [][]byte{[]byte("synthetic-source"), []byte("synthetic-mint"), []byte("synthetic-destination"), []byte("synthetic-authority")}
	data := make([]byte, 19)
	data[0], data[1] = 26, 1
	binary.LittleEndian.PutUint64(data[2:], 1_000_000)
	data[10] = 6
	binary.LittleEndian.PutUint64(data[11:], 2_500)
	var d Decoder
	d.p.accKeys = keys
	bin := &ix{keyLo: 0, keyHi: 4, data: []byte(base58.Encode(data))}
	parsed := &ix{hasParsed: true, ptype: []byte("transferCheckedWithFee"), src: keys[0], mint: keys[1], dst: keys[2], auth: keys[3],
		amount: []byte("1000000"), fee: []byte("2500"), decimals: 6}
	for name, x := range map[string]*ix{"json": bin, "jsonParsed": parsed} {
		tr, ok, err := d.transfer(&txRaw{}, x)
		if err != nil || !ok {
			t.Fatalf("%s: ok %v err %v", name, ok, err)
		}
		if tr.amount != 1_000_000 || tr.fee != 2_500 || tr.decimals != 6 || string(tr.src) != "synthetic-source" ||
			string(tr.mint) != "synthetic-mint" || string(tr.dst) != "synthetic-destination" || string(tr.auth) != "synthetic-authority" {
			t.Errorf("%s: %+v", name, tr)
		}
	}
	// A fee above the amount is no transfer the token program runs.
	binary.LittleEndian.PutUint64(data[11:], 2_000_000)
	if _, ok, _ := d.transfer(&txRaw{}, &ix{keyLo: 0, keyHi: 4, data: []byte(base58.Encode(data))}); ok {
		t.Error("a fee above the amount was read as a transfer")
	}
	parsed.fee = []byte("2000000")
	if _, _, err := d.transfer(&txRaw{}, parsed); err == nil {
		t.Error("a parsed fee above the amount was accepted")
	}
}

// TestWhirlpoolTwoHop splits a two-hop invocation into its two legs. No
// recorded transaction has one (the recorded Whirlpool invocations are
// swap and swapV2), so the invocation and its transfers are SYNTHETIC,
// laid out as the program's: v1 moves the intermediate token through the
// trader's account, v2 from pool one's vault to pool two's; the keys are
// made up.
func TestWhirlpoolTwoHop(t *testing.T) {
	k := func(s string) []byte { return []byte("synthetic-" + s) }
	v := &venues[venueIndex[OrcaWhirlpool]]
	for _, c := range []struct {
		name     string
		disc     string
		accounts [][]byte // pools at 2, 3 (v1) or 0, 1 (v2)
		xfers    []xfer
	}{
		{"v1", whirlpoolTwoHop, [][]byte{k("token-program"), k("trader"), k("pool-one"), k("pool-two")}, []xfer{
			{src: k("trader-a"), dst: k("vault-one-a"), mint: k("mint-a"), amount: 1_000, decimals: 6},
			{src: k("vault-one-b"), dst: k("trader-b"), mint: k("mint-b"), amount: 500, decimals: 9},
			{src: k("trader-b"), dst: k("vault-two-b"), mint: k("mint-b"), amount: 500, decimals: 9},
			{src: k("vault-two-c"), dst: k("trader-c"), mint: k("mint-c"), amount: 70, decimals: 5},
		}},
		{"v2", whirlpoolTwoHopV2, [][]byte{k("pool-one"), k("pool-two")}, []xfer{
			{src: k("trader-a"), dst: k("vault-one-a"), mint: k("mint-a"), amount: 1_000, decimals: 6},
			{src: k("vault-one-b"), dst: k("vault-two-b"), mint: k("mint-b"), amount: 500, fee: 5, decimals: 9},
			{src: k("vault-two-c"), dst: k("trader-c"), mint: k("mint-c"), amount: 70, decimals: 5},
		}},
	} {
		var d Decoder
		d.p.accKeys = c.accounts
		d.xfers = c.xfers
		for i := range c.xfers {
			d.byInv = append(d.byInv, i)
		}
		d.invLo = []int{0, len(c.xfers)}
		f := &flatIx{x: &ix{keyLo: 0, keyHi: len(c.accounts), data: []byte(base58.Encode([]byte(c.disc + "synthetic args")))}}
		if !d.twoHop(&txRaw{}, 0, f, v) || len(d.rawLegs) != 2 {
			t.Fatalf("%s: %d legs", c.name, len(d.rawLegs))
		}
		var tx Tx
		d.output(&tx, []byte("synthetic-signature"), []byte("synthetic-payer"))
		in2 := uint64(500)
		if c.name == "v2" {
			in2 = 495 // pool two is credited the intermediate amount net of its Token-2022 fee
		}
		want := []Leg{
			{Index: 0, Program: OrcaWhirlpool, Venue: "orca_whirlpool", Pool: "synthetic-pool-one", InMint: "synthetic-mint-a", InAmount: 1_000, InDecimals: 6, OutMint: "synthetic-mint-b", OutAmount: 500, OutDecimals: 9},
			{Index: 1, Program: OrcaWhirlpool, Venue: "orca_whirlpool", Pool: "synthetic-pool-two", InMint: "synthetic-mint-b", InAmount: in2, InDecimals: 9, OutMint: "synthetic-mint-c", OutAmount: 70, OutDecimals: 5},
		}
		if len(tx.Legs) != 2 || tx.Legs[0] != want[0] || tx.Legs[1] != want[1] {
			t.Errorf("%s: legs %+v\nwant %+v", c.name, tx.Legs, want)
		}
	}
}
