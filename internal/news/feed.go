package news

import (
	"strings"
)

// Feed selections (the spec's source parameter).
const (
	SelectAll    = "all"
	SelectNews   = "news"
	SelectTweets = "tweets"
)

// Feed limits (spec "News feed" and its limits table).
const (
	DefaultLimit   = 10
	MaxLimit       = 50
	DefaultReserve = 3
)

// Modes of a feed answer.
const (
	ModeGlobal = "global"
	ModeToken  = "token"
)

// Query is one feed request, already validated.
type Query struct {
	Limit  int    // 1..MaxLimit
	Select string // SelectAll, SelectNews or SelectTweets
	// Reserve is the requested tweet_reserve (clamped to 0..Limit).
	Reserve int
	// CoinID is the requested external coin id ("" for none).
	CoinID string
	// Terms are the matching terms (CompileTerms); the coin id is usually
	// one of them.
	Terms []Term
}

// Result is a composed feed.
type Result struct {
	Items []Item
	Mode  string
	// Reserve is the effective tweet_reserve.
	Reserve int
	// NewsCandidates and SocialCandidates count the items of each source
	// that passed the mode's filter (meta.counts coingecko_candidates and
	// x_candidates).
	NewsCandidates   int
	SocialCandidates int
}

// entry is an item with its precomputed lower-case match text.
type entry struct {
	Item
	lower string
}

// Snapshot is the immutable read model: deduplicated items of each feed
// source, newest first.
type Snapshot struct {
	news, social feedList
	dups         DedupeStats
	tagger       *Tagger
}

// NewSnapshot deduplicates items and indexes them for Feed. tagger decides
// which coin ids are known (nil: none).
func NewSnapshot(items []Item, tagger *Tagger) *Snapshot {
	kept, st := Dedupe(items)
	s := &Snapshot{dups: st, tagger: tagger}
	var newsEntries, socialEntries []entry
	for i := len(kept) - 1; i >= 0; i-- { // newest first
		it := kept[i]
		e := entry{Item: it, lower: strings.ToLower(it.Title + "\n" + it.Summary + "\n" + it.SourceName + "\n" + it.Author)}
		if it.FeedSource == FeedSocial {
			socialEntries = append(socialEntries, e)
		} else {
			newsEntries = append(newsEntries, e)
		}
	}
	s.news, s.social = newFeedList(newsEntries), newFeedList(socialEntries)
	return s
}

// Counts returns the number of served items of each feed source and the
// duplicates dropped while building the snapshot.
func (s *Snapshot) Counts() (news, social int, dups DedupeStats) {
	if s == nil {
		return 0, 0, DedupeStats{}
	}
	return len(s.news.entries), len(s.social.entries), s.dups
}

// EffectiveReserve is the tweet_reserve a selection uses: 0 for news
// only, the limit for tweets only, the request clamped to 0..limit for
// both.
func EffectiveReserve(sel string, reserve, limit int) int {
	switch sel {
	case SelectNews:
		return 0
	case SelectTweets:
		return limit
	}
	return min(max(reserve, 0), limit)
}

// Feed composes the answer to q from memory.
//
// Global mode (no coin id, no terms) takes every item. Token mode keeps a
// news item when its related_coin_ids hold the coin id or a term matches
// its text, and a social item when a term equals one of its coin ids or
// matches its text; an unknown coin id keeps no news item at all.
//
// With SelectAll, up to the effective reserve goes to social items and
// the rest to news items, each side backfilled from the other when it
// runs short; the final list is ordered newest first (ties: news before
// social).
func (s *Snapshot) Feed(q Query) Result {
	r := Result{Mode: ModeGlobal, Reserve: EffectiveReserve(q.Select, q.Reserve, q.Limit)}
	if q.CoinID != "" || len(q.Terms) > 0 {
		r.Mode = ModeToken
	}
	if s == nil || q.Limit <= 0 {
		return r
	}
	var news, social []*entry
	if q.Select != SelectTweets {
		known := q.CoinID == "" || s.tagger.KnownCoin(q.CoinID)
		if r.Mode == ModeGlobal || known {
			news, r.NewsCandidates = s.news.pick(q, r.Mode == ModeGlobal, q.Limit)
		}
	}
	if q.Select != SelectNews {
		social, r.SocialCandidates = s.social.pick(q, r.Mode == ModeGlobal, q.Limit)
	}
	nNews, nSocial := len(news), len(social)
	switch q.Select {
	case SelectAll:
		nSocial = min(r.Reserve, len(social))
		nNews = min(q.Limit-nSocial, len(news))
		nSocial = min(len(social), q.Limit-nNews) // backfill either side
	case SelectNews:
		nNews = min(q.Limit, len(news))
	case SelectTweets:
		nSocial = min(q.Limit, len(social))
	}
	r.Items = merge(news[:nNews], social[:nSocial])
	return r
}

// merge interleaves two newest-first lists newest first (ties: news
// first) and copies the items out.
func merge(news, social []*entry) []Item {
	out := make([]Item, 0, len(news)+len(social))
	i, j := 0, 0
	for i < len(news) || j < len(social) {
		if j == len(social) || (i < len(news) && !social[j].PostedAt.After(news[i].PostedAt)) {
			out = append(out, news[i].Item)
			i++
		} else {
			out = append(out, social[j].Item)
			j++
		}
	}
	return out
}
