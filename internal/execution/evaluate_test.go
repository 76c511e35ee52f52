package execution

import (
	"math/big"
	"testing"
	"time"
)

func TestParseDecimal(t *testing.T) {
	cases := []struct {
		in       string
		maxFrac  int
		decimals int
		want     string // "" = invalid
	}{
		{"1", 6, 6, "1000000"},
		{"1.5", 6, 6, "1500000"},
		{"0.000001", 6, 6, "1"},
		{"0.0000001", 6, 6, ""},
		{"1.10", 1, 6, "1100000"}, // trailing zeros do not count
		{"01", 6, 6, ""},
		{"1.", 6, 6, ""},
		{".5", 6, 6, ""},
		{"-1", 6, 6, ""},
		{"1e3", 6, 6, ""},
		{"18446744073709551615", 0, 0, "18446744073709551615"},
		{"18446744073709551616", 0, 0, ""},
		{"2.5", 8, 0, ""},
	}
	for _, c := range cases {
		raw, ok := ParseDecimal(c.in, c.maxFrac, c.decimals)
		got := ""
		if ok {
			got = raw.String()
		}
		if got != c.want {
			t.Errorf("ParseDecimal(%q,%d,%d) = %q, want %q", c.in, c.maxFrac, c.decimals, got, c.want)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"1", "1.5", "0.000001", "01", "", "9999999999999999999999"} {
		f.Add(s, 6)
	}
	f.Fuzz(func(t *testing.T, s string, d int) {
		d = ((d % 19) + 19) % 19
		raw, ok := ParseDecimal(s, d, d)
		if !ok {
			return
		}
		if raw.Sign() < 0 || raw.Cmp(maxU64) > 0 {
			t.Fatalf("%q -> %s", s, raw)
		}
		back, ok := ParseDecimal(FormatRaw(raw, d), d, d)
		if !ok || back.Cmp(raw) != 0 {
			t.Fatalf("round trip %q -> %s -> %s", s, FormatRaw(raw, d), back)
		}
	})
}

func TestFormatRaw(t *testing.T) {
	for _, c := range []struct {
		raw  int64
		d    int
		want string
	}{{1500000, 6, "1.5"}, {1, 6, "0.000001"}, {100, 0, "100"}, {-25, 1, "-2.5"}, {0, 8, "0"}} {
		if got := FormatRaw(big.NewInt(c.raw), c.d); got != c.want {
			t.Errorf("FormatRaw(%d,%d) = %q, want %q", c.raw, c.d, got, c.want)
		}
	}
}

func TestEdgeBps(t *testing.T) {
	if got := EdgeBps(big.NewInt(10100), big.NewInt(10000)); got != 100 {
		t.Errorf("got %v", got)
	}
	if got := EdgeBps(big.NewInt(1000001), big.NewInt(1000000)); got != 0.01 {
		t.Errorf("got %v", got)
	}
}

func results(outs ...int64) []Result {
	var rs []Result
	for i, o := range outs {
		r := Result{Provider: string(rune('a' + i)), QuotedAt: time.Unix(0, 0)}
		if o > 0 {
			r.Quote = &Quote{InAmount: big.NewInt(1_000_000_000), OutAmount: big.NewInt(o)}
		} else {
			r.Reason = ReasonNoRoute
		}
		rs = append(rs, r)
	}
	return rs
}

func TestBuildRowWinnerAndTies(t *testing.T) {
	usdc := Token{Mint: USDCMint, Symbol: "USDC", Decimals: 6}
	tok := Token{Mint: cbBTC, Symbol: "cbBTC", Decimals: 8}
	sz := usdSize(1000)
	row := buildRow(sz, results(500, 505), usdc, tok, SideBuy)
	if row.Best.Provider != "b" || *row.Best.Rank != 1 || *row.ProviderQuotes[0].Rank != 2 || row.Edge.RunnerUp != "a" {
		t.Fatalf("row = %+v", row)
	}
	if row.Edge.Bps != 100 || row.Edge.OutAmountDiffRaw != "5" {
		t.Errorf("edge = %+v", row.Edge)
	}
	// usd = N·(1 − Y/X) = 1000·(1 − 500/505)
	if row.Edge.USD != 9.9 {
		t.Errorf("edge usd = %v", row.Edge.USD)
	}
	tie := buildRow(sz, results(500, 500), usdc, tok, SideBuy)
	if tie.Best.Provider != "a" || tie.Edge.Bps != 0 {
		t.Errorf("tie goes to the earlier provider: %+v", tie.Best)
	}
	sole := buildRow(sz, results(0, 500), usdc, tok, SideBuy)
	if sole.Best.Provider != "b" || sole.Edge != nil {
		t.Errorf("sole answer: %+v %+v", sole.Best, sole.Edge)
	}
	none := buildRow(sz, results(0, 0), usdc, tok, SideBuy)
	if none.Status != StatusUnavailable || *none.Reason != ReasonNoRoute || none.Best != nil {
		t.Errorf("no route: %+v", none)
	}
	mixed := []Result{{Provider: "a", Reason: ReasonNoRoute}, {Provider: "b", Reason: ReasonTimeout}}
	if r := buildRow(sz, mixed, usdc, tok, SideBuy); *r.Reason != ReasonTimeout {
		t.Errorf("no_route only when every provider says so: %v", *r.Reason)
	}
	// effectivePrice: output per unit input in UI units: 505e-8 / 1000.
	if *row.Best.EffectivePrice != "0.00000000505" {
		t.Errorf("effective price %s", *row.Best.EffectivePrice)
	}
}

func TestQuoteBudget(t *testing.T) {
	b := NewQuoteBudget(10, 10*time.Second) // 1 quote per second
	t0 := time.Unix(1000, 0)
	if ok, _ := b.Take("k", 8, t0); !ok {
		t.Fatal("first take")
	}
	ok, after := b.Take("k", 5, t0)
	if ok || after != 3*time.Second {
		t.Fatalf("ok=%v after=%v, want refused for 3s", ok, after)
	}
	if ok, _ := b.Take("other", 10, t0); !ok {
		t.Error("keys are independent")
	}
	if ok, _ := b.Take("k", 5, t0.Add(3*time.Second)); !ok {
		t.Error("refilled after 3s")
	}
	if ok, _ := b.Take("big", 50, t0); !ok {
		t.Error("a call larger than the bucket is capped at the capacity")
	}
}
