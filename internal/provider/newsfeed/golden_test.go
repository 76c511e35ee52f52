package newsfeed_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
	"github.com/assetd/assetd/internal/provider/newsfeed"
	"github.com/assetd/assetd/internal/registry"
	"github.com/google/go-cmp/cmp"
)

// Golden feed tests: the recorded NewsAPI sample (as RSS) and the social
// sample (as Atom) through the adapter, the service (ingest, dedupe,
// tagging with the seed registry) and the feed composition, with a fixed
// clock.

var goldenNow = time.Date(2026, 4, 24, 0, 0, 0, 0, time.UTC)

type dupCounter struct {
	mu   sync.Mutex
	dups map[string]int
}

func (d *dupCounter) Fetched(string, string) {}
func (d *dupCounter) Built(int, int)         {}
func (d *dupCounter) Deduplicated(reason string, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dups[reason] += n
}

// goldenService serves newsDoc and socialDoc (nil: HTTP 404, a failing
// source) and returns a service that has polled both once.
func goldenService(t *testing.T, newsDoc, socialDoc []byte) (*news.Service, *dupCounter) {
	t.Helper()
	mux := http.NewServeMux()
	serve := func(path string, doc []byte) {
		if doc != nil {
			mux.Handle("GET "+path, providertest.Reply(200, nil, string(doc)))
		}
	}
	serve("/news.rss", newsDoc)
	serve("/social.atom", socialDoc)
	srv := providertest.Server(t, mux)
	var sources []news.Source
	for _, s := range []struct{ path, fs string }{{"/news.rss", news.FeedNews}, {"/social.atom", news.FeedSocial}} {
		f, err := newsfeed.New(newsfeed.Config{URL: srv.URL + s.path, FeedSource: s.fs})
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, f)
	}
	seed, err := registry.Seed()
	if err != nil {
		t.Fatal(err)
	}
	obs := &dupCounter{dups: map[string]int{}}
	svc := news.New(news.Config{Sources: sources, Assets: seed.Assets, Now: func() time.Time { return goldenNow },
		Retention: 10 * 365 * 24 * time.Hour, Observer: obs})
	svc.Refresh(context.Background())
	return svc, obs
}

func terms(s ...string) []news.Term { return news.CompileTerms(s) }

func TestGoldenDedupeNewsAPI(t *testing.T) {
	arts := newsAPIArticles(t)
	urls, exact := map[string]bool{}, map[string]bool{}
	for _, a := range arts {
		cu, _ := news.CanonicalURL(a.URL)
		urls[cu], exact[a.Title] = true, true
	}
	if len(arts) != 100 || len(urls) != 99 || len(exact) != 75 {
		t.Fatalf("sample: %d rows, %d canonical URLs, %d titles; want 100, 99, 75", len(arts), len(urls), len(exact))
	}
	svc, obs := goldenService(t, newsAPIRSS(t, arts), []byte(`<feed xmlns="http://www.w3.org/2005/Atom"><title>empty</title></feed>`))
	// 75 exact titles are 74 normalised ones (a curly and a straight
	// apostrophe): 100 rows keep 74 stories, the earliest of each.
	n, s, _ := svc.Snapshot().Counts()
	if n != 74 || s != 0 || obs.dups["url"] != 1 || obs.dups["title"] != 25 {
		t.Fatalf("kept %d news, %d social; dropped %v; want 74, 0, url 1 title 25", n, s, obs.dups)
	}
	r := svc.Snapshot().Feed(news.Query{Limit: news.MaxLimit, Select: news.SelectNews})
	if r.NewsCandidates != 74 || len(r.Items) != 50 {
		t.Fatalf("global: %d candidates, %d items", r.NewsCandidates, len(r.Items))
	}
	// Newest first; a syndicated copy never replaces the earliest one.
	if !slices.IsSortedFunc(r.Items, func(a, b news.Item) int { return b.PostedAt.Compare(a.PostedAt) }) {
		t.Error("not newest first")
	}
	first := r.Items[0]
	if first.Title != "Russia Close To Legalizing International Trade In Bitcoin, Crypto: Head Of Finance Committee" ||
		first.SourceName != "Bitcoin Magazine" || !cmp.Equal(first.RelatedCoinIDs, []string{"bitcoin"}) || first.FeedSource != news.FeedNews {
		t.Errorf("newest: %+v", first)
	}
}

func TestGoldenTerms(t *testing.T) {
	svc, _ := goldenService(t, newsAPIRSS(t, newsAPIArticles(t)), redditAtom(t, redditPosts(t)))
	n, s, _ := svc.Snapshot().Counts()
	if n != 74 || s != 183 {
		t.Fatalf("kept %d news, %d social; want 74, 183", n, s)
	}
	tests := []struct {
		name            string
		q               news.Query
		nNews, nSocial  int
		items, inSocial int
	}{
		// Word matching over title, summary, source name and author, plus
		// items tagged with the coin id "bitcoin" (a post saying only
		// "BTC" is tagged bitcoin through the registry's alias). The
		// reference's matcher (title, source, author; no dedupe, no tags)
		// counts 11 and 47.
		{"terms=bitcoin", news.Query{Limit: 10, Select: news.SelectAll, Reserve: 3, Terms: terms("bitcoin")}, 12, 57, 10, 3},
		// "sol" is a word in neither file ("Solana" is not "sol").
		{"terms=sol", news.Query{Limit: 10, Select: news.SelectAll, Reserve: 3, Terms: terms("sol")}, 0, 0, 0, 0},
		// Terms of 2 characters or fewer only as cashtags: "US" and "to"
		// are words in dozens of titles, "$US" and "$to" in none.
		{"terms=us,to (short: cashtag only)", news.Query{Limit: 10, Select: news.SelectAll, Reserve: 3, Terms: terms("us", "to")}, 0, 0, 0, 0},
		// "ada" is 3 characters: a word ("Additional ADA After"), so the
		// cashtag form finds nothing.
		{"terms=ada", news.Query{Limit: 10, Select: news.SelectNews, Terms: terms("ada")}, 2, 0, 2, 0},
		{"terms=$ada", news.Query{Limit: 10, Select: news.SelectNews, Terms: terms("$ada")}, 0, 0, 0, 0},
		// Token mode without coin_id: only matching news (the reference
		// returned global news here); the 1 social match fills the rest.
		{"terms=solana", news.Query{Limit: 10, Select: news.SelectAll, Reserve: 3, Terms: terms("solana")}, 0, 1, 1, 1},
		{"coin_id=bitcoin", news.Query{Limit: 50, Select: news.SelectAll, Reserve: 3, CoinID: "bitcoin", Terms: terms("bitcoin")}, 12, 57, 50, 38},
		// Unknown coin id: no news, matching social posts still appear.
		{"unknown coin_id + symbol=BTC", news.Query{Limit: 10, Select: news.SelectAll, Reserve: 3, CoinID: "not-a-coin",
			Terms: terms("BTC", "not-a-coin")}, 0, 18, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := svc.Snapshot().Feed(tt.q)
			social := 0
			for _, it := range r.Items {
				if it.FeedSource == news.FeedSocial {
					social++
				}
			}
			if r.Mode != news.ModeToken || r.NewsCandidates != tt.nNews || r.SocialCandidates != tt.nSocial || len(r.Items) != tt.items || social != tt.inSocial {
				t.Errorf("candidates %d/%d, items %d (%d social); want %d/%d, %d (%d)", r.NewsCandidates, r.SocialCandidates,
					len(r.Items), social, tt.nNews, tt.nSocial, tt.items, tt.inSocial)
			}
			for _, it := range r.Items {
				if !related(it, tt.q) {
					t.Errorf("unrelated item %q", it.Title)
				}
			}
		})
	}
}

// related reports whether an item mentions a query term or coin.
func related(it news.Item, q news.Query) bool {
	if q.CoinID != "" && slices.Contains(it.RelatedCoinIDs, q.CoinID) {
		return true
	}
	text := strings.ToLower(it.Title + "\n" + it.Summary + "\n" + it.SourceName + "\n" + it.Author)
	for _, t := range q.Terms {
		if t.Matches(text) {
			return true
		}
	}
	return false
}

func TestGoldenReserveAndBackfill(t *testing.T) {
	q := news.Query{Limit: 10, Select: news.SelectAll, Reserve: 3}
	count := func(items []news.Item) (n, s int) {
		for _, it := range items {
			if it.FeedSource == news.FeedSocial {
				s++
			} else {
				n++
			}
		}
		return n, s
	}
	t.Run("both", func(t *testing.T) {
		svc, _ := goldenService(t, newsAPIRSS(t, newsAPIArticles(t)), redditAtom(t, redditPosts(t)))
		r := svc.Snapshot().Feed(q)
		// 2026 posts are newer than 2022 news: the 3 reserved posts lead.
		if n, s := count(r.Items); n != 7 || s != 3 || r.Items[0].FeedSource != news.FeedSocial || r.Items[3].FeedSource != news.FeedNews {
			t.Errorf("news %d, social %d, order %v", n, s, r.Items)
		}
	})
	t.Run("social source failing", func(t *testing.T) {
		svc, _ := goldenService(t, newsAPIRSS(t, newsAPIArticles(t)), nil)
		r := svc.Snapshot().Feed(q)
		if n, s := count(r.Items); n != 10 || s != 0 || r.Reserve != 3 {
			t.Errorf("news %d, social %d (reserve %d)", n, s, r.Reserve)
		}
		var social news.SourceStatus
		for _, st := range svc.Sources() {
			if st.FeedSource == news.FeedSocial {
				social = st
			}
		}
		if social.Status != news.StatusDegraded || social.Reason != "upstream_error" {
			t.Errorf("social health: %+v", social)
		}
	})
	t.Run("news source failing", func(t *testing.T) {
		svc, _ := goldenService(t, nil, redditAtom(t, redditPosts(t)))
		r := svc.Snapshot().Feed(q)
		if n, s := count(r.Items); n != 0 || s != 10 {
			t.Errorf("news %d, social %d", n, s)
		}
	})
}
