package tokenindex

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Synthetic mints (base58 shapes, not real tokens).
const (
	mA = "AAAA1111111111111111111111111111111111111111"
	mB = "BBBB1111111111111111111111111111111111111111"
	mC = "CCCC1111111111111111111111111111111111111111"
	mD = "DDDD1111111111111111111111111111111111111111"
)

func intp(v int) *int { return &v }

func testIndex() *Index {
	var b Builder
	b.Add(Token{Mint: mC, Symbol: "DOGE", Name: "Dog Wif Hat Classic", LogoURI: "https://img.example/" + mC + ".webp"})
	b.Add(Token{Mint: mA, Symbol: "DOG", Name: "The Dog", Decimals: intp(6), LogoURI: "https://img.example/" + mA + ".webp", CoingeckoID: "the-dog"})
	b.Add(Token{Mint: mB, Symbol: "$dog\x00", Name: "Hot\u202e Dog"})
	b.Add(Token{Mint: mD, Symbol: "CAT", Name: "Cat Coin"})
	b.Add(Token{Mint: mD, Symbol: "CAT2", Name: "Cat Coin Two"}) // repeated mint: the later wins
	return b.Build()
}

func collect(fn func(func(ID) bool), x *Index) []string {
	var out []string
	fn(func(id ID) bool { out = append(out, x.Mint(id)); return true })
	return out
}

func TestIndexQueries(t *testing.T) {
	x := testIndex()
	if x.Len() != 4 {
		t.Fatalf("Len = %d, want 4", x.Len())
	}
	tk, ok := x.Get(mA)
	want := Token{Mint: mA, Symbol: "DOG", Name: "The Dog", Decimals: intp(6), LogoURI: "https://img.example/" + mA + ".webp", CoingeckoID: "the-dog"}
	if !ok || !cmp.Equal(tk, want) {
		t.Fatalf("Get(A) = %+v, %v", tk, ok)
	}
	if tk, _ := x.Get(mD); tk.Symbol != "CAT2" {
		t.Errorf("repeated mint kept %q, want the later CAT2", tk.Symbol)
	}
	if tk, _ := x.Get(mB); tk.Symbol != "$dog" || tk.Name != "Hot Dog" {
		t.Errorf("unclean token stored as %+v", tk)
	}
	if _, ok := x.Get("nope"); ok {
		t.Error("unknown mint found")
	}
	for _, tc := range []struct {
		name string
		fn   func(func(ID) bool)
		want []string
	}{
		{"exact DOG", func(f func(ID) bool) { x.BySymbol("DOG", false, f) }, []string{mA, mB}},
		{"prefix DO", func(f func(ID) bool) { x.BySymbol("DO", true, f) }, []string{mA, mB, mC}},
		{"name exact", func(f func(ID) bool) { x.ByName("THE DOG", false, f) }, []string{mA}},
		{"name prefix", func(f func(ID) bool) { x.ByName("CAT", true, f) }, []string{mD}},
		{"word prefix", func(f func(ID) bool) { x.ByNameWord("DO", f) }, []string{mA, mB}}, // C's DOG is its first word
		{"first word", func(f func(ID) bool) { x.ByName("DO", true, f) }, []string{mC}},
		{"contains", func(f func(ID) bool) { x.NameContains("WIF H", f) }, []string{mC}},
		{"contains short", func(f func(ID) bool) { x.NameContains("DO", f) }, nil},
	} {
		got := collect(tc.fn, x)
		if tc.name == "word prefix" {
			slices.Sort(got)
			slices.Sort(tc.want)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	if s := x.Stats(); s.WithCoingecko != 1 || s.Tokens != 4 {
		t.Errorf("Stats = %+v", s)
	}
	var nilIdx *Index
	nilIdx.BySymbol("X", false, func(ID) bool { t.Fatal("nil index matched"); return true })
	if _, ok := nilIdx.Get(mA); ok || nilIdx.Len() != 0 {
		t.Fatal("nil index found a token")
	}
}

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		in, key    string
		suspicious bool
	}{
		{"usdc", "USDC", false},
		{"$USDC", "USDC", false},
		{"USD\u0421", "USDC", true},      // Cyrillic Es
		{"ＵＳＤＣ", "USDC", true},           // fullwidth (NFKC)
		{"US\u200bDC", "USDC", true},     // zero-width space
		{"BOOP\u3164", "BOOP", true},     // Hangul filler
		{"\u115fSOL\uffa0", "SOL", true}, // Hangul fillers
		{"Tether\u200b U\u200bS\u200bD", "TETHER USD", true},
		{"  ", "", false},
	} {
		got := Normalize(tc.in)
		if got.Key != tc.key || got.Suspicious != tc.suspicious {
			t.Errorf("Normalize(%q) = %+v, want %q suspicious=%v", tc.in, got, tc.key, tc.suspicious)
		}
	}
	for a, b := range map[string]string{"S0L": "SOL", "U5DC": "USDC", "$SOL": "SOL", "US-DC": "USDC"} {
		if CollisionKey(Key(a)) != CollisionKey(Key(b)) {
			t.Errorf("CollisionKey(%q) != CollisionKey(%q)", a, b)
		}
	}
	if CollisionKey("BONK") == CollisionKey("BANK") {
		t.Error("BONK and BANK collide")
	}
}

func TestParseFormats(t *testing.T) {
	for _, tc := range []struct {
		name, in, format string
		want             []Token
		skipped          int
	}{
		{"csv", "mint,symbol,name,decimals,logoURI,coingeckoId,inclusion\n" + mA + ",AAA,Token A,6,https://x.example/a.png,a-id,random\n" + mB + ",BBB,Token B,,,,\n,x,y,1,,,\n",
			FormatCSV, []Token{{Mint: mA, Symbol: "AAA", Name: "Token A", Decimals: intp(6), LogoURI: "https://x.example/a.png", CoingeckoID: "a-id"}, {Mint: mB, Symbol: "BBB", Name: "Token B"}}, 1},
		{"tokenlist", `{"name":"x","tokens":[{"chainId":101,"address":"` + mA + `","symbol":"AAA","name":"Token A","decimals":9,"extensions":{"coingeckoId":"a-id"}},{"chainId":103,"address":"` + mB + `","symbol":"DEV","name":"dev"}],"version":{}}`,
			FormatTokenList, []Token{{Mint: mA, Symbol: "AAA", Name: "Token A", Decimals: intp(9), CoingeckoID: "a-id"}}, 1},
		{"jupiter", `[{"id":"` + mA + `","symbol":"AAA","name":"Token A","decimals":6,"icon":"https://x.example/a.png"}]`,
			FormatJupiter, []Token{{Mint: mA, Symbol: "AAA", Name: "Token A", Decimals: intp(6), LogoURI: "https://x.example/a.png"}}, 0},
	} {
		var got []Token
		rep, err := Parse(strings.NewReader(tc.in), func(t Token) { got = append(got, t) }, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if rep.Format != tc.format || rep.Skipped != tc.skipped {
			t.Errorf("%s: report %+v", tc.name, rep)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	if _, err := Parse(strings.NewReader(`{"name":"x"}`), func(Token) {}, nil); err == nil {
		t.Error("token list without tokens accepted")
	}
	if _, err := Parse(strings.NewReader(""), func(Token) {}, nil); err == nil {
		t.Error("empty file accepted")
	}
}

// dataDir is the shared real data (absent on some machines).
const dataDir = "../../../shared/data/"

func loadCSV(tb testing.TB) *Index {
	tb.Helper()
	path := dataDir + "token-index-sonarwatch-solana-150k.csv"
	if _, err := os.Stat(path); err != nil {
		tb.Skip("shared data absent:", err)
	}
	x, _, err := LoadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

func TestRealIndex(t *testing.T) {
	x := loadCSV(t)
	if x.Len() != 150000 {
		t.Fatalf("Len = %d, want 150000", x.Len())
	}
	if s := x.Stats(); s.WithCoingecko < 3851 {
		t.Errorf("withCoingecko = %d, want >= 3851", s.WithCoingecko)
	}
	tk, ok := x.Get("11111111111111111111111111111111")
	if !ok || tk.Symbol != "SOL" || tk.CoingeckoID != "solana" ||
		tk.LogoURI != "https://raw.githubusercontent.com/sonarwatch/token-lists/main/images/solana/11111111111111111111111111111111.webp" {
		t.Fatalf("SOL = %+v, %v", tk, ok)
	}
	n := 0
	x.BySymbol("BTC", false, func(ID) bool { n++; return true })
	if n < 100 {
		t.Errorf("exact BTC matches = %d, want >= 100", n)
	}
	// Hangul fillers are gone from the keys: "BOOP" plus a filler is found as BOOP.
	found := false
	x.ByName("BOOP", false, func(id ID) bool { found = found || strings.Contains(x.Name(id), "\u1160"); return true })
	if !found {
		t.Error("a name with a Hangul filler is not found by its plain key")
	}
}
