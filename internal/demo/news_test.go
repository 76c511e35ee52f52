package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/news"
	"github.com/assetd/assetd/internal/registry"
	"github.com/google/go-cmp/cmp"
)

func TestNewsFeedSimulated(t *testing.T) {
	assets := []registry.Asset{{AssetID: "solana", Name: "Solana", Symbol: "SOL", CoinID: "solana"},
		{AssetID: "bitcoin", Name: "Bitcoin", Symbol: "BTC", CoinID: "bitcoin"}, {AssetID: "x", Name: "No coin", Symbol: "X"}}
	now := time.Date(2026, 4, 10, 12, 0, 0, 0, time.UTC)
	for _, fs := range []string{news.FeedNews, news.FeedSocial} {
		f := NewNewsFeed(fs, assets, func() time.Time { return now })
		a, err := f.Fetch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewNewsFeed(fs, assets, func() time.Time { return now }).Fetch(context.Background())
		if d := cmp.Diff(a, b); d != "" {
			t.Fatalf("%s: not deterministic:\n%s", fs, d)
		}
		if len(a) < 100 || f.FeedSource() != fs || f.Name() != "demo" {
			t.Fatalf("%s: %d items", fs, len(a))
		}
		for _, it := range a {
			if !strings.HasPrefix(it.Title, "[SIMULATED] ") || !strings.Contains(it.SourceName, "simulated") ||
				!strings.HasPrefix(it.URL, "https://"+DemoNewsHost+"/") || it.PostedAt.After(now) || it.PostedAt.Before(now.Add(-49*time.Hour)) {
				t.Fatalf("%s: not visibly synthetic or out of range: %+v", fs, it)
			}
			if strings.Contains(it.Title, "No coin") {
				t.Fatalf("asset without coin id used: %q", it.Title)
			}
		}
	}
	if items, _ := NewNewsFeed(news.FeedNews, nil, nil).Fetch(context.Background()); items != nil {
		t.Error("no assets, items")
	}
}
