package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/lists/liststest"
	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/tokenlist"
)

// BenchmarkCompose10x5000 composes 10 community lists of 5,000 members
// each (1,000 shared between neighbours) through the full stack on SQLite.
func BenchmarkCompose10x5000(b *testing.B) {
	st, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	svc, _ := lists.New(st, lists.DefaultLimits(), time.Now)
	h := newAssetHarness(b, newSeedCatalog(b, false))
	h.srv.d.Lists = svc
	h.srv.d.ListViews = lists.NewViews(st, svc.Limits().MembersPerList)
	h.srv.d.ListReader = &lists.Reader{Catalog: h.srv.d.Catalog, Views: h.srv.d.ListViews, Log: h.srv.d.Log}
	h.h = h.srv.build(nil)
	ls, err := liststest.Fill(context.Background(), st, liststest.FillSpec{Owner: "prj_bench", Lists: 10, Members: 5000, Overlap: 1000})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.srv.d.ListViews.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	slugs := make([]string, len(ls))
	for i, l := range ls {
		slugs[i] = l.Slug
	}
	req := httptest.NewRequest("GET", "/v2/lists/tokens?lists="+strings.Join(slugs, ",")+"&limit=2000", nil)
	req.Header.Set("X-Api-Key", h.plain["read"])
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}

// BenchmarkListRead5000 reads one community list of 5,000 members (its
// first 2,000 and its token-list export) through the full stack, unchanged
// between requests.
func BenchmarkListRead5000(b *testing.B) {
	st, err := sqlite.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	svc, _ := lists.New(st, lists.DefaultLimits(), time.Now)
	h := newAssetHarness(b, newSeedCatalog(b, false))
	h.srv.d.Lists = svc
	h.srv.d.ListViews = lists.NewViews(st, svc.Limits().MembersPerList)
	h.srv.d.ListReader = &lists.Reader{Catalog: h.srv.d.Catalog, Views: h.srv.d.ListViews, Log: h.srv.d.Log}
	h.srv.d.TokenLists = &tokenlist.Exporter{Store: &memExports{m: map[string]tokenlist.State{}}, Now: time.Now}
	h.h = h.srv.build(nil)
	ls, err := liststest.Fill(context.Background(), st, liststest.FillSpec{Owner: "prj_bench", Lists: 1, Members: 5000})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.srv.d.ListViews.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/v2/lists/" + ls[0].Slug + "?limit=2000", "/v2/lists/" + ls[0].Slug + "/tokenlist.json"} {
		b.Run(strings.TrimPrefix(path[strings.LastIndex(path, "/"):], "/"), func(b *testing.B) {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("X-Api-Key", h.plain["read"])
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
		})
	}
}
