package storage

import (
	"github.com/assetd/assetd/internal/news"
)

// NewsColumns are the persisted news item columns, in NewsArgs order.
const NewsColumns = `canonical_url, url, title, summary, image, author, source_name, feed_source, source,
	related_coin_ids, posted_at, first_seen`

// NewsArgs flattens an item into NewsColumns order.
func NewsArgs(it *news.Item) []any {
	return []any{it.CanonicalURL, it.URL, it.Title, it.Summary, it.Image, it.Author, it.SourceName, it.FeedSource, it.Source,
		JoinList(it.RelatedCoinIDs), Ms(it.PostedAt), Ms(it.FirstSeen)}
}

// ScanNews reads one NewsColumns row.
func ScanNews(sc Scanner) (news.Item, error) {
	var it news.Item
	var coins string
	var posted, seen int64
	err := sc.Scan(&it.CanonicalURL, &it.URL, &it.Title, &it.Summary, &it.Image, &it.Author, &it.SourceName, &it.FeedSource,
		&it.Source, &coins, &posted, &seen)
	if coins != "" {
		it.RelatedCoinIDs = SplitList(coins)
	}
	it.PostedAt, it.FirstSeen = FromMs(posted), FromMs(seen)
	return it, err
}
