package newsfeed_test

import (
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

// Recorded documents built at test time from the shared data set (the
// files are not copied into the repository).

type newsAPIArticle struct {
	Source struct {
		Name string `json:"name"`
	} `json:"source"`
	Author      *string `json:"author"`
	Title       string  `json:"title"`
	Description *string `json:"description"`
	URL         string  `json:"url"`
	URLToImage  *string `json:"urlToImage"`
	PublishedAt string  `json:"publishedAt"`
}

func newsAPIArticles(t testing.TB) []newsAPIArticle {
	t.Helper()
	var doc struct {
		Articles []newsAPIArticle `json:"articles"`
	}
	if err := json.Unmarshal(providertest.SharedData(t, "news-newsapi-crypto-20221223.json"), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Articles
}

type redditPost struct {
	Title  string `json:"title"`
	URL    string `json:"url"`
	Source string `json:"source"`
	Time   string `json:"time"`
}

func redditPosts(t testing.TB) []redditPost {
	t.Helper()
	var doc struct {
		RedditPosts []redditPost `json:"redditPosts"`
	}
	if err := json.Unmarshal(providertest.SharedData(t, "news-social-crypto-pulse-202604.json"), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.RedditPosts
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// newsAPIRSS renders the NewsAPI articles as one RSS 2.0 channel: the
// article's source name as <source>, its author as <dc:creator> and its
// image as <media:content> (each omitted when null).
func newsAPIRSS(t testing.TB, arts []newsAPIArticle) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/">
<channel><title>NewsAPI crypto sample</title><link>https://newsapi.org/</link><description>recorded</description>
`)
	for _, a := range arts {
		ts, err := time.Parse(time.RFC3339, a.PublishedAt)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("<item><title>" + esc(a.Title) + "</title><link>" + esc(a.URL) + "</link>")
		if a.Description != nil {
			b.WriteString("<description>" + esc(*a.Description) + "</description>")
		}
		b.WriteString("<pubDate>" + ts.Format(time.RFC1123Z) + "</pubDate>")
		b.WriteString(`<source url="https://newsapi.org/">` + esc(a.Source.Name) + "</source>")
		if a.Author != nil {
			b.WriteString("<dc:creator>" + esc(*a.Author) + "</dc:creator>")
		}
		if a.URLToImage != nil {
			b.WriteString(`<media:content url="` + esc(*a.URLToImage) + `" medium="image"/>`)
		}
		b.WriteString("</item>\n")
	}
	b.WriteString("</channel></rss>\n")
	return []byte(b.String())
}

// redditAtom renders the social posts as one Atom feed titled with their
// source ("Reddit").
func redditAtom(t testing.TB, posts []redditPost) []byte {
	t.Helper()
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Reddit</title><id>urn:test:reddit</id><updated>2026-04-23T00:00:00Z</updated>
`)
	for i, p := range posts {
		b.WriteString("<entry><title>" + esc(p.Title) + `</title><link href="` + esc(p.URL) + `"/>`)
		b.WriteString("<id>urn:test:post:" + string(rune('a'+i%26)) + p.Time + "</id>")
		b.WriteString("<published>" + esc(p.Time) + "</published><updated>" + esc(p.Time) + "</updated></entry>\n")
	}
	b.WriteString("</feed>\n")
	return []byte(b.String())
}
