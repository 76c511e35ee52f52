package httpapi

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/ratelimit"
	"github.com/assetd/assetd/internal/registry"
	"github.com/google/go-cmp/cmp"
)

type newsResp struct {
	Items []struct {
		Title          string   `json:"title"`
		URL            string   `json:"url"`
		Image          string   `json:"image"`
		Author         string   `json:"author"`
		PostedAt       string   `json:"posted_at"`
		Type           string   `json:"type"`
		SourceName     string   `json:"source_name"`
		RelatedCoinIDs []string `json:"related_coin_ids"`
		FeedSource     string   `json:"feed_source"`
	} `json:"items"`
	Meta struct {
		Mode         string   `json:"mode"`
		Source       string   `json:"source"`
		CoinID       *string  `json:"coin_id"`
		Terms        []string `json:"terms"`
		Limit        int      `json:"limit"`
		TweetReserve int      `json:"tweet_reserve"`
		Counts       struct {
			Items               int `json:"items"`
			CoingeckoCandidates int `json:"coingecko_candidates"`
			XCandidates         int `json:"x_candidates"`
		} `json:"counts"`
		Sources []struct {
			Name        string  `json:"name"`
			FeedSource  string  `json:"feed_source"`
			Status      string  `json:"status"`
			LastSuccess *string `json:"last_success"`
			Reason      string  `json:"reason"`
			Items       int     `json:"items"`
		} `json:"sources"`
		Simulated bool `json:"simulated"`
	} `json:"meta"`
}

// staticSource answers with fixed synthetic items.
type staticSource struct {
	name, fs string
	items    []news.Item
}

func (s staticSource) Name() string       { return s.name }
func (s staticSource) FeedSource() string { return s.fs }
func (s staticSource) Fetch(context.Context) ([]news.Item, error) {
	return s.items, nil
}

// hangingSource never answers, whatever its context says.
type hangingSource struct {
	entered, release chan struct{}
	once             sync.Once
}

func (h *hangingSource) Name() string       { return "https://hang.example.test/rss" }
func (h *hangingSource) FeedSource() string { return news.FeedNews }
func (h *hangingSource) Fetch(context.Context) ([]news.Item, error) {
	h.once.Do(func() { close(h.entered) })
	<-h.release
	return nil, fmt.Errorf("released")
}

type newsObserver struct{ built chan [2]int }

func (o newsObserver) Fetched(string, string)   {}
func (o newsObserver) Deduplicated(string, int) {}
func (o newsObserver) Built(n, s int) {
	select {
	case o.built <- [2]int{n, s}:
	default:
	}
}

var newsT0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func synthItems(fs string, titles ...string) []news.Item {
	var out []news.Item
	for i, t := range titles {
		out = append(out, news.Item{Title: t, URL: fmt.Sprintf("https://%s.example.test/%d", fs, i), Author: "synthetic",
			PostedAt: newsT0.Add(time.Duration(i) * time.Minute), SourceName: "Synthetic " + fs})
	}
	return out
}

// newsHarness runs a news service over synthetic sources and a source that
// hangs forever; it returns once the working sources are ingested.
func newsHarness(t *testing.T) (*harness, *atomic.Int64, *hangingSource) {
	t.Helper()
	h := newHarness(t, ratelimit.Policy{})
	var clock atomic.Int64
	clock.Store(h.now.UnixNano())
	now := func() time.Time { return time.Unix(0, clock.Load()).UTC() }
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	hang := &hangingSource{entered: make(chan struct{}), release: make(chan struct{})}
	obs := newsObserver{built: make(chan [2]int, 8)}
	svc := news.New(news.Config{Sources: []news.Source{
		staticSource{"https://news.example.test/rss", news.FeedNews, synthItems("news", "Bitcoin ETF flows rise", "Macro week ahead", "Solana validators upgrade")},
		staticSource{"https://social.example.test/rss", news.FeedSocial, synthItems("social", "$BTC looks strong", "gm everyone")},
		hang,
	}, Disabled: nil, Assets: seed.Assets, Now: now, After: func(time.Duration) <-chan time.Time { return nil },
		FetchTimeout: 30 * time.Second, Observer: obs})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); close(hang.release); <-done })
	deadline := time.After(30 * time.Second)
	for ingested := false; !ingested; {
		select {
		case got := <-obs.built:
			ingested = got == [2]int{3, 2}
		case <-deadline:
			t.Fatal("sources not ingested")
		}
	}
	<-hang.entered
	h.srv.d.News = svc
	h.h = h.srv.build(nil)
	return h, &clock, hang
}

func TestNewsFeedWhileASourceHangs(t *testing.T) {
	h, clock, _ := newsHarness(t)
	r := h.get(t, "/v1/news/feed")
	if r.status != 200 || r.header.Get("Cache-Control") != "no-store" || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	var out newsResp
	decodeStrict(t, r, &out)
	var titles []string
	for _, it := range out.Items {
		titles = append(titles, it.FeedSource+": "+it.Title)
	}
	// Newest first; equal times list news first.
	want := []string{"newsprov: Solana validators upgrade", "newsprov: Macro week ahead", "social: gm everyone",
		"newsprov: Bitcoin ETF flows rise", "social: $BTC looks strong"}
	if d := cmp.Diff(want, titles); d != "" {
		t.Errorf("items (-want +got):\n%s", d)
	}
	first := out.Items[0]
	if first.URL != "https://news.example.test/2" || first.PostedAt != "2026-11-21T10:02:00Z" || first.Type != "news" ||
		first.Image != "" || first.Author != "synthetic" || first.SourceName != "Synthetic news" || !cmp.Equal(first.RelatedCoinIDs, []string{"solana"}) {
		t.Errorf("item: %+v", first)
	}
	if out.Items[1].RelatedCoinIDs == nil || len(out.Items[1].RelatedCoinIDs) != 0 {
		t.Errorf("untagged item: related_coin_ids %v, want []", out.Items[1].RelatedCoinIDs)
	}
	m := out.Meta
	if m.Mode != "global" || m.Source != "all" || m.CoinID != nil || len(m.Terms) != 0 || m.Limit != 10 || m.TweetReserve != 3 ||
		m.Counts.Items != 5 || m.Counts.CoingeckoCandidates != 3 || m.Counts.XCandidates != 2 || m.Simulated {
		t.Errorf("meta: %+v", m)
	}
	health := func(out newsResp) map[string]string {
		s := map[string]string{}
		for _, src := range out.Meta.Sources {
			s[src.Name] = src.Status + "/" + src.Reason
			if (src.Status == "ok") != (src.LastSuccess != nil) {
				t.Errorf("%s: status %s, last_success %v", src.Name, src.Status, src.LastSuccess)
			}
		}
		return s
	}
	wantHealth := map[string]string{"https://news.example.test/rss": "ok/", "https://social.example.test/rss": "ok/",
		"https://hang.example.test/rss": "degraded/never_fetched"}
	if d := cmp.Diff(wantHealth, health(out)); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	// Past the fetch timeout the hanging source says so; the feed still
	// answers from memory.
	clock.Add(int64(31 * time.Second))
	r = h.get(t, "/v1/news/feed?source=news&limit=2")
	out = newsResp{}
	decodeStrict(t, r, &out)
	wantHealth["https://hang.example.test/rss"] = "degraded/running_too_long"
	if d := cmp.Diff(wantHealth, health(out)); d != "" {
		t.Errorf("sources after the timeout (-want +got):\n%s", d)
	}
	if len(out.Items) != 2 || out.Meta.TweetReserve != 0 || out.Meta.Counts.XCandidates != 0 {
		t.Errorf("news only: %+v", out.Meta)
	}
}

func TestNewsFeedTokenMode(t *testing.T) {
	h, _, _ := newsHarness(t)
	tests := []struct {
		path       string
		want       []string
		coin       string
		terms      []string
		nNews, nSo int
	}{
		{"/v1/news/feed?coin_id=bitcoin", []string{"Bitcoin ETF flows rise", "$BTC looks strong"}, "bitcoin", []string{"bitcoin"}, 1, 1},
		// Terms without coin_id: only matching news, never global news.
		{"/v1/news/feed?symbol=SOL&name=Solana", []string{"Solana validators upgrade"}, "", []string{"Solana", "SOL"}, 1, 0},
		// Unknown coin id: no news; matching social posts still appear.
		{"/v1/news/feed?coin_id=no-such-coin&symbol=BTC", []string{"$BTC looks strong"}, "no-such-coin", []string{"BTC", "no-such-coin"}, 0, 1},
		// "gm" is short: only "$gm" would match.
		{"/v1/news/feed?term=macro&term=MACRO&terms=gm,%20week", []string{"Macro week ahead"}, "", []string{"macro", "gm", "week"}, 1, 0},
		{"/v1/news/feed?asset_id=solana&source=tweets", []string{}, "", []string{"solana"}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := h.get(t, tt.path)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			var out newsResp
			decodeStrict(t, r, &out)
			got := []string{}
			for _, it := range out.Items {
				got = append(got, it.Title)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
			coin := ""
			if out.Meta.CoinID != nil {
				coin = *out.Meta.CoinID
			}
			if out.Meta.Mode != "token" || coin != tt.coin || !cmp.Equal(out.Meta.Terms, tt.terms) ||
				out.Meta.Counts.CoingeckoCandidates != tt.nNews || out.Meta.Counts.XCandidates != tt.nSo {
				t.Errorf("meta: %+v", out.Meta)
			}
		})
	}
}

func TestNewsFeedParams(t *testing.T) {
	h := newHarness(t, ratelimit.Policy{})
	long := fmt.Sprintf("%0101d", 0)
	many := "/v1/news/feed?terms="
	for i := range 21 {
		many += fmt.Sprintf("t%d,", i)
	}
	tests := []struct {
		path    string
		status  int
		limit   int
		reserve int
		source  string
	}{
		{"/v1/news/feed", 200, 10, 3, "all"},
		{"/v1/news/feed?limit=500", 200, 50, 3, "all"},
		{"/v1/news/feed?limit=2", 200, 2, 2, "all"},
		{"/v1/news/feed?limit=20&tweet_reserve=99", 200, 20, 20, "all"},
		{"/v1/news/feed?source=tweets&tweet_reserve=0", 200, 10, 10, "tweets"},
		{"/v1/news/feed?source=news", 200, 10, 0, "news"},
		// Integers out of range clamp (docs/errors.md); non-integers are 400.
		{"/v1/news/feed?limit=0", 200, 1, 1, "all"},
		{"/v1/news/feed?limit=-5&tweet_reserve=-1", 200, 1, 0, "all"},
		{"/v1/news/feed?limit=99999999999999999999", 200, 50, 3, "all"},
		{"/v1/news/feed?limit=ten", 400, 0, 0, ""},
		{"/v1/news/feed?tweet_reserve=1.5", 400, 0, 0, ""},
		{"/v1/news/feed?source=x", 400, 0, 0, ""},
		{"/v1/news/feed?term=" + long, 400, 0, 0, ""},
		{many, 400, 0, 0, ""},
	}
	for _, tt := range tests {
		r := h.get(t, tt.path)
		if r.status != tt.status {
			t.Errorf("%.60s: %d %s", tt.path, r.status, r.raw)
			continue
		}
		if tt.status != 200 {
			if errTag(r) != "BadRequestError" || errCode(r) != "invalid_param" {
				t.Errorf("%.60s: %s", tt.path, r.raw)
			}
			continue
		}
		// No news service: an empty feed, not an error.
		var out newsResp
		decodeStrict(t, r, &out)
		if len(out.Items) != 0 || out.Meta.Limit != tt.limit || out.Meta.TweetReserve != tt.reserve || out.Meta.Source != tt.source ||
			out.Meta.Mode != "global" || out.Meta.Sources == nil {
			t.Errorf("%s: %+v", tt.path, out.Meta)
		}
	}
	// Scope: assets:read.
	if r := h.do(t, "GET", "/v1/news/feed", nil, nil); r.status != 401 {
		t.Errorf("no key: %d", r.status)
	}
	if r := h.getAs(t, "none", "/v1/news/feed"); r.status != 403 {
		t.Errorf("key without assets:read: %d", r.status)
	}
}
