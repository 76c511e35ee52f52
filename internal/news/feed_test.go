package news

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)

// item builds a synthetic item published minutes after t0.
func item(fs string, minutes int, title string, coins ...string) Item {
	u := fmt.Sprintf("https://%s.example.test/%d", fs, minutes)
	cu, _ := CanonicalURL(u)
	return Item{Title: title, URL: u, CanonicalURL: cu, FeedSource: fs, PostedAt: t0.Add(time.Duration(minutes) * time.Minute),
		SourceName: "Synthetic " + fs, RelatedCoinIDs: coins}
}

func titles(items []Item) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Title)
	}
	return out
}

func TestDedupe(t *testing.T) {
	a := item(FeedNews, 10, "Bitcoin rallies")
	b := item(FeedNews, 20, "Bitcoin Rallies!") // same story 10 min later
	b.URL, b.CanonicalURL = "https://other.example.test/b", "https://other.example.test/b"
	c := item(FeedNews, 30, "Different")
	c2 := c                                                           // same canonical URL, seen again
	c2.Title, c2.FirstSeen = "Different, retitled", t0.Add(time.Hour) // seen later
	late := item(FeedNews, 10+49*60, "Bitcoin rallies")               // 49 h later: a new story
	kept, st := Dedupe([]Item{late, c2, b, c, a})
	if d := cmp.Diff([]string{"Bitcoin rallies", "Different", "Bitcoin rallies"}, titles(kept)); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if kept[0].URL != a.URL || st != (DedupeStats{URL: 1, Title: 1}) || st.Total() != 2 {
		t.Errorf("kept %v, stats %+v", kept[0].URL, st)
	}
}

// feedSnapshot has 4 news and 6 social items, newest last in each list.
func feedSnapshot() *Snapshot {
	items := []Item{
		item(FeedNews, 1, "Bitcoin ETF flows", "bitcoin"),
		item(FeedNews, 3, "Solana fees fall", "solana"),
		item(FeedNews, 5, "Macro outlook for the week"),
		item(FeedNews, 7, "BTC miners sell", "bitcoin"),
		item(FeedSocial, 2, "gm"),
		item(FeedSocial, 4, "$SOL looks strong", "solana"),
		item(FeedSocial, 6, "bitcoin to the moon", "bitcoin"),
		item(FeedSocial, 8, "new post about nothing"),
		item(FeedSocial, 9, "Bitcoin again", "bitcoin"),
		item(FeedSocial, 10, "$sol again", "solana"),
	}
	return NewSnapshot(items, NewTagger(testAssets()))
}

func TestFeed(t *testing.T) {
	s := feedSnapshot()
	tests := []struct {
		name     string
		q        Query
		want     []string
		mode     string
		reserve  int
		nNews    int
		nSocial  int
		wantNone bool
	}{
		{name: "global all: reserve 3 social + news, newest first",
			q:    Query{Limit: 5, Select: SelectAll, Reserve: 3},
			want: []string{"$sol again", "Bitcoin again", "new post about nothing", "BTC miners sell", "Macro outlook for the week"},
			mode: ModeGlobal, reserve: 3, nNews: 4, nSocial: 6},
		{name: "global news only",
			q:    Query{Limit: 2, Select: SelectNews, Reserve: 3},
			want: []string{"BTC miners sell", "Macro outlook for the week"}, mode: ModeGlobal, reserve: 0, nNews: 4},
		{name: "global tweets only",
			q:    Query{Limit: 2, Select: SelectTweets, Reserve: 0},
			want: []string{"$sol again", "Bitcoin again"}, mode: ModeGlobal, reserve: 2, nSocial: 6},
		{name: "reserve 0 backfills from social when news runs short",
			q: Query{Limit: 6, Select: SelectAll, Reserve: 0},
			want: []string{"$sol again", "Bitcoin again", "BTC miners sell", "Macro outlook for the week",
				"Solana fees fall", "Bitcoin ETF flows"},
			mode: ModeGlobal, reserve: 0, nNews: 4, nSocial: 6},
		{name: "reserve clamps to limit",
			q:    Query{Limit: 2, Select: SelectAll, Reserve: 9},
			want: []string{"$sol again", "Bitcoin again"}, mode: ModeGlobal, reserve: 2, nNews: 4, nSocial: 6},
		{name: "token: coin id and term",
			q:    Query{Limit: 10, Select: SelectAll, Reserve: 3, CoinID: "bitcoin", Terms: CompileTerms([]string{"bitcoin"})},
			want: []string{"Bitcoin again", "BTC miners sell", "bitcoin to the moon", "Bitcoin ETF flows"},
			mode: ModeToken, reserve: 3, nNews: 2, nSocial: 2},
		{name: "token without coin id returns no unrelated news",
			q:    Query{Limit: 10, Select: SelectNews, Terms: CompileTerms([]string{"solana"})},
			want: []string{"Solana fees fall"}, mode: ModeToken, nNews: 1},
		{name: "short term only as cashtag",
			q:    Query{Limit: 10, Select: SelectAll, Reserve: 3, Terms: CompileTerms([]string{"sol"})},
			want: []string{"$sol again", "$SOL looks strong"}, mode: ModeToken, reserve: 3, nSocial: 2},
		{name: "unknown coin id: no news, matching social still appears",
			q:    Query{Limit: 10, Select: SelectAll, Reserve: 3, CoinID: "no-such-coin", Terms: CompileTerms([]string{"no-such-coin", "bitcoin"})},
			want: []string{"Bitcoin again", "bitcoin to the moon"}, mode: ModeToken, reserve: 3, nSocial: 2},
		{name: "term equal to a related coin id",
			q:    Query{Limit: 10, Select: SelectTweets, Terms: CompileTerms([]string{"SOLANA"})},
			want: []string{"$sol again", "$SOL looks strong"}, mode: ModeToken, reserve: 10, nSocial: 2},
		{name: "no match", q: Query{Limit: 10, Select: SelectAll, Reserve: 3, Terms: CompileTerms([]string{"dogecoin"})},
			want: []string{}, mode: ModeToken, reserve: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.Feed(tt.q)
			if d := cmp.Diff(tt.want, titles(r.Items)); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
			if r.Mode != tt.mode || r.Reserve != tt.reserve || r.NewsCandidates != tt.nNews || r.SocialCandidates != tt.nSocial {
				t.Errorf("mode %s reserve %d candidates %d/%d; want %s %d %d/%d", r.Mode, r.Reserve,
					r.NewsCandidates, r.SocialCandidates, tt.mode, tt.reserve, tt.nNews, tt.nSocial)
			}
		})
	}
}

// With one source empty the other fills every slot (the reference left
// them empty).
func TestFeedBackfillOneSourceEmpty(t *testing.T) {
	var newsOnly, socialOnly []Item
	for i := range 8 {
		newsOnly = append(newsOnly, item(FeedNews, i, fmt.Sprintf("news %d", i)))
		socialOnly = append(socialOnly, item(FeedSocial, i, fmt.Sprintf("post %d", i)))
	}
	q := Query{Limit: 5, Select: SelectAll, Reserve: 3}
	r := NewSnapshot(newsOnly, nil).Feed(q)
	if d := cmp.Diff([]string{"news 7", "news 6", "news 5", "news 4", "news 3"}, titles(r.Items)); d != "" {
		t.Errorf("no social (-want +got):\n%s", d)
	}
	r = NewSnapshot(socialOnly, nil).Feed(q)
	if d := cmp.Diff([]string{"post 7", "post 6", "post 5", "post 4", "post 3"}, titles(r.Items)); d != "" {
		t.Errorf("no news (-want +got):\n%s", d)
	}
	var empty *Snapshot
	if r := empty.Feed(q); len(r.Items) != 0 || r.Mode != ModeGlobal || r.Reserve != 3 {
		t.Errorf("nil snapshot: %+v", r)
	}
}

func TestEffectiveReserve(t *testing.T) {
	for _, tt := range []struct {
		sel          string
		req, lim, ef int
	}{{SelectAll, 3, 10, 3}, {SelectAll, 30, 10, 10}, {SelectAll, -1, 10, 0}, {SelectNews, 3, 10, 0}, {SelectTweets, 3, 10, 10}} {
		if got := EffectiveReserve(tt.sel, tt.req, tt.lim); got != tt.ef {
			t.Errorf("EffectiveReserve(%s, %d, %d) = %d, want %d", tt.sel, tt.req, tt.lim, got, tt.ef)
		}
	}
}
