package analytics

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func validTrade() Trade {
	return Trade{
		Signature:   "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
		Slot:        300_000_000,
		BlockTime:   monday,
		Mint:        mintA,
		Side:        SideSell,
		TokenAmount: 2,
		USDAmount:   300,
		PriceUSD:    150,
		Wallet:      wallet(1),
		Venue:       "orca",
		FlowSource:  "jupiter",
		FeeUSD:      0.3,
		IsBot:       true,
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Trade)
		code  Reason
		field string
	}{
		{"valid", func(*Trade) {}, "", ""},
		{"valid without flow source and fee", func(t *Trade) { t.FlowSource, t.FeeUSD = "", 0 }, "", ""},
		{"missing signature", func(t *Trade) { t.Signature = "" }, ReasonMissingSignature, "signature"},
		{"signature too long", func(t *Trade) { t.Signature = strings.Repeat("a", MaxSignatureLen+1) }, ReasonInvalidSignature, "signature"},
		{"signature with control byte", func(t *Trade) { t.Signature = "abc\x00" }, ReasonInvalidSignature, "signature"},
		{"negative slot", func(t *Trade) { t.Slot = -1 }, ReasonInvalidSlot, "slot"},
		{"zero block time", func(t *Trade) { t.BlockTime = 0 }, ReasonInvalidBlockTime, "blockTime"},
		{"block time before 2020", func(t *Trade) { t.BlockTime = MinBlockTime - 1 }, ReasonInvalidBlockTime, "blockTime"},
		{"block time in ms", func(t *Trade) { t.BlockTime = monday * 1000 }, "", ""}, // plausibility vs clock is Ingest's job
		{"empty mint", func(t *Trade) { t.Mint = "" }, ReasonInvalidMint, "mint"},
		{"mint not base58", func(t *Trade) { t.Mint = "0" + mintA[1:] }, ReasonInvalidMint, "mint"},
		{"mint wrong length", func(t *Trade) { t.Mint = mintA[:30] }, ReasonInvalidMint, "mint"},
		{"side uppercase", func(t *Trade) { t.Side = "BUY" }, ReasonInvalidSide, "side"},
		{"side empty", func(t *Trade) { t.Side = "" }, ReasonInvalidSide, "side"},
		{"zero token amount", func(t *Trade) { t.TokenAmount = 0 }, ReasonNonPositiveAmount, "tokenAmount"},
		{"NaN token amount", func(t *Trade) { t.TokenAmount = math.NaN() }, ReasonNonPositiveAmount, "tokenAmount"},
		{"negative usd amount", func(t *Trade) { t.USDAmount = -1 }, ReasonNonPositiveAmount, "usdAmount"},
		{"infinite usd amount", func(t *Trade) { t.USDAmount = math.Inf(1) }, ReasonNonPositiveAmount, "usdAmount"},
		{"zero price", func(t *Trade) { t.PriceUSD = 0 }, ReasonNonPositivePrice, "priceUsd"},
		{"infinite price", func(t *Trade) { t.PriceUSD = math.Inf(1) }, ReasonNonPositivePrice, "priceUsd"},
		{"bad wallet", func(t *Trade) { t.Wallet = "not-a-wallet" }, ReasonInvalidWallet, "wallet"},
		{"missing venue", func(t *Trade) { t.Venue = "" }, ReasonMissingVenue, "venue"},
		{"venue too long", func(t *Trade) { t.Venue = strings.Repeat("v", MaxLabelLen+1) }, ReasonInvalidVenue, "venue"},
		{"venue with newline", func(t *Trade) { t.Venue = "orca\n" }, ReasonInvalidVenue, "venue"},
		{"flow source not ASCII", func(t *Trade) { t.FlowSource = "jüp" }, ReasonInvalidFlowSource, "flowSource"},
		{"negative fee", func(t *Trade) { t.FeeUSD = -0.01 }, ReasonInvalidFee, "feeUsd"},
		{"NaN fee", func(t *Trade) { t.FeeUSD = math.NaN() }, ReasonInvalidFee, "feeUsd"},
		{"infinite fee", func(t *Trade) { t.FeeUSD = math.Inf(1) }, ReasonInvalidFee, "feeUsd"},
		// Value bounds: each value below passed validation before them.
		{"usd amount 1e308 (two made a +Inf candle volume)", func(t *Trade) { t.USDAmount = 1e308 }, ReasonAmountTooLarge, "usdAmount"},
		{"usd amount above the ceiling", func(t *Trade) { t.USDAmount, t.TokenAmount = MaxUSDAmount*1.01, MaxUSDAmount*1.01/150 }, ReasonAmountTooLarge, "usdAmount"},
		{"usd amount at the ceiling", func(t *Trade) { t.USDAmount, t.TokenAmount = MaxUSDAmount, MaxUSDAmount/150 }, "", ""},
		{"token amount 1e300", func(t *Trade) { t.TokenAmount = 1e300 }, ReasonAmountTooLarge, "tokenAmount"},
		{"price 1e308", func(t *Trade) { t.PriceUSD = 1e308 }, ReasonPriceOutOfRange, "priceUsd"},
		{"price above the ceiling", func(t *Trade) { t.PriceUSD, t.USDAmount, t.TokenAmount = 2e9, 2e9, 1 }, ReasonPriceOutOfRange, "priceUsd"},
		{"denormal price", func(t *Trade) { t.PriceUSD = 5e-324 }, ReasonPriceOutOfRange, "priceUsd"},
		{"meme-token price", func(t *Trade) { t.PriceUSD, t.TokenAmount, t.USDAmount = 3e-9, 1e11, 300 }, "", ""},
		{"usd amount ten times tokens × price", func(t *Trade) { t.USDAmount = 3000 }, ReasonInconsistentAmount, "usdAmount"},
		{"usd amount a tenth of tokens × price", func(t *Trade) { t.USDAmount = 30 }, ReasonInconsistentAmount, "usdAmount"},
		{"usd amount 9% off (fees, slippage)", func(t *Trade) { t.USDAmount = 300 * 1.09 }, "", ""},
		{"dust: token amount rounded up", func(t *Trade) { t.TokenAmount, t.USDAmount, t.PriceUSD = 2e-7, 0.015, 100_000 }, "", ""},
		{"fee 1e308", func(t *Trade) { t.FeeUSD = 1e308 }, ReasonInvalidFee, "feeUsd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := validTrade()
			tt.edit(&tr)
			err := tr.Validate()
			if got := ReasonOf(err); got != tt.code {
				t.Fatalf("Validate() = %v, want code %q", err, tt.code)
			}
			if tt.code == "" {
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != tt.field {
				t.Fatalf("Validate() = %#v, want field %q", err, tt.field)
			}
		})
	}
}

func TestParseTrade(t *testing.T) {
	want := validTrade()
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseTrade(data)
	if err != nil {
		t.Fatalf("ParseTrade: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	// The wire names are the documented ones.
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"signature", "slot", "blockTime", "mint", "side", "tokenAmount", "usdAmount", "priceUsd", "wallet", "venue", "flowSource", "feeUsd", "isBot"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, data)
		}
	}
	if _, err := ParseTrade([]byte(`{"signature": 12}`)); ReasonOf(err) != ReasonMalformedJSON {
		t.Errorf("wrong type: err = %v, want %s", err, ReasonMalformedJSON)
	}
	if _, err := ParseTrade([]byte(`{"slot": 1.5}`)); ReasonOf(err) != ReasonMalformedJSON {
		t.Errorf("fractional slot: err = %v, want %s", err, ReasonMalformedJSON)
	}
	extra := strings.Replace(string(data), "{", `{"poolName":"x",`, 1)
	if _, err := ParseTrade([]byte(extra)); err != nil {
		t.Errorf("unknown field: %v, want it ignored", err)
	}
	if _, err := ParseTrade([]byte(`{"signature":"s"}`)); ReasonOf(err) != ReasonInvalidBlockTime {
		t.Errorf("sparse trade: err = %v, want %s", err, ReasonInvalidBlockTime)
	}
}

func TestTradeRefCompare(t *testing.T) {
	refs := []TradeRef{
		{BlockTime: 10, Slot: 5, Signature: "b"},
		{BlockTime: 10, Slot: 5, Signature: "ba"},
		{BlockTime: 10, Slot: 6, Signature: "a"},
		{BlockTime: 11, Slot: 1, Signature: "a"},
	}
	for i := range refs {
		for j := range refs {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := refs[i].Compare(refs[j]); got != want {
				t.Errorf("%v.Compare(%v) = %d, want %d", refs[i], refs[j], got, want)
			}
		}
	}
	for _, p := range [][2]string{{"b", "ba"}, {"abcdefgh", "abcdefgi"}, {"A", "a"}, {"", "1"}} {
		if !(sigPrefix(p[0]) < sigPrefix(p[1])) {
			t.Errorf("sigPrefix(%q) !< sigPrefix(%q)", p[0], p[1])
		}
	}
}

var knownReasons = map[Reason]bool{
	ReasonMalformedJSON: true, ReasonMissingSignature: true, ReasonInvalidSignature: true,
	ReasonInvalidSlot: true, ReasonInvalidBlockTime: true, ReasonInvalidMint: true,
	ReasonInvalidSide: true, ReasonNonPositiveAmount: true, ReasonNonPositivePrice: true,
	ReasonInvalidWallet: true, ReasonMissingVenue: true, ReasonInvalidVenue: true,
	ReasonInvalidFlowSource: true, ReasonInvalidFee: true,
}

func FuzzParseTrade(f *testing.F) {
	good, _ := json.Marshal(validTrade())
	f.Add(good)
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"signature":"x","slot":-1}`))
	f.Add([]byte(`{"tokenAmount":1e400}`))
	f.Add([]byte(strings.Replace(string(good), `"sell"`, `"buy"`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ParseTrade(data)
		if err != nil {
			if !knownReasons[ReasonOf(err)] {
				t.Fatalf("ParseTrade error %v has no known reason", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("parsed trade fails Validate: %v", err)
		}
		again, err := json.Marshal(tr)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		tr2, err := ParseTrade(again)
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		if diff := cmp.Diff(tr, tr2); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func TestPrintable(t *testing.T) {
	slow := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] > 0x7e {
				return false
			}
		}
		return true
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 40 {
		for range 2000 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(0x20 + rng.IntN(0x5f))
			}
			if n > 0 && rng.IntN(2) == 0 {
				b[rng.IntN(n)] = byte(rng.IntN(256)) // maybe one bad byte anywhere
			}
			if got, want := printable(string(b)), slow(string(b)); got != want {
				t.Fatalf("printable(%q) = %v, want %v", b, got, want)
			}
		}
	}
	for c := range 256 {
		b := make([]byte, 12)
		for pos := range b {
			for i := range b {
				b[i] = 'a'
			}
			b[pos] = byte(c)
			if got, want := printable(string(b)), slow(string(b)); got != want {
				t.Fatalf("printable(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

func TestOrderKeyMatchesTradeRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	sig := func() string {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = "12ab"[rng.IntN(4)] // small alphabet: many shared prefixes
		}
		return string(b)
	}
	for range 20000 {
		a := TradeRef{BlockTime: int64(rng.IntN(3)), Slot: int64(rng.IntN(3)), Signature: sig()}
		b := TradeRef{BlockTime: int64(rng.IntN(3)), Slot: int64(rng.IntN(3)), Signature: sig()}
		ka, kb := refKey(a), refKey(b)
		want := a.Compare(b)
		if len(a.Signature) > SignatureOrderBytes || len(b.Signature) > SignatureOrderBytes {
			// Only the first 16 bytes count.
			a.Signature, b.Signature = a.Signature[:min(16, len(a.Signature))], b.Signature[:min(16, len(b.Signature))]
			want = a.Compare(b)
		}
		got := 0
		if ka.after(&kb) {
			got = 1
		} else if kb.after(&ka) {
			got = -1
		}
		if got != want {
			t.Fatalf("%v vs %v: key order %d, ref order %d", a, b, got, want)
		}
		if r := ka.ref(); r != a && !(a.IsZero() && r.IsZero()) {
			t.Fatalf("refKey(%v).ref() = %v", a, r)
		}
	}
}

// TestTradeIdentity: leg, pool and program parse (fast path and
// encoding/json agree), leg is bounded 0..MaxLeg, pool and program must be
// addresses when present, and the identity's text form keeps leg 0 the
// bare signature.
func TestTradeIdentity(t *testing.T) {
	base := validTrade()
	data, err := json.Marshal(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		add  string
		leg  int
		code Reason
	}{
		{``, 0, ""},
		{`"leg":3,`, 3, ""},
		{`"leg":255,`, 255, ""},
		{`"leg":256,`, 0, ReasonInvalidLeg},
		{`"leg":-1,`, 0, ReasonInvalidLeg},
		{`"pool":"x",`, 0, ReasonInvalidPool},
		{`"program":"not an address",`, 0, ReasonInvalidProgram},
		{`"pool":"8BnEgHoWFysVcuFFX7QztDmzuH8r5ZFvyP3sYwn1XTh6","program":"srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX","leg":1,`, 1, ""},
	} {
		in := strings.Replace(string(data), `{"signature"`, `{`+tc.add+`"signature"`, 1)
		in = strings.Replace(in, `,"leg":0`, ``, 1)
		got, err := ParseTrade([]byte(in))
		if ReasonOf(err) != tc.code {
			t.Errorf("%s: %v, want %q", tc.add, err, tc.code)
			continue
		}
		if err == nil && got.Leg != tc.leg {
			t.Errorf("%s: leg %d, want %d", tc.add, got.Leg, tc.leg)
		}
	}
	if s := (TradeID{Signature: "abc"}).String(); s != "abc" {
		t.Errorf("leg 0 id %q", s)
	}
	if s := (TradeID{Signature: "abc", Leg: 2}).String(); s != "abc:2" {
		t.Errorf("leg 2 id %q", s)
	}
}
