// Package newsfeed is the RSS/Atom adapter of the news feed: it fetches
// one feed URL with its own HTTP client (conditional requests with ETag
// and If-Modified-Since, a size cap, per-host politeness) or reads an
// operator's file:// document, parses it with gofeed (parse only) and maps
// the entries onto news.Item. The same adapter serves news outlets
// (feed_source "newsprov") and public social account or hashtag feeds
// (feed_source "social": Bluesky profile RSS, Mastodon tag RSS/Atom).
//
// Error contract of Fetch: news.ErrNotModified on HTTP 304 or an
// unchanged file; a *market.RateLimitedError on HTTP 429; an error
// wrapping market.ErrMalformed for a document gofeed cannot parse (counted
// by Malformed, nothing ingested); an error wrapping market.ErrUpstream
// for transport failures, timeouts and other non-2xx answers.
package newsfeed

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/ctxwait"
	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
	"github.com/mmcdole/gofeed/rss"
)

// Defaults.
const (
	DefaultMaxBody = 4 << 20
	// DefaultHostGap is the least time between two requests to one host.
	DefaultHostGap = 2 * time.Second
	userAgent      = "assetd-news/1 (+https://github.com/assetd/assetd)"
	// socialTitleMax bounds a social post's title built from its text.
	socialTitleMax = 280
)

// Config configures one feed.
type Config struct {
	// URL is the feed: http(s):// or file://.
	URL string
	// FeedSource is news.FeedNews (default) or news.FeedSocial.
	FeedSource string
	// HTTPClient performs requests (nil: a client without timeout; the
	// caller's context bounds each fetch).
	HTTPClient *http.Client
	// Hosts spaces requests to one host across feeds (nil: no spacing).
	Hosts   *Hosts
	MaxBody int64
	Logger  *slog.Logger
	Now     func() time.Time
}

// Feed is one polled feed. Safe for concurrent use, though the news
// service calls Fetch from one goroutine.
type Feed struct {
	url, feedSource string
	u               *url.URL
	hc              *http.Client
	hosts           *Hosts
	maxBody         int64
	log             *slog.Logger
	now             func() time.Time

	mu           sync.Mutex
	etag         string
	lastModified string
	fileMod      time.Time

	malformed atomic.Int64
}

// New validates cfg and returns a Feed.
func New(cfg Config) (*Feed, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil {
		return nil, fmt.Errorf("newsfeed: %q: %w", cfg.URL, err)
	}
	switch {
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
	case u.Scheme == "file" && u.Path != "":
	default:
		return nil, fmt.Errorf("newsfeed: %q must be an absolute http(s):// or file:// URL", cfg.URL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("newsfeed: %q must not carry user info", cfg.URL)
	}
	fs := cfg.FeedSource
	if fs == "" {
		fs = news.FeedNews
	}
	if fs != news.FeedNews && fs != news.FeedSocial {
		return nil, fmt.Errorf("newsfeed: feed source %q is not %s or %s", fs, news.FeedNews, news.FeedSocial)
	}
	f := &Feed{url: u.String(), feedSource: fs, u: u, hc: cfg.HTTPClient, hosts: cfg.Hosts,
		maxBody: cfg.MaxBody, log: cfg.Logger, now: cfg.Now}
	if f.hc == nil {
		f.hc = &http.Client{}
	}
	if f.maxBody <= 0 {
		f.maxBody = DefaultMaxBody
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if f.now == nil {
		f.now = time.Now
	}
	return f, nil
}

// Name is the feed URL.
func (f *Feed) Name() string { return f.url }

// FeedSource is news.FeedNews or news.FeedSocial.
func (f *Feed) FeedSource() string { return f.feedSource }

// Malformed counts documents that failed to parse.
func (f *Feed) Malformed() int64 { return f.malformed.Load() }

// Fetch returns the feed's items (see the package error contract).
func (f *Feed) Fetch(ctx context.Context) ([]news.Item, error) {
	if f.u.Scheme == "file" {
		return f.fetchFile()
	}
	return f.fetchHTTP(ctx)
}

func (f *Feed) fetchFile() ([]news.Item, error) {
	st, err := os.Stat(f.u.Path)
	if err != nil {
		return nil, fmt.Errorf("newsfeed: %s: %w: %w", f.url, market.ErrUpstream, err)
	}
	f.mu.Lock()
	same := !f.fileMod.IsZero() && st.ModTime().Equal(f.fileMod)
	f.mu.Unlock()
	if same {
		return nil, news.ErrNotModified
	}
	if st.Size() > f.maxBody {
		return nil, upstream.Malformed("newsfeed", f.url, fmt.Errorf("file exceeds %d bytes", f.maxBody))
	}
	body, err := os.ReadFile(f.u.Path)
	if err != nil {
		return nil, fmt.Errorf("newsfeed: %s: %w: %w", f.url, market.ErrUpstream, err)
	}
	items, err := f.parse(body)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.fileMod = st.ModTime()
	f.mu.Unlock()
	return items, nil
}

func (f *Feed) fetchHTTP(ctx context.Context) ([]news.Item, error) {
	if err := f.hosts.Wait(ctx, f.u.Host); err != nil {
		return nil, fmt.Errorf("newsfeed: %s: %w: %w", f.url, market.ErrUpstream, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return nil, fmt.Errorf("newsfeed: %s: %w", f.url, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.1")
	f.mu.Lock()
	if f.etag != "" {
		req.Header.Set("If-None-Match", f.etag)
	}
	if f.lastModified != "" {
		req.Header.Set("If-Modified-Since", f.lastModified)
	}
	f.mu.Unlock()
	resp, err := f.hc.Do(req)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("newsfeed: %s: %w: %w", f.url, market.ErrUpstream, cerr)
		}
		return nil, fmt.Errorf("newsfeed: %s: %w: %w", f.url, market.ErrUpstream, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return nil, news.ErrNotModified
	case resp.StatusCode == http.StatusTooManyRequests:
		ra := upstream.ParseRetryAfter(resp.Header.Get("Retry-After"), f.now())
		return nil, fmt.Errorf("newsfeed: %s: %w", f.url, &market.RateLimitedError{RetryAfter: ra})
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, fmt.Errorf("newsfeed: %s: HTTP %d: %w", f.url, resp.StatusCode, market.ErrUpstream)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBody+1))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return nil, fmt.Errorf("newsfeed: %s: read body: %w: %w", f.url, market.ErrUpstream, err)
	}
	if int64(len(body)) > f.maxBody {
		f.malformed.Add(1)
		return nil, upstream.Malformed("newsfeed", f.url, fmt.Errorf("body exceeds %d bytes", f.maxBody))
	}
	items, err := f.parse(body)
	if err != nil {
		return nil, err
	}
	// Validators are kept only for a document that parsed, so a broken
	// answer is fetched again in full next time.
	f.mu.Lock()
	f.etag, f.lastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	f.mu.Unlock()
	return items, nil
}

// parse maps a document onto items; entries without a usable link or
// title are skipped.
func (f *Feed) parse(body []byte) ([]news.Item, error) {
	p := gofeed.NewParser()
	p.KeepOriginalFeed = true
	doc, err := p.Parse(bytes.NewReader(body))
	if err != nil {
		f.malformed.Add(1)
		f.log.Warn("news feed document malformed; skipped", "feed", f.url, "err", err)
		return nil, upstream.Malformed("newsfeed", f.url, err)
	}
	sources := itemSources(doc)
	out := make([]news.Item, 0, len(doc.Items))
	skipped := 0
	for i, it := range doc.Items {
		item, ok := f.mapItem(doc, it)
		if !ok {
			skipped++
			continue
		}
		if i < len(sources) && sources[i] != "" {
			item.SourceName = sources[i]
		}
		out = append(out, item)
	}
	if skipped > 0 {
		f.log.Debug("news feed entries skipped", "feed", f.url, "skipped", skipped)
	}
	return out, nil
}

// itemSources returns the per-entry source titles (RSS <source>, Atom
// <source><title>) of aggregator feeds, aligned with doc.Items.
func itemSources(doc *gofeed.Feed) []string {
	switch o := doc.OriginalFeed().(type) {
	case *rss.Feed:
		if len(o.Items) != len(doc.Items) {
			return nil
		}
		out := make([]string, len(o.Items))
		for i, it := range o.Items {
			if it.Source != nil {
				out[i] = strings.TrimSpace(it.Source.Title)
			}
		}
		return out
	case *atom.Feed:
		if len(o.Entries) != len(doc.Items) {
			return nil
		}
		out := make([]string, len(o.Entries))
		for i, e := range o.Entries {
			if e.Source != nil {
				out[i] = strings.TrimSpace(e.Source.Title)
			}
		}
		return out
	}
	return nil
}

func (f *Feed) mapItem(doc *gofeed.Feed, it *gofeed.Item) (news.Item, bool) {
	link := strings.TrimSpace(it.Link)
	if link == "" && isHTTPURL(it.GUID) {
		link = strings.TrimSpace(it.GUID)
	}
	if !isHTTPURL(link) {
		return news.Item{}, false
	}
	summary := news.CleanText(StripHTML(it.Description))
	if summary == "" {
		summary = news.CleanText(StripHTML(it.Content))
	}
	title := news.CleanText(StripHTML(it.Title))
	if title == "" && f.feedSource == news.FeedSocial {
		// Bluesky and Mastodon post feeds have no titles: the text is the
		// post.
		title = truncate(summary, socialTitleMax)
	}
	if title == "" {
		return news.Item{}, false
	}
	item := news.Item{Title: title, URL: link, Summary: summary, SourceName: news.CleanText(doc.Title),
		Author: author(it), Image: image(it)}
	if it.PublishedParsed != nil {
		item.PostedAt = it.PublishedParsed.UTC()
	} else if it.UpdatedParsed != nil {
		item.PostedAt = it.UpdatedParsed.UTC()
	}
	return item, true
}

func author(it *gofeed.Item) string {
	for _, p := range it.Authors {
		if p != nil && strings.TrimSpace(p.Name) != "" {
			return news.CleanText(p.Name)
		}
	}
	if dc := it.DublinCoreExt; dc != nil {
		for _, c := range dc.Creator {
			if strings.TrimSpace(c) != "" {
				return news.CleanText(c)
			}
		}
	}
	return ""
}

func image(it *gofeed.Item) string {
	if it.Image != nil && isHTTPURL(it.Image.URL) {
		return strings.TrimSpace(it.Image.URL)
	}
	if media, ok := it.Extensions["media"]; ok {
		for _, name := range []string{"thumbnail", "content"} {
			for _, e := range media[name] {
				if u := e.Attrs["url"]; isHTTPURL(u) {
					return strings.TrimSpace(u)
				}
			}
		}
	}
	return ""
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// StripHTML removes tags and decodes entities (feed descriptions are HTML
// fragments).
func StripHTML(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return html.UnescapeString(b.String())
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := strings.ToValidUTF8(s[:n], "")
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return cut + "…"
}

// Hosts spaces requests to the same host: each Wait reserves the host's
// next slot, Gap after the previous one. The zero value is unusable; a
// nil *Hosts never waits.
type Hosts struct {
	gap  time.Duration
	now  func() time.Time
	mu   sync.Mutex
	next map[string]time.Time
}

// NewHosts returns a gate with gap between requests to one host (now nil:
// time.Now).
func NewHosts(gap time.Duration, now func() time.Time) *Hosts {
	if now == nil {
		now = time.Now
	}
	return &Hosts{gap: gap, now: now, next: map[string]time.Time{}}
}

// Wait blocks until host's reserved slot (nil) or ctx's end (its error).
func (h *Hosts) Wait(ctx context.Context, host string) error {
	if h == nil || h.gap <= 0 {
		return nil
	}
	host = strings.ToLower(host)
	h.mu.Lock()
	now := h.now()
	slot := h.next[host]
	if slot.Before(now) {
		slot = now
	}
	h.next[host] = slot.Add(h.gap)
	h.mu.Unlock()
	d := slot.Sub(now)
	if d <= 0 {
		return nil // its turn now, whatever ctx says
	}
	return ctxwait.Sleep(ctx, d)
}
