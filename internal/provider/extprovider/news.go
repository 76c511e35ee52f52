package extprovider

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/provider/internal/upstream"
)

// News paging: the API serves at most 20 articles a page; one fetch reads
// up to NewsPages pages.
const (
	NewsPageSize = 20
	NewsPages    = 3
)

// NewsFeed is the API's GET /news (paid plans only) as a news source
// (feed source "newsprov"). Only items of type "news" are kept (the API
// also lists guides); the API's related_coin_ids are dropped, since the
// news service tags every item from the registry.
type NewsFeed struct{ c *Client }

// News returns the client's news feed.
func (c *Client) News() *NewsFeed { return &NewsFeed{c: c} }

// Name identifies the source in health and logs.
func (n *NewsFeed) Name() string { return name + ":/news" }

// FeedSource is news.FeedNews.
func (n *NewsFeed) FeedSource() string { return news.FeedNews }

type newsDoc struct {
	Title      string `json:"title"`
	URL        string `json:"url"`
	Image      string `json:"image"`
	Author     string `json:"author"`
	PostedAt   string `json:"posted_at"`
	Type       string `json:"type"`
	SourceName string `json:"source_name"`
}

// Fetch reads pages 1..NewsPages (language en, type news) and stops at
// the first empty page. A failure on the first page is returned; a later
// one keeps what was read.
func (n *NewsFeed) Fetch(ctx context.Context) ([]news.Item, error) {
	var out []news.Item
	for page := 1; page <= NewsPages; page++ {
		q := url.Values{"page": {strconv.Itoa(page)}, "per_page": {strconv.Itoa(NewsPageSize)}, "language": {"en"}, "type": {"news"}}
		body, err := n.c.get(ctx, "/news", q)
		if err != nil {
			if page == 1 {
				return nil, err
			}
			break
		}
		var docs []newsDoc
		if err := json.Unmarshal(body, &docs); err != nil {
			if page == 1 {
				return nil, upstream.Malformed(name, "GET /news", err)
			}
			break
		}
		if len(docs) == 0 {
			break
		}
		for _, d := range docs {
			if d.Type != "news" || httpURL(d.URL) == "" {
				continue
			}
			out = append(out, news.Item{Title: d.Title, URL: d.URL, Image: httpURL(d.Image), Author: d.Author,
				PostedAt: parseTime(d.PostedAt), SourceName: d.SourceName})
		}
	}
	return out, nil
}
