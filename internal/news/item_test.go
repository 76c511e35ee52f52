package news

import "testing"

func TestCanonicalURL(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"https://www.CoinDesk.com/markets/2026/04/01/story/", "https://www.coindesk.com/markets/2026/04/01/story/", true},
		{"HTTPS://Example.COM:443/A/b?utm_source=rss&utm_medium=feed#frag", "https://example.com/A/b", true},
		{"http://example.com:80", "http://example.com/", true},
		{"http://example.com:8080/x", "http://example.com:8080/x", true},
		{"https://example.com/x?b=2&a=1&fbclid=abc&UTM_Campaign=z&gclid=q", "https://example.com/x?a=1&b=2", true},
		{"https://www.marketscreener.com/news/x/?utm_medium=RSS&utm_content=20221223", "https://www.marketscreener.com/news/x/", true},
		{"https://user:pw@example.com/x", "https://example.com/x", true},
		{"  https://example.com/a b  ", "https://example.com/a%20b", true},
		{"ftp://example.com/x", "", false},
		{"/relative/path", "", false},
		{"javascript:alert(1)", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := CanonicalURL(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("CanonicalURL(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestTitleKey(t *testing.T) {
	tests := map[string]string{
		"Iris Energy’s 160MW of Data Center": "iris energy s 160mw of data center",
		"Iris Energy's 160MW of Data Center": "iris energy s 160mw of data center",
		"  Bitcoin  —  up 5%!  ":             "bitcoin up 5",
		"ÉTÉ Crypto":                         "été crypto",
		"!!!":                                "",
	}
	for in, want := range tests {
		if got := TitleKey(in); got != want {
			t.Errorf("TitleKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanText(t *testing.T) {
	if got := CleanText("\n  Bitcoin\tprice \x00 rises\r\n"); got != "Bitcoin price rises" {
		t.Errorf("CleanText = %q", got)
	}
}

func FuzzCanonicalURL(f *testing.F) {
	for _, s := range []string{"https://example.com/a?utm_source=x&b=1#f", "http://EXAMPLE.com:80", "https://[::1]:443/x", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := CanonicalURL(s)
		if !ok {
			return
		}
		// Canonicalisation is idempotent.
		if c2, ok2 := CanonicalURL(c); !ok2 || c2 != c {
			t.Fatalf("CanonicalURL(%q) = %q, then %q (%v)", s, c, c2, ok2)
		}
	})
}
