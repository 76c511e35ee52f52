package extprovider

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
	"github.com/google/go-cmp/cmp"
)

func TestNewsOASExample(t *testing.T) {
	example := oasExample(t, "GET /news")
	var pages atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/api/v3/news" || q.Get("per_page") != "20" || q.Get("language") != "en" || q.Get("type") != "news" ||
			r.Header.Get(ProKeyHeader) != testKey {
			t.Errorf("request %s %v", r.URL, r.Header)
		}
		pages.Add(1)
		if q.Get("page") == "1" {
			_, _ = w.Write(example)
			return
		}
		_, _ = w.Write([]byte("[]")) // page 2 is empty: the last one read
	}), func(c *Config) { c.APIKey, c.Pro = testKey, true })
	f := c.News()
	got, err := f.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The guide (type "guide") is dropped; the provider's coin ids are not
	// kept (the service tags from the registry).
	want := []news.Item{{Title: "European Union debates limits on Big Tech access to cloud tenders",
		URL:    "https://cryptobriefing.com/eu-big-tech-cloud-tender-limits/",
		Image:  "https://assets.coingecko.com/articles/images/107301317/large/open-uri20260527-7-l3llje.?1779877857",
		Author: "Editorial Team", PostedAt: utc("2026-05-27T10:27:57Z"), SourceName: "Crypto Briefing"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	if pages.Load() != 2 || f.FeedSource() != news.FeedNews || f.Name() != "extprovider:/news" {
		t.Errorf("pages %d, source %s %s", pages.Load(), f.FeedSource(), f.Name())
	}
}

func TestNewsErrors(t *testing.T) {
	c := newClient(t, providertest.Reply(429, map[string]string{"Retry-After": "60"}, ""), nil)
	_, err := c.News().Fetch(context.Background())
	var rl *market.RateLimitedError
	if !errors.As(err, &rl) {
		t.Errorf("429: %v", err)
	}
	c = newClient(t, providertest.Reply(200, nil, `{"error":"plan"}`), nil)
	if _, err := c.News().Fetch(context.Background()); !errors.Is(err, market.ErrMalformed) {
		t.Errorf("object instead of a list: %v", err)
	}
	// A later page failing keeps the first.
	c = newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "1" {
			_, _ = w.Write([]byte(`[{"title":"t","url":"https://e.test/1","type":"news","posted_at":"2026-05-01T00:00:00Z"}]`))
			return
		}
		w.WriteHeader(500)
	}), nil)
	if items, err := c.News().Fetch(context.Background()); err != nil || len(items) != 1 {
		t.Errorf("partial: %d items, %v", len(items), err)
	}
}
