package analytics

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/registry"
)

func TestValidAddressMatchesRegistry(t *testing.T) {
	pow := func(e uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), e) }
	if got := b58(pow(256).Bytes()); got != b58Pow256 {
		t.Fatalf("b58(2^256) = %s, constant %s", got, b58Pow256)
	}
	if got := b58(pow(248).Bytes()); got != b58Pow248 {
		t.Fatalf("b58(2^248) = %s, constant %s", got, b58Pow248)
	}
	one := big.NewInt(1)
	cases := []string{
		"", "1", strings.Repeat("1", 32), strings.Repeat("1", 33), strings.Repeat("z", 44), strings.Repeat("z", 45),
		b58Pow256, b58(new(big.Int).Sub(pow(256), one).Bytes()),
		b58Pow248, b58(new(big.Int).Sub(pow(248), one).Bytes()),
		"1" + b58(new(big.Int).Sub(pow(248), one).Bytes()),
		"11" + b58(new(big.Int).Sub(pow(240), one).Bytes()),
		"So11111111111111111111111111111111111111112",
		"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		"0PjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
		"EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1",
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		n := 30 + rng.IntN(16)
		var sb strings.Builder
		for i := range n {
			if i < 3 && rng.IntN(4) == 0 {
				sb.WriteByte('1')
				continue
			}
			sb.WriteByte(b58Alphabet[rng.IntN(58)])
		}
		cases = append(cases, sb.String())
		b := make([]byte, 28+rng.IntN(6))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if rng.IntN(5) == 0 {
			b[0] = 0
		}
		cases = append(cases, b58(b))
	}
	valid := 0
	for _, s := range cases {
		want := registry.ValidMint(s)
		if got := validAddress(s); got != want {
			t.Errorf("validAddress(%q) = %v, registry.ValidMint = %v", s, got, want)
		}
		if want {
			valid++
		}
	}
	if valid < 3000 {
		t.Errorf("only %d valid cases", valid)
	}
}

func TestBase58Byte(t *testing.T) {
	for c := range 256 {
		if got, want := base58Byte[c] == 1, strings.IndexByte(b58Alphabet, byte(c)) >= 0; got != want {
			t.Errorf("base58Byte[%q] = %v", rune(c), got)
		}
	}
}

func FuzzValidAddress(f *testing.F) {
	f.Add(b58Pow256)
	f.Add(b58Pow248)
	f.Add("So11111111111111111111111111111111111111112")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validAddress(s), registry.ValidMint(s); got != want {
			t.Fatalf("validAddress(%q) = %v, registry.ValidMint = %v", s, got, want)
		}
	})
}
