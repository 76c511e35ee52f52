// Package metadata validates token metadata that comes from outside the
// project (token index files, the token metadata provider, list member
// snapshots) before it is stored or served. Every path that stores or
// serves a symbol, name or logo URI of an unverified token calls Clean, so
// one rule set holds everywhere.
//
// The rules: invalid UTF-8 is replaced, NUL and every other control
// character (C0, DEL, C1), the bidirectional formatting characters
// (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069), the zero-width
// and invisible ones (U+200B..U+200D, U+2060..U+2064, U+FEFF) and the
// noncharacters (U+FDD0..U+FDEF, U+FFFE and U+FFFF of every plane) are
// removed, runs of white space collapse to one space and the ends are
// trimmed; symbols are cut to MaxSymbolRunes characters, names to
// MaxNameRunes, and neither to more than MaxFieldBytes bytes; a logo URI
// must be an absolute https: or http: URL with a host that is neither a
// local name (localhost, *.localhost) nor a loopback, private, link-local,
// shared or unspecified address (nor a number a browser reads as one, such
// as 2130706433 or 127.1), at most MaxURIBytes bytes, without any removed
// character or white space, else it is dropped; decimals outside
// 0..MaxDecimals are dropped.
package metadata

import (
	"net/netip"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Caps.
const (
	MaxSymbolRunes = 32
	MaxNameRunes   = 100
	// MaxFieldBytes bounds the UTF-8 size of a symbol or name.
	MaxFieldBytes = 255
	MaxURIBytes   = 2048
	MaxDecimals   = 18
)

// Token is the metadata of one token.
type Token struct {
	Symbol   string
	Name     string
	LogoURI  string
	Decimals *int
}

// Clean returns t with every field validated (see the package comment).
func Clean(t Token) Token {
	return Token{Symbol: Symbol(t.Symbol), Name: Name(t.Name), LogoURI: LogoURI(t.LogoURI), Decimals: Decimals(t.Decimals)}
}

// Symbol cleans a token symbol.
func Symbol(s string) string { return text(s, MaxSymbolRunes) }

// Name cleans a token name.
func Name(s string) string { return text(s, MaxNameRunes) }

// Decimals returns d when it is within 0..MaxDecimals, else nil.
func Decimals(d *int) *int {
	if d == nil || *d < 0 || *d > MaxDecimals {
		return nil
	}
	return d
}

// LogoURI returns s when it is an absolute https: or http: URL with a
// public host and without unsafe characters or white space, else "".
func LogoURI(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > MaxURIBytes || !utf8.ValidString(s) {
		return ""
	}
	if strings.IndexFunc(s, func(r rune) bool { return Unsafe(r) || unicode.IsSpace(r) }) >= 0 {
		return ""
	}
	if host, ok := plainHTTPS(s); ok {
		if localHost(host) {
			return ""
		}
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || localHost(u.Hostname()) {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http":
		return s
	}
	return ""
}

// plainHTTPS returns the host when s is https:// followed by a host of
// [a-z0-9.-] (no user info, no port) and then nothing or a path: the
// common case, accepted without a full parse.
func plainHTTPS(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		return "", false
	}
	host, _, _ := strings.Cut(rest, "/")
	if host == "" {
		return "", false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return "", false
		}
	}
	return host, true
}

// localHost reports whether a URI's host (without brackets or port) names
// this machine or a non-public network: localhost and *.localhost
// (RFC 6761), a loopback, private (RFC 1918, fc00::/7), link-local,
// shared (100.64.0.0/10), "this network" (0.0.0.0/8), multicast or
// unspecified address, IPv4-mapped IPv6 included, or a host whose last
// label is a number but which is not a dotted-quad address (a browser
// reads "2130706433", "0x7f.1" and "127.1" as IPv4 addresses).
func localHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "" || h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		a = a.Unmap()
		return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
			a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() ||
			a.Is4() && (a.As4()[0] == 0 || a.As4()[0] == 100 && a.As4()[1]&0xC0 == 64)
	}
	last := h[strings.LastIndexByte(h, '.')+1:]
	return numericLabel(last)
}

// numericLabel reports whether a host's last label is a number in the
// WHATWG URL host parser's sense (decimal, or hex after 0x), which makes
// the host an IPv4 address to a browser.
func numericLabel(l string) bool {
	if rest, ok := strings.CutPrefix(l, "0x"); ok {
		l = rest
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	if l == "" {
		return false
	}
	for i := 0; i < len(l); i++ {
		if c := l[i]; c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Unsafe reports whether r is removed from symbols and names: control,
// bidi, zero-width and invisible characters, noncharacters and the
// replacement of invalid UTF-8.
func Unsafe(r rune) bool {
	return unicode.IsControl(r) || isBidi(r) || isInvisible(r) || isNoncharacter(r) || r == utf8.RuneError
}

// isInvisible: zero-width space, non-joiner and joiner, word joiner, the
// invisible operators and the byte order mark (zero-width no-break space).
func isInvisible(r rune) bool {
	return r >= 0x200B && r <= 0x200D || r >= 0x2060 && r <= 0x2064 || r == 0xFEFF
}

// isNoncharacter: U+FDD0..U+FDEF and the last two code points of every
// plane (U+FFFE, U+FFFF, U+1FFFE, ...).
func isNoncharacter(r rune) bool {
	return r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE && r <= unicode.MaxRune
}

func isBidi(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// text removes unsafe characters, collapses white space, trims and cuts
// to maxRunes characters and MaxFieldBytes bytes. Clean input is
// returned without allocating.
func text(s string, maxRunes int) string {
	if clean(s, maxRunes) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), MaxFieldBytes))
	n, space := 0, false
	for _, r := range s { // invalid UTF-8 arrives as RuneError and is dropped
		if Unsafe(r) {
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if n+1+boolInt(space) > maxRunes || b.Len()+utf8.RuneLen(r)+boolInt(space) > MaxFieldBytes {
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// clean reports whether s passes unchanged: valid, within the caps, no
// unsafe characters, single inner spaces, no space at the ends.
func clean(s string, maxRunes int) bool {
	if len(s) > MaxFieldBytes {
		return false
	}
	n := 0
	prevSpace := true // a leading space is not clean
	for _, r := range s {
		if Unsafe(r) {
			return false
		}
		sp := unicode.IsSpace(r)
		if sp && (prevSpace || r != ' ') {
			return false
		}
		prevSpace = sp
		n++
	}
	return n <= maxRunes && !(n > 0 && prevSpace)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
