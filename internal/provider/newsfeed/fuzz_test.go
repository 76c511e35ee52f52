package newsfeed

import (
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/news"
)

// FuzzParse feeds arbitrary documents to the parser and the mapping: no
// panic, and every item has an http(s) link and a title.
func FuzzParse(f *testing.F) {
	f.Add(`<rss version="2.0"><channel><title>t</title><item><title>a &amp; b</title><link>https://e.test/1</link></item></channel></rss>`)
	f.Add(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><title></title><link href="https://e.test/2"/><summary>&lt;p&gt;x</summary></entry></feed>`)
	f.Add(`<rss><channel><item><description>` + strings.Repeat("é", 300) + `</description><guid>https://e.test/3</guid></item></channel></rss>`)
	f.Add(`{"version":"https://jsonfeed.org/version/1.1","items":[{"url":"https://e.test/4","content_text":"x"}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		for _, fs := range []string{news.FeedNews, news.FeedSocial} {
			feed, err := New(Config{URL: "https://e.test/feed", FeedSource: fs})
			if err != nil {
				t.Fatal(err)
			}
			items, err := feed.parse([]byte(doc))
			if err != nil {
				continue
			}
			for _, it := range items {
				if it.Title == "" || !isHTTPURL(it.URL) {
					t.Fatalf("item without title or link: %+v", it)
				}
			}
		}
	})
}
