package newsfeed_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
	"github.com/assetd/assetd/internal/provider/newsfeed"
	"github.com/google/go-cmp/cmp"
)

func newFeed(t *testing.T, url, fs string) *newsfeed.Feed {
	t.Helper()
	f, err := newsfeed.New(newsfeed.Config{URL: url, FeedSource: fs})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func find(t *testing.T, items []news.Item, titlePrefix string) news.Item {
	t.Helper()
	for _, it := range items {
		if strings.HasPrefix(it.Title, titlePrefix) {
			return it
		}
	}
	t.Fatalf("no item titled %q...", titlePrefix)
	return news.Item{}
}

func TestFieldMapping(t *testing.T) {
	doc := newsAPIRSS(t, newsAPIArticles(t))
	srv := providertest.Server(t, providertest.Reply(200, map[string]string{"Content-Type": "application/rss+xml"}, string(doc)))
	items, err := newFeed(t, srv.URL+"/rss", news.FeedNews).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 100 {
		t.Fatalf("%d items, want 100", len(items))
	}
	got := find(t, items, "Russia Close To Legalizing")
	want := news.Item{
		Title:      "Russia Close To Legalizing International Trade In Bitcoin, Crypto: Head Of Finance Committee",
		URL:        "https://bitcoinmagazine.com/legal/russia-international-trade-bitcoin-january",
		Image:      "https://bitcoinmagazine.com/.image/t_share/MTk0NjQ3MTEzMDg1MjMyMjkw/20160313_moscow_russia.jpg",
		Author:     "Namcios",
		Summary:    "The head of the State Duma finance committee reportedly said Russia will legalize the use of cryptocurrency for international trade in January 2023.",
		PostedAt:   time.Date(2022, 12, 23, 13, 26, 36, 0, time.UTC),
		SourceName: "Bitcoin Magazine",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mapping (-want +got):\n%s", d)
	}
	// A null author and a null image map to "".
	if it := find(t, items, "FTX founder Sam Bankman-Fried to be rele"); it.Author != "" || it.Image == "" || it.SourceName != "Euronews" {
		t.Errorf("null author: %+v", it)
	}
	if it := find(t, items, "Will Elon Musk Bankrupt Twitter?"); it.Image != "" || it.Author != "Annie Lowrey" {
		t.Errorf("null image: %+v", it)
	}
}

func TestAtomSocialFeed(t *testing.T) {
	posts := redditPosts(t)
	srv := providertest.Server(t, providertest.Reply(200, nil, string(redditAtom(t, posts))))
	f := newFeed(t, srv.URL, news.FeedSocial)
	items, err := f.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != len(posts) || len(items) != 183 {
		t.Fatalf("%d items, want %d", len(items), len(posts))
	}
	it := items[0]
	if it.Title != posts[0].Title || it.URL != posts[0].URL || it.SourceName != "Reddit" || it.Author != "" || it.Image != "" ||
		it.PostedAt.Format(time.RFC3339) != "2026-04-07T23:00:30Z" {
		t.Errorf("first post: %+v", it)
	}
	if f.FeedSource() != news.FeedSocial || f.Name() != srv.URL {
		t.Errorf("source %q name %q", f.FeedSource(), f.Name())
	}
}

// Social account feeds (Bluesky profile RSS, Mastodon tag RSS) carry the
// post text in the description and no title: the text becomes the title.
func TestUntitledSocialPosts(t *testing.T) {
	const doc = `<?xml version="1.0"?><rss version="2.0"><channel><title>@example.test - synthetic account</title>
<item><link>https://social.example.test/p/1</link><description>&lt;p&gt;Synthetic post about &lt;b&gt;$SOL&lt;/b&gt; &amp;amp; fees&lt;/p&gt;</description><pubDate>Mon, 06 Apr 2026 10:00:00 +0000</pubDate></item>
<item><description>no link: skipped</description></item>
</channel></rss>`
	srv := providertest.Server(t, providertest.Reply(200, nil, doc))
	items, err := newFeed(t, srv.URL, news.FeedSocial).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Title != "Synthetic post about $SOL & fees" || items[0].SourceName != "@example.test - synthetic account" {
		t.Fatalf("items: %+v", items)
	}
	// The same document as a news feed has no usable entry.
	items, err = newFeed(t, srv.URL, news.FeedNews).Fetch(context.Background())
	if err != nil || len(items) != 0 {
		t.Fatalf("news: %d items, %v", len(items), err)
	}
}

func TestConditionalGet(t *testing.T) {
	doc := newsAPIRSS(t, newsAPIArticles(t)[:3])
	var full, notModified atomic.Int32
	var bytesSent atomic.Int64
	srv := providertest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` && r.Header.Get("If-Modified-Since") == "Fri, 23 Dec 2022 13:30:00 GMT" {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		full.Add(1)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Fri, 23 Dec 2022 13:30:00 GMT")
		n, _ := w.Write(doc)
		bytesSent.Add(int64(n))
	}))
	f := newFeed(t, srv.URL, news.FeedNews)
	if items, err := f.Fetch(context.Background()); err != nil || len(items) != 3 {
		t.Fatalf("first fetch: %d items, %v", len(items), err)
	}
	sent := bytesSent.Load()
	for range 3 {
		items, err := f.Fetch(context.Background())
		if !errors.Is(err, news.ErrNotModified) || items != nil {
			t.Fatalf("conditional fetch: %d items, %v; want ErrNotModified", len(items), err)
		}
	}
	if full.Load() != 1 || notModified.Load() != 3 || bytesSent.Load() != sent {
		t.Errorf("full %d, 304s %d, body bytes after the first %d", full.Load(), notModified.Load(), bytesSent.Load()-sent)
	}
}

func TestMalformedCountedAndSkipped(t *testing.T) {
	var conditional atomic.Int32
	srv := providertest.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") != "" {
			conditional.Add(1)
		}
		w.Header().Set("ETag", `"broken"`)
		_, _ = w.Write([]byte(`<?xml version="1.0"?><rss version="2.0"><channel><item><title>cut`))
	}))
	f := newFeed(t, srv.URL, news.FeedNews)
	for i := range 2 {
		items, err := f.Fetch(context.Background())
		if !errors.Is(err, market.ErrMalformed) || items != nil {
			t.Fatalf("fetch %d: %d items, %v; want ErrMalformed", i, len(items), err)
		}
	}
	if f.Malformed() != 2 || conditional.Load() != 0 {
		t.Errorf("malformed %d (want 2), conditional requests %d (want 0: a broken answer's ETag is not kept)", f.Malformed(), conditional.Load())
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		h     http.Handler
		check func(*testing.T, error)
	}{
		{"429", providertest.Reply(429, map[string]string{"Retry-After": "120"}, ""), providertest.WantRateLimited(2 * time.Minute)},
		{"500", providertest.Reply(500, nil, "oops"), providertest.WantIs(market.ErrUpstream)},
		{"404", providertest.Reply(404, nil, ""), providertest.WantIs(market.ErrUpstream)},
		{"html", providertest.Reply(200, nil, "<html><body>not a feed</body></html>"), providertest.WantIs(market.ErrMalformed)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := providertest.Server(t, tt.h)
			_, err := newFeed(t, srv.URL, news.FeedNews).Fetch(context.Background())
			tt.check(t, err)
		})
	}
}

func TestCallerDeadline(t *testing.T) {
	srv := providertest.Server(t, providertest.Blocking(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	_, err := newFeed(t, srv.URL, news.FeedNews).Fetch(ctx)
	if !errors.Is(err, market.ErrUpstream) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrUpstream + DeadlineExceeded", err)
	}
}

func TestFileFeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "feed.xml")
	if err := os.WriteFile(path, newsAPIRSS(t, newsAPIArticles(t)[:5]), 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFeed(t, "file://"+path, news.FeedNews)
	if items, err := f.Fetch(context.Background()); err != nil || len(items) != 5 {
		t.Fatalf("file: %d items, %v", len(items), err)
	}
	if _, err := f.Fetch(context.Background()); !errors.Is(err, news.ErrNotModified) {
		t.Fatalf("unchanged file: %v, want ErrNotModified", err)
	}
}

func TestNewRefuses(t *testing.T) {
	for _, u := range []string{"", "ftp://x/y", "https://", "/relative", "https://user:pw@example.com/feed"} {
		if _, err := newsfeed.New(newsfeed.Config{URL: u}); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
	if _, err := newsfeed.New(newsfeed.Config{URL: "https://example.com/feed", FeedSource: "x"}); err == nil {
		t.Error("unknown feed source accepted")
	}
}

func TestHostsSpacing(t *testing.T) {
	now := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	h := newsfeed.NewHosts(time.Hour, func() time.Time { return now })
	ctx := context.Background()
	if err := h.Wait(ctx, "a.example"); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	// The same host must wait an hour: only the cancelled context ends it.
	if err := h.Wait(cancelled, "A.example"); !errors.Is(err, context.Canceled) {
		t.Fatalf("second request to the host: %v, want a wait", err)
	}
	// Another host goes at once.
	if err := h.Wait(cancelled, "b.example"); err != nil {
		t.Fatalf("other host: %v", err)
	}
	var nilHosts *newsfeed.Hosts
	if err := nilHosts.Wait(cancelled, "a.example"); err != nil {
		t.Fatal(err)
	}
}

func TestStripHTML(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                          "plain",
		"<p>a &amp; b</p>":               " a & b ",
		"x<br/>y":                        "x y",
		"&lt;script&gt; stays as text":   "<script> stays as text",
		`<a href="https://e.test">l</a>`: " l ",
	} {
		if got := newsfeed.StripHTML(in); got != want {
			t.Errorf("StripHTML(%q) = %q, want %q", in, got, want)
		}
	}
}
