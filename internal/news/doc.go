// Package news is the market news feed: the item model, URL
// canonicalisation and title normalisation, deduplication, token matching
// (ingest tags and request terms), the in-memory read model and the feed
// composition of GET /v1/news/feed, and the Service that polls sources in
// the background, persists items and swaps the read model atomically.
//
// Sources (RSS/Atom outlets, social account feeds, the demo world) are
// adapters behind the Source interface declared here; the request path
// only reads the current Snapshot. See docs/news.md.
package news
