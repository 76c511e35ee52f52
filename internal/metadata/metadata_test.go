package metadata

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSymbolAndName(t *testing.T) {
	for _, tc := range []struct{ in, sym, name string }{
		{"USDC", "USDC", "USDC"},
		{"US\x00DC", "USDC", "USDC"},
		{"  Wrapped   SOL \t", "Wrapped SOL", "Wrapped SOL"},
		{"\u202eCDSU", "CDSU", "CDSU"},                               // right-to-left override
		{"US\u2066DC\u2069", "USDC", "USDC"},                         // isolates
		{"a\x1bb\x7fc\u0085d", "abcd", "abcd"},                       // ESC, DEL, C1
		{"bad\xffutf8", "badutf8", "badutf8"},                        // invalid UTF-8
		{"Tether\u200b U\u200bS\u200bD", "Tether USD", "Tether USD"}, // zero-width space
		{"US\u200cD\u200dC", "USDC", "USDC"},                         // zero-width non-joiner, joiner
		{"\ufeffUS\u2060DC", "USDC", "USDC"},                         // BOM, word joiner
		{"US\u2061D\u2064C", "USDC", "USDC"},                         // invisible operators
		{"USDC\ufffe\uffff", "USDC", "USDC"},                         // noncharacters
		{"US\ufdd0DC\U0001fffe", "USDC", "USDC"},                     // noncharacters beyond the BMP's last two
		{"US \u200b DC", "US DC", "US DC"},                           // a removed character between spaces leaves one
		{strings.Repeat("x", 40), strings.Repeat("x", 32), strings.Repeat("x", 40)},
		{strings.Repeat("é", 120), strings.Repeat("é", 32), strings.Repeat("é", 100)},
		{strings.Repeat("😀", 100), strings.Repeat("😀", 32), strings.Repeat("😀", 63)}, // 255-byte cap
	} {
		if got := Symbol(tc.in); got != tc.sym {
			t.Errorf("Symbol(%q) = %q, want %q", tc.in, got, tc.sym)
		}
		if got := Name(tc.in); got != tc.name {
			t.Errorf("Name(%q) = %q, want %q", tc.in, got, tc.name)
		}
	}
}

func TestLogoURI(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.org/a.png":       "https://example.org/a.png",
		" http://example.org/a.png ":      "http://example.org/a.png",
		"javascript:alert(1)":             "",
		"data:image/png;base64,AAAA":      "",
		"ipfs://Qm123":                    "",
		"//example.org/a.png":             "",
		"https://u:p@example.org/a.png":   "",
		"https://example.org/a\x00.png":   "",
		"https://example.org/a b.png":     "",
		"https://example.org/a\u200b.png": "",
		"https://example.org/a\ufeff.png": "",
		"https://example.org/a\uffff.png": "",
		// loopback, private, link-local, unspecified and local names
		"https://127.0.0.1/a.png":          "",
		"http://127.8.9.10:8080/a.png":     "",
		"https://10.1.2.3/a.png":           "",
		"https://172.16.0.1/a.png":         "",
		"https://172.31.255.255/a.png":     "",
		"https://192.168.1.1/a.png":        "",
		"https://169.254.169.254/latest":   "",
		"https://0.0.0.0/a.png":            "",
		"https://[::1]/a.png":              "",
		"https://[::]/a.png":               "",
		"https://[fc00::1]/a.png":          "",
		"https://[fd12:3456::1]/a.png":     "",
		"https://[fe80::1]/a.png":          "",
		"https://[::ffff:127.0.0.1]/a.png": "",
		"https://[::ffff:10.0.0.1]/a.png":  "",
		"https://localhost/a.png":          "",
		"http://LOCALHOST:3000/a.png":      "",
		"https://localhost./a.png":         "",
		"https://img.localhost/a.png":      "",
		"https://2130706433/a.png":         "", // 127.0.0.1 in a browser's reading
		"https://0x7f.1/a.png":             "",
		"https://127.1/a.png":              "",
		"https://%31%32%37.0.0.1/a.png":    "",
		// public addresses and names stay
		"https://172.32.0.1/a.png":             "https://172.32.0.1/a.png",
		"https://8.8.8.8/a.png":                "https://8.8.8.8/a.png",
		"https://[2606:4700::1111]/a.png":      "https://[2606:4700::1111]/a.png",
		"https://localhost.example.org/a.png":  "https://localhost.example.org/a.png",
		"https://cdn.example/10.0.0.1.png":     "https://cdn.example/10.0.0.1.png",
		"https://" + strings.Repeat("a", 3000): "",
		"":                                     "",
	} {
		if got := LogoURI(in); got != want {
			t.Errorf("LogoURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecimals(t *testing.T) {
	for _, d := range []int{-1, 19, 255} {
		if Decimals(&d) != nil {
			t.Errorf("Decimals(%d) kept", d)
		}
	}
	d := 9
	if p := Decimals(&d); p == nil || *p != 9 {
		t.Error("Decimals(9) dropped")
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"USDC", "a\x00b", "\u202e x  y ", strings.Repeat("é", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, got := range []string{Symbol(s), Name(s)} {
			if !utf8.ValidString(got) || len(got) > MaxFieldBytes || strings.IndexFunc(got, Unsafe) >= 0 ||
				got != strings.TrimSpace(got) || strings.Contains(got, "  ") {
				t.Fatalf("unclean output %q for %q", got, s)
			}
			if Symbol(got) != got && len([]rune(got)) <= MaxSymbolRunes {
				t.Fatalf("not idempotent: %q", got)
			}
		}
	})
}
