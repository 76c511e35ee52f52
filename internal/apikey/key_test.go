package apikey

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestGenerateAndLookup(t *testing.T) {
	plain, hash, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain, Prefix) || len(plain) != len(Prefix)+64 || !WellFormed(plain) {
		t.Fatalf("plaintext %q has the wrong shape", plain)
	}
	if strings.Contains(hash, plain[len(Prefix):]) || len(hash) != 64 {
		t.Fatalf("hash %q", hash)
	}
	other, otherHash, _ := Generate()
	revoked := time.Now()
	idx, err := NewIndex([]Key{{ID: "a", Hash: hash}, {ID: "b", Hash: otherHash, RevokedAt: &revoked}})
	if err != nil {
		t.Fatal(err)
	}
	if k := idx.Lookup(plain); k == nil || k.ID != "a" {
		t.Fatalf("Lookup(active) = %v", k)
	}
	for _, s := range []string{other, "", "adk_", plain[:len(plain)-1], strings.ToUpper(plain), plain + "0"} {
		if k := idx.Lookup(s); k != nil {
			t.Errorf("Lookup(%q) = %s; want nil", s, k.ID)
		}
	}
	if idx.Len() != 1 {
		t.Errorf("Len = %d; revoked keys must not be indexed", idx.Len())
	}
	if _, err := NewIndex([]Key{{ID: "bad", Hash: "zz"}}); err == nil {
		t.Error("malformed hash accepted")
	}
}

func TestParseScopes(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", []string{ScopeAssetsRead, ScopeExecutionRead}, true},
		{"assets:read,execution:read", []string{ScopeAssetsRead, ScopeExecutionRead}, true},
		{"assets:read", []string{ScopeAssetsRead}, true},
		{" assets:read , assets:risk:read,assets:read ", []string{ScopeAssetsRead, ScopeRiskRead}, true},
		{"trades:write", []string{ScopeTradesWrite}, true},
		{",", []string{ScopeAssetsRead, ScopeExecutionRead}, true},
		{"assets:write", nil, false},
		{"assets:read,ASSETS:READ", nil, false},
	}
	for _, c := range cases {
		got, err := ParseScopes(c.in)
		if (err == nil) != c.ok || (c.ok && !slices.Equal(got, c.want)) {
			t.Errorf("ParseScopes(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzWellFormed(f *testing.F) {
	p, _, _ := Generate()
	for _, s := range []string{p, "", "adk_", "adk_" + strings.Repeat("g", 64)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if WellFormed(s) && (len(s) != 68 || !strings.HasPrefix(s, Prefix) || strings.ToLower(s) != s) {
			t.Fatalf("WellFormed(%q) = true", s)
		}
	})
}

func BenchmarkLookup(b *testing.B) {
	keys := make([]Key, 10000)
	var plain string
	for i := range keys {
		p, h, _ := Generate()
		keys[i] = Key{ID: NewID("key_"), Hash: h}
		if i == 5000 {
			plain = p
		}
	}
	idx, _ := NewIndex(keys)
	b.ReportAllocs()
	for b.Loop() {
		if idx.Lookup(plain) == nil {
			b.Fatal("miss")
		}
	}
}
