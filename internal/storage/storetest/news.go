package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/news"
	"github.com/google/go-cmp/cmp"
)

func testNews(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	base := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	it := func(n int, title string, coins ...string) news.Item {
		u := "https://news.example.test/" + title
		return news.Item{Title: title, URL: u + "?utm_source=rss", CanonicalURL: u, Summary: "summary of " + title,
			Image: "https://img.example.test/" + title + ".png", Author: "Synthetic Author", SourceName: "Synthetic Outlet",
			FeedSource: news.FeedNews, Source: "https://news.example.test/rss", RelatedCoinIDs: coins,
			PostedAt: base.Add(time.Duration(n) * time.Hour), FirstSeen: base.Add(time.Duration(n)*time.Hour + time.Minute)}
	}
	a, b, c := it(0, "a", "bitcoin", "solana"), it(1, "b"), it(2, "c", "solana")
	c.FeedSource, c.Author, c.Image = news.FeedSocial, "", ""
	if n, err := s.PutNews(ctx, []news.Item{a, b}); err != nil || n != 2 {
		t.Fatalf("put: %d, %v", n, err)
	}
	// A stored URL keeps its first copy; only c is new.
	a2 := a
	a2.Title = "a retitled"
	if n, err := s.PutNews(ctx, []news.Item{a2, c}); err != nil || n != 1 {
		t.Fatalf("put again: %d, %v; want 1 new", n, err)
	}
	if n, err := s.PutNews(ctx, nil); err != nil || n != 0 {
		t.Fatalf("put nothing: %d, %v", n, err)
	}
	got, err := s.LoadNews(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]news.Item{c, b, a}, got); d != "" {
		t.Fatalf("load (-want +got):\n%s", d)
	}
	if got, _ := s.LoadNews(ctx, base.Add(90*time.Minute)); len(got) != 1 || got[0].Title != "c" {
		t.Fatalf("since +90m: %+v", got)
	}
	if n, err := s.PruneNews(ctx, base.Add(90*time.Minute)); err != nil || n != 2 {
		t.Fatalf("prune: %d, %v; want 2", n, err)
	}
	if got, _ := s.LoadNews(ctx, time.Time{}); len(got) != 1 || got[0].Title != "c" {
		t.Fatalf("after prune: %+v", got)
	}
}
