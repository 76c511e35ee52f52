-- News feed items (internal/news), keyed by canonical URL; the earliest
-- stored copy of a URL wins. Times are unix milliseconds. Rows older than
-- the retention (14 days by default) are pruned by the news service.
CREATE TABLE news_items (
    canonical_url    TEXT PRIMARY KEY,
    url              TEXT NOT NULL,
    title            TEXT NOT NULL,
    summary          TEXT NOT NULL,
    image            TEXT NOT NULL,
    author           TEXT NOT NULL,
    source_name      TEXT NOT NULL,
    feed_source      TEXT NOT NULL,
    source           TEXT NOT NULL,
    related_coin_ids TEXT NOT NULL,
    posted_at        BIGINT NOT NULL,
    first_seen       BIGINT NOT NULL
);
CREATE INDEX news_items_posted_at ON news_items(posted_at);
