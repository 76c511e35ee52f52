package httpapi

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/assetd/assetd/client"
	"github.com/assetd/assetd/internal/contracttest"
)

// The Go client against the real handlers: typed results, and errors that
// carry the status, _tag, details.code and x-request-id. Its responses are
// checked against the contract like every other.
func TestGoClientAgainstServer(t *testing.T) {
	h, _, _ := listHarness(t)
	srv := httptest.NewServer(h.h)
	t.Cleanup(srv.Close)
	c, err := client.New(srv.URL, h.plain["read"], client.WithHTTPClient(&http.Client{Transport: contracttest.Transport(t, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if hl, err := c.Health(ctx); err != nil || !bool(hl.Ok) {
		t.Fatalf("Health = %+v, %v", hl, err)
	}
	created, err := c.CreateList(ctx, client.CreateListRequest{Slug: "client-made", Name: "Made by the client", Status: client.Ptr("published")})
	if err != nil || created.Slug != "client-made" {
		t.Fatalf("CreateList = %+v, %v", created, err)
	}
	got, err := c.GetList(ctx, "client-made", &client.GetListParams{Limit: client.Ptr[int64](10)})
	if err != nil || got.Name != "Made by the client" || got.TokenCount != 0 {
		t.Fatalf("GetList = %+v, %v", got, err)
	}
	var e *client.Error
	_, err = c.GetList(ctx, "no-such-list", nil)
	if !errors.As(err, &e) || e.Status != 404 || e.Tag != "NotFoundError" || e.RequestID == "" {
		t.Fatalf("unknown list: %v", err)
	}
	_, err = c.ResolveAsset(ctx, &client.ResolveAssetParams{Mint: "not-a-mint"})
	if !errors.As(err, &e) || e.Status != 400 || e.Code != "invalid_mint" || e.Details["mint"] != "not-a-mint" {
		t.Fatalf("invalid mint: %v", err)
	}
}
