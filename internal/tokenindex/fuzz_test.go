package tokenindex

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"USDC", "$usd\u0421", "ＵＳＤＣ", "BOOP\u3164", "a\u200bb", "", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if !utf8.ValidString(n.Key) && utf8.ValidString(s) {
			t.Fatalf("invalid key %q for %q", n.Key, s)
		}
		if strings.IndexFunc(n.Key, Invisible) >= 0 {
			t.Fatalf("invisible character left in %q", n.Key)
		}
		_ = CollisionKey(n.Key)
	})
}

func FuzzParse(f *testing.F) {
	f.Add("mint,symbol,name\n" + mA + ",A,a\n")
	f.Add(`{"tokens":[{"chainId":101,"address":"` + mA + `","symbol":"A"}]}`)
	f.Add(`[{"id":"` + mA + `","symbol":"A","decimals":300}]`)
	f.Fuzz(func(t *testing.T, in string) {
		var b Builder
		_, _ = Parse(strings.NewReader(in), b.Add, nil)
		x := b.Build()
		for id := range x.Len() {
			tk := x.Token(ID(id))
			if got, ok := x.Get(tk.Mint); !ok || !got.Equal(tk) {
				t.Fatalf("token %q not found by its mint", tk.Mint)
			}
			if tk.Decimals != nil && (*tk.Decimals < 0 || *tk.Decimals > 18) {
				t.Fatalf("decimals %d kept", *tk.Decimals)
			}
		}
	})
}
