package codec

import (
	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/storage"
)

// NewsColumns are the persisted news item columns, in NewsArgs order.
const NewsColumns = `canonical_url, url, title, summary, image, author, source_name, feed_source, source,
	related_coin_ids, posted_at, first_seen`

// NewsArgs flattens an item into NewsColumns order.
func NewsArgs(it *news.Item) []any {
	return []any{it.CanonicalURL, it.URL, it.Title, it.Summary, it.Image, it.Author, it.SourceName, it.FeedSource, it.Source,
		storage.JoinList(it.RelatedCoinIDs), storage.Ms(it.PostedAt), storage.Ms(it.FirstSeen)}
}

// ScanNews reads one NewsColumns row.
func ScanNews(sc storage.Scanner) (news.Item, error) {
	var it news.Item
	var coins string
	var posted, seen int64
	err := sc.Scan(&it.CanonicalURL, &it.URL, &it.Title, &it.Summary, &it.Image, &it.Author, &it.SourceName, &it.FeedSource,
		&it.Source, &coins, &posted, &seen)
	if coins != "" {
		it.RelatedCoinIDs = storage.SplitList(coins)
	}
	it.PostedAt, it.FirstSeen = storage.FromMs(posted), storage.FromMs(seen)
	return it, err
}
