package registry

import (
	"strings"
	"testing"

	"github.com/mr-tron/base58"
)

func TestValidMint(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"usdc", mintUSDC, true},
		{"wrapped sol", mintWSOL, true},
		{"system program, 32 zero bytes", mintSystem, true},
		{"44 characters", "A9mUU4qviSctJVPJdBJWkb28deg915LYJKrzQ19ji3FM", true},
		{"vanity suffix", "ZPFtoCe7WWqG4N3ZFRccS8T9SMBeHsd1Vmgv2i7ondo", true},
		{"empty", "", false},
		{"31 ones is 31 bytes", strings.Repeat("1", 31), false},
		{"33 ones is 33 bytes", strings.Repeat("1", 33), false},
		{"too long", mintUSDC + "1", false},
		{"zero is not base58", "0" + mintUSDC[1:], false},
		{"capital O is not base58", "O" + mintUSDC[1:], false},
		{"capital I is not base58", "I" + mintUSDC[1:], false},
		{"lower l is not base58", "l" + mintUSDC[1:], false},
		{"non-ascii", "é" + mintUSDC[2:], false},
		{"lower-cased mint decodes to other length", strings.ToLower(mintUSDC), false},
		{"44 z overflow 32 bytes", strings.Repeat("z", 44), false},
		{"32 x decodes to 24 bytes", strings.Repeat("x", 32), false},
		{"leading ones plus value too long", "1" + mintUSDC, false},
		{"space inside", mintUSDC[:10] + " " + mintUSDC[11:], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidMint(tt.in); got != tt.want {
				t.Errorf("ValidMint(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if got := oracleValidMint(tt.in); got != tt.want {
				t.Errorf("oracle disagrees with the table for %q: %v", tt.in, got)
			}
		})
	}
}

func TestValidMintDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { ValidMint(mintUSDC) }); n != 0 {
		t.Errorf("ValidMint allocates %v times per call", n)
	}
}

func TestLooksLikeMint(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{mintUSDC, true},
		{strings.Repeat("z", 44), true}, // shaped like a mint, even though it is not one
		{strings.Repeat("1", 31), false},
		{"usd", false},
		{"ishares-core-sandp-total-us-stock-market-etf", false},
		{mintUSDC[:40] + "0abc", false},
	}
	for _, tt := range tests {
		if got := looksLikeMint(tt.in); got != tt.want {
			t.Errorf("looksLikeMint(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// oracleValidMint is the reference behaviour: the base58 library decodes the
// text to exactly 32 bytes. Text longer than 44 characters cannot encode 32
// bytes (58^44 > 2^256); the 256-character cap keeps the library's quadratic
// decoder away from the huge inputs a fuzzer generates.
func oracleValidMint(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	b, err := base58.Decode(s)
	return err == nil && len(b) == mintBytes
}

func FuzzValidMint(f *testing.F) {
	for _, s := range []string{
		mintUSDC, mintWSOL, mintSystem, mintUnknown, "", "1", strings.Repeat("1", 33),
		strings.Repeat("z", 44), strings.Repeat("z", 43), strings.Repeat("2", 44),
		"solana-" + mintUSDC, strings.ToLower(mintJUP), "0OIl", "\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ValidMint(s)
		if want := oracleValidMint(s); got != want {
			t.Fatalf("ValidMint(%q) = %v, base58 oracle says %v", s, got, want)
		}
		if got && !looksLikeMint(s) {
			t.Fatalf("valid mint %q is not mint-shaped", s)
		}
		if got && base58.Encode(mustDecode(t, s)) != s {
			t.Fatalf("valid mint %q does not round-trip", s)
		}
	})
}

func mustDecode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base58.Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func BenchmarkValidMint(b *testing.B) {
	for _, bc := range []struct{ name, in string }{
		{"valid44", "A9mUU4qviSctJVPJdBJWkb28deg915LYJKrzQ19ji3FM"},
		{"valid43", mintWSOL},
		{"invalidChar", "0" + mintUSDC[1:]},
		{"tooLong", strings.Repeat("z", 44)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ValidMint(bc.in)
			}
		})
	}
}

func BenchmarkBase58LibraryDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		oracleValidMint("A9mUU4qviSctJVPJdBJWkb28deg915LYJKrzQ19ji3FM")
	}
}
