package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/assetd/assetd/internal/demo"
	"github.com/assetd/assetd/internal/metrics"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/provider/extprovider"
	"github.com/assetd/assetd/internal/provider/newsfeed"
	"github.com/assetd/assetd/internal/registry"
)

// defaultNewsFeeds are the public RSS feeds of well-known crypto outlets
// polled in real mode when --news-feed is not given (docs/news.md). They
// need no key; operators should check them at deploy time, since outlets
// move feeds.
var defaultNewsFeeds = []string{
	"https://www.coindesk.com/arc/outboundfeeds/rss/",
	"https://cointelegraph.com/rss",
	"https://decrypt.co/feed",
	"https://bitcoinmagazine.com/feed",
	"https://www.theblock.co/rss.xml",
	"https://cryptoslate.com/feed/",
}

// feedList is a repeatable flag of feed URLs that also takes comma lists
// (ASSETD_NEWS_FEED / ASSETD_SOCIAL_FEED apply through ff when the flag is
// not given).
type feedList struct {
	urls []string
	set  bool
}

func (l *feedList) add(s string) {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			l.urls = append(l.urls, p)
		}
	}
}

func (l *feedList) String() string { return strings.Join(l.urls, ",") }

// Set adds URLs; "none" replaces the list, and URLs given after it
// replace "none".
func (l *feedList) Set(s string) error {
	if !l.set || isNone(l.urls) {
		l.urls, l.set = nil, true
	}
	if strings.EqualFold(strings.TrimSpace(s), "none") {
		l.urls = nil
	}
	l.add(s)
	return nil
}

// newsFlags select the news feed's sources.
type newsFlags struct {
	feeds  feedList // --news-feed: empty means the defaults, "none" disables
	social feedList // --social-feed: empty or "none" disables
}

// resolve returns the news and social feed URLs the flags select (nil:
// that feed source is disabled).
func (f newsFlags) resolve() (newsURLs, socialURLs []string) {
	newsURLs = f.feeds.urls
	if len(newsURLs) == 0 {
		newsURLs = defaultNewsFeeds
	}
	if isNone(newsURLs) {
		newsURLs = nil
	}
	if !isNone(f.social.urls) {
		socialURLs = f.social.urls
	}
	return newsURLs, socialURLs
}

func isNone(urls []string) bool { return len(urls) == 1 && strings.EqualFold(urls[0], "none") }

// validate checks every URL (and that "none" stands alone).
func (f newsFlags) validate() error {
	for _, fl := range []struct {
		name string
		urls []string
	}{{"--news-feed", f.feeds.urls}, {"--social-feed", f.social.urls}} {
		if isNone(fl.urls) {
			continue
		}
		for _, u := range fl.urls {
			if _, err := newsfeed.New(newsfeed.Config{URL: u}); err != nil {
				return fmt.Errorf("%s %q must be an absolute http(s):// or file:// URL, or none", fl.name, u)
			}
		}
	}
	return nil
}

// newNewsService builds the news service: the simulated feeds with --demo
// (memory only, never stored), else the configured RSS/Atom feeds, stored
// in st.
func newNewsService(cfg serveConfig, snap *registry.Snapshot, st news.Store, m *metrics.Metrics, log *slog.Logger, leader func() bool) (*news.Service, error) {
	nc := news.Config{Assets: snap.Assets(), Log: log, Observer: newsMetrics{m}}
	if cfg.demo {
		nc.Sources = []news.Source{demo.NewNewsFeed(news.FeedNews, snap.Assets(), nil), demo.NewNewsFeed(news.FeedSocial, snap.Assets(), nil)}
		if n, so := cfg.news.resolve(); (len(cfg.news.feeds.urls) > 0 && len(n) > 0) || len(so) > 0 {
			log.Warn("--demo serves the simulated news feed; --news-feed and --social-feed are ignored")
		}
		log.Warn("news feed is SIMULATED: --demo serves synthetic articles and posts")
		return news.New(nc), nil
	}
	nc.Store = st
	nc.Leader = leader
	hosts := newsfeed.NewHosts(newsfeed.DefaultHostGap, nil)
	hc := &http.Client{}
	newsURLs, socialURLs := cfg.news.resolve()
	counts := map[string]int{}
	for _, set := range []struct {
		fs   string
		urls []string
	}{{news.FeedNews, newsURLs}, {news.FeedSocial, socialURLs}} {
		for _, u := range set.urls {
			f, err := newsfeed.New(newsfeed.Config{URL: u, FeedSource: set.fs, HTTPClient: hc, Hosts: hosts, Logger: log})
			if err != nil {
				return nil, err
			}
			nc.Sources = append(nc.Sources, f)
			counts[set.fs]++
		}
	}
	// The external provider's /news needs a paid-plan (pro) key.
	if cfg.market.extKey != "" && cfg.market.extPro {
		c, err := extprovider.New(extprovider.Config{BaseURL: cfg.market.extURL, APIKey: cfg.market.extKey, Pro: true, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("extprovider news: %w", err)
		}
		nc.Sources = append(nc.Sources, c.News())
		counts[news.FeedNews]++
	}
	for _, fs := range []string{news.FeedNews, news.FeedSocial} {
		if counts[fs] == 0 {
			nc.Disabled = append(nc.Disabled, fs)
		}
	}
	log.Info("news feed sources", "news", counts[news.FeedNews], "social", counts[news.FeedSocial])
	return news.New(nc), nil
}

// newsMetrics records the news service's measurements.
type newsMetrics struct{ m *metrics.Metrics }

func (n newsMetrics) Fetched(fs, outcome string) { n.m.NewsFetches.WithLabelValues(fs, outcome).Inc() }

func (n newsMetrics) Deduplicated(reason string, k int) {
	n.m.NewsDeduplicated.WithLabelValues(reason).Add(float64(k))
}

func (n newsMetrics) Built(newsItems, social int) {
	n.m.NewsItems.WithLabelValues(news.FeedNews).Set(float64(newsItems))
	n.m.NewsItems.WithLabelValues(news.FeedSocial).Set(float64(social))
}
