package news

import (
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode"
)

// Feed sources of an item (the spec's feed_source values).
const (
	FeedNews   = "newsprov" // news articles (outlet RSS/Atom feeds)
	FeedSocial = "social"   // social posts (account or hashtag feeds)
)

// Item is one news article or social post.
type Item struct {
	Title  string
	URL    string
	Image  string
	Author string
	// Summary is the description or excerpt; matched, never served.
	Summary  string
	PostedAt time.Time
	// SourceName is the outlet or account shown to clients.
	SourceName string
	// FeedSource is FeedNews or FeedSocial.
	FeedSource string
	// Source is the configured source that produced the item (its feed URL
	// or "demo").
	Source string
	// RelatedCoinIDs are the external coin ids of the registry assets the
	// item mentions (sorted, tagged at ingest).
	RelatedCoinIDs []string
	// FirstSeen is when the service first stored the item.
	FirstSeen time.Time
	// CanonicalURL is the dedupe key (CanonicalURL(URL)).
	CanonicalURL string
}

// trackingParams are query parameters removed by CanonicalURL, besides
// every utm_* parameter.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "dclid": true, "msclkid": true, "mc_cid": true, "mc_eid": true,
	"igshid": true, "yclid": true, "_hsenc": true, "_hsmi": true, "ref_src": true, "ref_url": true,
	"cmpid": true, "ocid": true, "sr_share": true, "s_cid": true, "ito": true,
}

// CanonicalURL returns the dedupe key of an article URL: scheme and host
// lower-cased, default port, fragment and user info dropped, tracking
// parameters (utm_*, fbclid, gclid, ...) removed and the remaining query
// parameters sorted; the path keeps its case. ok is false for anything but
// an absolute http(s) URL.
func CanonicalURL(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // IPv6 literal
	}
	if p := u.Port(); p != "" && !(scheme == "http" && p == "80") && !(scheme == "https" && p == "443") {
		host += ":" + p
	}
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	b.WriteString(path)
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			lk := strings.ToLower(k)
			if strings.HasPrefix(lk, "utm_") || trackingParams[lk] {
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			vs := q[k]
			sort.Strings(vs)
			for j, v := range vs {
				if i == 0 && j == 0 {
					b.WriteByte('?')
				} else {
					b.WriteByte('&')
				}
				b.WriteString(url.QueryEscape(k))
				b.WriteByte('=')
				b.WriteString(url.QueryEscape(v))
			}
		}
	}
	return b.String(), true
}

// TitleKey normalises a title for deduplication: letters and digits
// lower-cased, every run of anything else (punctuation, quotes of any
// style, whitespace) one space, trimmed. "Iris Energy’s" and "Iris
// Energy's" share a key.
func TitleKey(title string) string {
	var b strings.Builder
	b.Grow(len(title))
	space := false
	for _, r := range title {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b.String()
}

// CleanText collapses whitespace runs to one space, drops control
// characters and trims; feed titles often carry newlines and tabs.
func CleanText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
		case unicode.IsControl(r) || r == unicode.ReplacementChar:
		default:
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		}
	}
	return b.String()
}
