package httpapi

import (
	"encoding/binary"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/news"
)

// NewsFeed is the news read model: the current snapshot and each source's
// health, both from memory.
type NewsFeed interface {
	Snapshot() *news.Snapshot
	Sources() []news.SourceStatus
}

// News feed parameter bounds beyond the spec's limits.
const (
	newsMaxTerms   = 20
	newsMaxTermLen = 100
)

var newsSelections = []string{news.SelectAll, news.SelectNews, news.SelectTweets}

type newsItemJSON struct {
	Title          string   `json:"title"`
	URL            string   `json:"url"`
	Image          string   `json:"image"`
	Author         string   `json:"author"`
	PostedAt       string   `json:"posted_at"`
	Type           string   `json:"type"`
	SourceName     string   `json:"source_name"`
	RelatedCoinIDs []string `json:"related_coin_ids"`
	FeedSource     string   `json:"feed_source"`
}

type newsCountsJSON struct {
	Items               int `json:"items"`
	CoingeckoCandidates int `json:"coingecko_candidates"`
	XCandidates         int `json:"x_candidates"`
}

type newsSourceJSON struct {
	Name        string  `json:"name"`
	FeedSource  string  `json:"feed_source"`
	Status      string  `json:"status"`
	LastSuccess *string `json:"last_success"`
	Reason      string  `json:"reason,omitempty"`
	Items       int     `json:"items"`
}

type newsMetaJSON struct {
	Mode         string           `json:"mode"`
	Source       string           `json:"source"`
	CoinID       *string          `json:"coin_id"`
	Terms        []string         `json:"terms"`
	Limit        int              `json:"limit"`
	TweetReserve int              `json:"tweet_reserve"`
	Counts       newsCountsJSON   `json:"counts"`
	Sources      []newsSourceJSON `json:"sources"`
	Simulated    bool             `json:"simulated,omitempty"`
}

type newsFeedJSON struct {
	Items []newsItemJSON `json:"items"`
	Meta  newsMetaJSON   `json:"meta"`
}

// newsQuery parses the feed parameters. Terms are, in order: every term,
// the comma-separated terms, name, symbol, asset_id and coin_id
// (case-insensitive duplicates dropped).
func newsQuery(r *http.Request) (news.Query, error) {
	q := r.URL.Query()
	limit, err := limitParam(q, "limit", news.DefaultLimit, 1, news.MaxLimit)
	if err != nil {
		return news.Query{}, err
	}
	sel, err := enumParam(q, "source", news.SelectAll, newsSelections)
	if err != nil {
		return news.Query{}, err
	}
	reserve, err := limitParam(q, "tweet_reserve", news.DefaultReserve, 0, limit)
	if err != nil {
		return news.Query{}, err
	}
	raw := append([]string(nil), q["term"]...)
	for _, v := range q["terms"] {
		raw = append(raw, strings.Split(v, ",")...)
	}
	coinID := strings.TrimSpace(q.Get("coin_id"))
	for _, p := range []string{"name", "symbol", "asset_id"} {
		raw = append(raw, q.Get(p))
	}
	raw = append(raw, coinID)
	for _, t := range raw {
		if len(t) > newsMaxTermLen {
			return news.Query{}, badParam("terms", "Invalid term: at most "+strconv.Itoa(newsMaxTermLen)+" bytes each", nil)
		}
	}
	terms := news.CompileTerms(raw)
	if len(terms) > newsMaxTerms {
		return news.Query{}, badParam("terms", "Too many terms: at most "+strconv.Itoa(newsMaxTerms), nil)
	}
	return news.Query{Limit: limit, Select: sel, Reserve: reserve, CoinID: coinID, Terms: terms}, nil
}

// GET /v1/news/feed: composed from the in-memory snapshot; sources are
// polled in the background, so an upstream failure only shows in
// meta.sources.
//
// A feed is composed and encoded once per (raw query, snapshot, source
// statuses): a repeated request parses nothing (only a query that was
// answered is kept) and writes the kept bytes.
func (s *Server) newsFeed(w http.ResponseWriter, r *http.Request) error {
	var snap *news.Snapshot
	var sources []news.SourceStatus
	if s.d.News != nil {
		snap, sources = s.d.News.Snapshot(), s.d.News.Sources()
	}
	dep := newsDep{snap: snap, sources: sourcesPrint(sources)}
	raw := r.URL.RawQuery
	if e := s.newsBodies.get(raw, dep); e != nil {
		return writeBody(w, http.StatusOK, e.plain, e)
	}
	nq, err := newsQuery(r)
	if err != nil {
		return err
	}
	res := snap.Feed(nq)
	out := newsFeedJSON{Items: make([]newsItemJSON, len(res.Items)), Meta: newsMetaJSON{
		Mode: res.Mode, Source: nq.Select, Terms: make([]string, len(nq.Terms)), Limit: nq.Limit, TweetReserve: res.Reserve,
		Counts:  newsCountsJSON{Items: len(res.Items), CoingeckoCandidates: res.NewsCandidates, XCandidates: res.SocialCandidates},
		Sources: make([]newsSourceJSON, len(sources)), Simulated: s.d.Simulated,
	}}
	if nq.CoinID != "" {
		out.Meta.CoinID = &nq.CoinID
	}
	for i, t := range nq.Terms {
		out.Meta.Terms[i] = t.Text
	}
	for i, it := range res.Items {
		coins := it.RelatedCoinIDs
		if coins == nil {
			coins = []string{}
		}
		out.Items[i] = newsItemJSON{Title: it.Title, URL: it.URL, Image: it.Image, Author: it.Author,
			PostedAt: it.PostedAt.UTC().Format(time.RFC3339), Type: "news", SourceName: it.SourceName,
			RelatedCoinIDs: coins, FeedSource: it.FeedSource}
	}
	for i, st := range sources {
		js := newsSourceJSON{Name: st.Name, FeedSource: st.FeedSource, Status: st.Status, Reason: st.Reason, Items: st.Items}
		if !st.LastSuccess.IsZero() {
			ts := st.LastSuccess.UTC().Format(time.RFC3339)
			js.LastSuccess = &ts
		}
		out.Meta.Sources[i] = js
	}
	b, _, err := encodeJSON(out)
	if err != nil {
		return err
	}
	e := newEncoded(b)
	s.newsBodies.put(raw, dep, e)
	return writeBody(w, http.StatusOK, e.plain, e)
}

// newsBodiesEntries bounds the feeds kept per news state.
const newsBodiesEntries = 256

// newsDep is the news state a feed was composed from.
type newsDep struct {
	snap    *news.Snapshot
	sources uint64
}

// newsBodies keeps encoded feeds of one news state by raw query.
type newsBodies struct {
	mu  sync.RWMutex
	dep newsDep
	m   map[string]*encoded
}

func (c *newsBodies) get(raw string, dep newsDep) *encoded {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.dep != dep {
		return nil
	}
	return c.m[raw]
}

func (c *newsBodies) put(raw string, dep newsDep, e *encoded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dep != dep || c.m == nil {
		c.dep, c.m = dep, make(map[string]*encoded, 8)
	}
	if len(c.m) < newsBodiesEntries {
		c.m[raw] = e
	}
}

// sourcesPrint is a fingerprint of the source statuses a feed shows.
func sourcesPrint(ss []news.SourceStatus) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, st := range ss {
		h.Write([]byte(st.Name))
		h.Write([]byte{0})
		h.Write([]byte(st.FeedSource))
		h.Write([]byte{0})
		h.Write([]byte(st.Status))
		h.Write([]byte{0})
		h.Write([]byte(st.Reason))
		h.Write([]byte{0})
		binary.LittleEndian.PutUint64(b[:], uint64(st.LastSuccess.UnixNano()))
		h.Write(b[:])
		binary.LittleEndian.PutUint64(b[:], uint64(st.Items))
		h.Write(b[:])
	}
	return h.Sum64()
}
