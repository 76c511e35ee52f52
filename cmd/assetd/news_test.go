package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewsFlags(t *testing.T) {
	parse := func(t *testing.T, env map[string]string, args ...string) (serveConfig, error) {
		for k, v := range env {
			t.Setenv(k, v)
		}
		c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &syncBuffer{}}
		return c.parseServe(args)
	}
	tests := []struct {
		name         string
		env          map[string]string
		args         []string
		news, social []string
	}{
		{"defaults", nil, nil, defaultNewsFeeds, nil},
		{"none", nil, []string{"--news-feed", "none"}, nil, nil},
		{"repeated and comma lists", nil, []string{"--news-feed", "https://a.example.test/rss, https://b.example.test/rss", "--news-feed", "file:///tmp/x.xml",
			"--social-feed", "https://bsky.app/profile/example.test/rss"},
			[]string{"https://a.example.test/rss", "https://b.example.test/rss", "file:///tmp/x.xml"}, []string{"https://bsky.app/profile/example.test/rss"}},
		{"env", map[string]string{"ASSETD_NEWS_FEED": "https://env.example.test/rss", "ASSETD_SOCIAL_FEED": "https://s.example.test/atom"}, nil,
			[]string{"https://env.example.test/rss"}, []string{"https://s.example.test/atom"}},
		{"flag replaces env", map[string]string{"ASSETD_NEWS_FEED": "https://env.example.test/rss"}, []string{"--news-feed", "https://flag.example.test/rss"},
			[]string{"https://flag.example.test/rss"}, nil},
		{"none then a URL", nil, []string{"--news-feed", "none", "--news-feed", "https://a.example.test/rss"}, []string{"https://a.example.test/rss"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parse(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			n, s := cfg.news.resolve()
			if !slices.Equal(n, tt.news) || !slices.Equal(s, tt.social) {
				t.Errorf("news %v social %v; want %v %v", n, s, tt.news, tt.social)
			}
		})
	}
	for _, args := range [][]string{{"--news-feed", "ftp://x.example.test/rss"}, {"--social-feed", "not a url"}, {"--news-feed", "none,https://a.example.test/rss"}} {
		if _, err := parse(t, nil, args...); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "")) {
			t.Errorf("%v: err = %v; want a usage error naming the flag", args, err)
		}
	}
}

const syntheticRSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Synthetic Outlet</title>
<item><title>Synthetic: Solana validators ship an upgrade</title><link>https://news.example.test/a?utm_source=rss</link>
<pubDate>Mon, 23 Nov 2026 06:00:00 +0000</pubDate></item>
<item><title>Synthetic: macro week ahead</title><link>https://news.example.test/b</link><pubDate>Mon, 23 Nov 2026 05:00:00 +0000</pubDate></item>
</channel></rss>`

const syntheticAtom = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>@synthetic.example.test</title>
<entry><title>synthetic post: $SOL fees are low</title><link href="https://social.example.test/p/1"/><updated>2026-11-23T06:30:00Z</updated></entry>
</feed>`

// TestNewsEndToEnd polls operator files, serves the feed, and serves the
// stored items again after a restart with every source disabled.
func TestNewsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	rss, atom := filepath.Join(dir, "news.xml"), filepath.Join(dir, "social.xml")
	for p, body := range map[string]string{rss: syntheticRSS, atom: syntheticAtom} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			key := strings.TrimSpace(mustCLI(t, append([]string{"keys", "create", "--project", "news"}, e.flags...)...))
			hdr := map[string]string{"X-Api-Key": key}
			s := startServer(t, append(e.flags, "--news-feed", "file://"+rss, "--social-feed", "file://"+atom)...)
			var body map[string]any
			eventually(t, 30*time.Second, "news ingested", func() bool {
				var st int
				st, _, body = s.get(t, "/v1/news/feed?symbol=SOL&name=Solana", hdr)
				items, _ := body["items"].([]any)
				return st == 200 && len(items) == 2
			})
			items := body["items"].([]any)
			first := items[0].(map[string]any)
			if first["feed_source"] != "social" || first["title"] != "synthetic post: $SOL fees are low" ||
				!slices.Equal(toStrings(first["related_coin_ids"]), []string{"solana"}) {
				t.Errorf("first item: %v", first)
			}
			if err := s.stop(); err != nil {
				t.Fatal(err)
			}
			// Restart without sources: the stored items are served at once.
			s = startServer(t, e.flags...)
			st, _, body := s.get(t, "/v1/news/feed", hdr)
			items, _ = body["items"].([]any)
			meta, _ := body["meta"].(map[string]any)
			if st != 200 || len(items) != 3 {
				t.Fatalf("after restart: %d, %v", st, body)
			}
			var statuses []string
			for _, src := range meta["sources"].([]any) {
				m := src.(map[string]any)
				statuses = append(statuses, m["name"].(string)+"="+m["status"].(string))
			}
			if !slices.Equal(statuses, []string{"newsprov=disabled", "social=disabled"}) {
				t.Errorf("sources: %v", statuses)
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestNewsDemo(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, "--data-dir", dir, "--demo")
	key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "demo", "--data-dir", dir))
	var body map[string]any
	eventually(t, 30*time.Second, "simulated news", func() bool {
		_, _, body = s.get(t, "/v1/news/feed?limit=20", map[string]string{"X-Api-Key": key})
		items, _ := body["items"].([]any)
		return len(items) == 20
	})
	for _, it := range body["items"].([]any) {
		if title := it.(map[string]any)["title"].(string); !strings.HasPrefix(title, "[SIMULATED] ") {
			t.Errorf("demo item %q is not marked simulated", title)
		}
	}
	if meta := body["meta"].(map[string]any); meta["simulated"] != true {
		t.Errorf("meta: %v", meta)
	}
}

// TestNewsPaidAdapter: a paid-plan extprovider key adds the provider's
// /news as a news source.
func TestNewsPaidAdapter(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v3/news" || r.Header.Get("x-cg-pro-api-key") != "synthetic-pro-key" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("page") != "1" {
			_, _ = w.Write([]byte(`[]`))
			return
		}
		_, _ = w.Write([]byte(`[{"title":"Synthetic paid story about Bitcoin","url":"https://paid.example.test/1","image":"","author":"desk",
			"posted_at":"2026-11-23T05:00:00Z","type":"news","source_name":"Synthetic Wire","related_coin_ids":["not-ours"]}]`))
	}))
	t.Cleanup(upstream.Close)
	dir := t.TempDir()
	key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "paid", "--data-dir", dir))
	s := startServer(t, "--data-dir", dir, "--extprovider-key", "synthetic-pro-key", "--extprovider-pro",
		"--extprovider-url", upstream.URL+"/api/v3")
	var body map[string]any
	eventually(t, 30*time.Second, "paid news ingested", func() bool {
		_, _, body = s.get(t, "/v1/news/feed?coin_id=bitcoin", map[string]string{"X-Api-Key": key})
		items, _ := body["items"].([]any)
		return len(items) == 1
	})
	it := body["items"].([]any)[0].(map[string]any)
	if it["source_name"] != "Synthetic Wire" || !slices.Equal(toStrings(it["related_coin_ids"]), []string{"bitcoin"}) || it["feed_source"] != "newsprov" {
		t.Errorf("item: %v", it)
	}
}
