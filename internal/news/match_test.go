package news

import (
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/registry"
	"github.com/google/go-cmp/cmp"
)

func TestCompileTerms(t *testing.T) {
	got := CompileTerms([]string{" Bitcoin ", "bitcoin", "", "$SOL", "op", "BTC", "btc", "$"})
	want := []Term{{Text: "Bitcoin", lower: "bitcoin"}, {Text: "SOL", lower: "sol", cashtag: true},
		{Text: "op", lower: "op", cashtag: true}, {Text: "BTC", lower: "btc"}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(Term{})); d != "" {
		t.Fatalf("terms (-want +got):\n%s", d)
	}
}

func TestTermMatches(t *testing.T) {
	tests := []struct {
		term, text string
		want       bool
	}{
		{"bitcoin", "Bitcoin hits new high", true},
		{"bitcoin", "bitcoins everywhere", false},
		{"bitcoin", "the #bitcoin tag", true},
		{"bitcoin", "$BITCOIN pump", true},
		{"bitcoin", "localbitcoins clone", false},
		{"sol", "SOL price", true},
		{"sol", "Solana price", false},
		{"sol", "solstice", false},
		{"ada", "Cardano ($ADA) rallies", true},
		{"ada", "ADA rallies", true},
		{"pudgy penguins", "Pudgy Penguins (PENGU) trends", true},
		// Short terms (2 characters or fewer) only as cashtags.
		{"op", "OP token", false},
		{"op", "$OP token", true},
		{"op", "$OPEN token", false}, // not a substring test
		{"op", "$op_x", false},
		{"w", "$W airdrop", true},
		{"w", "w airdrop", false},
		// A leading "$" asks for the cashtag form.
		{"$sol", "SOL price", false},
		{"$sol", "$SOL price", true},
		{"$sol", "$SOLANA", false},
		{"é", "$é", true},
		{"bitcoin", "", false},
	}
	for _, tt := range tests {
		terms := CompileTerms([]string{tt.term})
		if got := terms[0].Matches(strings.ToLower(tt.text)); got != tt.want {
			t.Errorf("%q in %q = %v, want %v", tt.term, tt.text, got, tt.want)
		}
	}
}

func FuzzTermMatches(f *testing.F) {
	f.Add("sol", "$SOL and solana")
	f.Add("op", "$op$op")
	f.Fuzz(func(t *testing.T, term, text string) {
		for _, tm := range CompileTerms([]string{term}) {
			tm.Matches(strings.ToLower(text)) // must not panic
		}
	})
}

func testAssets() []registry.Asset {
	return []registry.Asset{
		{AssetID: "bitcoin", Symbol: "BTC", Name: "Bitcoin", CoinID: "bitcoin", Aliases: []string{"xbt", "btc"}},
		{AssetID: "solana", Symbol: "SOL", Name: "Solana", CoinID: "solana", Aliases: []string{"wrapped sol"}},
		{AssetID: "chainlink", Symbol: "LINK", Name: "Chainlink", CoinID: "chainlink"},
		{AssetID: "wormhole", Symbol: "W", Name: "Wormhole", CoinID: "wormhole"},
		{AssetID: "micron", Symbol: "MU", Name: "Micron Technology", CoinID: "micron-xstock"},
		{AssetID: "near", Symbol: "NEAR", Name: "NEAR Protocol", CoinID: "near"},
		{AssetID: "no-coin", Symbol: "NOPE", Name: "Not Listed"},
	}
}

func TestTagger(t *testing.T) {
	tg := NewTagger(testAssets())
	tests := []struct {
		title, summary string
		want           []string
	}{
		{"Bitcoin and Solana rally", "", []string{"bitcoin", "solana"}},
		{"BTC dips", "", []string{"bitcoin"}},
		{"btc dips", "", []string{"bitcoin"}}, // the lower-case alias
		{"LINK breaks out", "", []string{"chainlink"}},
		{"Click the link below", "more links", nil}, // symbols match case-sensitively
		{"$link holders", "", []string{"chainlink"}},
		{"W is for wallet", "", nil},
		{"$W unlock", "", []string{"wormhole"}},
		{"MU earnings", "", nil},
		{"NEAR Protocol upgrade", "", []string{"near"}},
		{"prices near highs", "", nil},
		{"quiet day", "Solana fees fell", []string{"solana"}},
		{"Not Listed news", "$NOPE", nil}, // no coin id, no tag
	}
	for _, tt := range tests {
		if got := tg.Tag(tt.title, tt.summary); !cmp.Equal(got, tt.want) {
			t.Errorf("Tag(%q, %q) = %v, want %v", tt.title, tt.summary, got, tt.want)
		}
	}
	if !tg.KnownCoin("solana") || tg.KnownCoin("no-coin") || tg.KnownCoin("") {
		t.Error("KnownCoin")
	}
	var nilTagger *Tagger
	if nilTagger.Tag("Bitcoin", "") != nil || nilTagger.KnownCoin("bitcoin") {
		t.Error("nil tagger")
	}
}
