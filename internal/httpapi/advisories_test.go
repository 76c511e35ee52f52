package httpapi

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/ratelimit"
)

// fakeFeed is an in-memory feed: events with cursors 1..n.
type fakeFeed struct {
	events []lists.AdvisoryEvent
	cur    []lists.Advisory
}

func (f *fakeFeed) Events(_ context.Context, since int64, limit int) ([]lists.AdvisoryEvent, int64, error) {
	var out []lists.AdvisoryEvent
	for _, e := range f.events {
		if e.Cursor > since && len(out) < limit {
			out = append(out, e)
		}
	}
	next := since
	if len(out) > 0 {
		next = out[len(out)-1].Cursor
	}
	return out, next, nil
}

func (f *fakeFeed) List(context.Context) ([]lists.Advisory, error) { return f.cur, nil }

func feedHarness(t *testing.T) *harness {
	h := newHarness(t, ratelimit.Policy{})
	url := "https://status.example/x"
	h.srv.d.AdvisoryFeed = &fakeFeed{
		events: []lists.AdvisoryEvent{
			{Cursor: 1, Mint: "MintA", Action: lists.ActionSet, Advisory: asset.Advisory{Status: "caution", Reason: "depeg"}, SetBy: lists.SetByDepegGuard, At: 1000},
			{Cursor: 2, Mint: "MintB", Action: lists.ActionSet, Advisory: asset.Advisory{Status: "blocked", Reason: "scam", URL: &url}, SetBy: "ops", At: 2000},
			{Cursor: 5, Mint: "MintA", Action: lists.ActionLifted, Advisory: asset.Advisory{Status: "caution", Reason: "depeg"}, SetBy: lists.SetByDepegGuard, At: 3000},
		},
		cur: []lists.Advisory{{Mint: "MintB", Advisory: asset.Advisory{Status: "blocked", Reason: "scam", URL: &url, Since: 2000}, SetBy: lists.ReportSetter("rep_1"), UpdatedAt: 2000}},
	}
	h.h = h.srv.build(nil)
	return h
}

func TestAdvisoryFeed(t *testing.T) {
	h := feedHarness(t)
	key := map[string]string{"x-api-key": h.plain["read"]}
	r := h.do(t, "GET", "/v1/advisories?limit=2", key, nil)
	if r.status != 200 || r.header.Get("Cache-Control") != "no-store" || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	evs := r.body["events"].([]any)
	if len(evs) != 2 || r.body["nextCursor"] != "2" {
		t.Fatalf("page 1: %s", r.raw)
	}
	first := evs[0].(map[string]any)
	if first["cursor"] != "1" || first["source"] != "depeg_guard" || first["action"] != "set" || first["url"] != nil {
		t.Fatalf("first event: %v", first)
	}
	r = h.do(t, "GET", "/v1/advisories?since=2", key, nil)
	evs = r.body["events"].([]any)
	if r.status != 200 || len(evs) != 1 || r.body["nextCursor"] != "5" || evs[0].(map[string]any)["action"] != "lifted" {
		t.Fatalf("page 2: %s", r.raw)
	}
	// Nothing new: the cursor stays.
	r = h.do(t, "GET", "/v1/advisories?since=5", key, nil)
	if r.status != 200 || len(r.body["events"].([]any)) != 0 || r.body["nextCursor"] != "5" {
		t.Fatalf("page 3: %s", r.raw)
	}
	for _, bad := range []string{"since=-1", "since=abc", "since=1.5", "limit=x"} {
		r = h.do(t, "GET", "/v1/advisories?"+bad, key, nil)
		if r.status != 400 || errTag(r) != "BadRequestError" || errCode(r) != "invalid_param" {
			t.Fatalf("%s: %d %s", bad, r.status, r.raw)
		}
	}
	// assets:read is required.
	if r = h.do(t, "GET", "/v1/advisories", map[string]string{"x-api-key": h.plain["none"]}, nil); r.status != 403 {
		t.Fatalf("without assets:read: %d %s", r.status, r.raw)
	}
}

func TestCurrentAdvisories(t *testing.T) {
	h := feedHarness(t)
	r := h.do(t, "GET", "/v1/advisories/current", map[string]string{"x-api-key": h.plain["read"]}, nil)
	if r.status != 200 || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d %v %s", r.status, r.header, r.raw)
	}
	all := r.body["advisories"].([]any)
	a := all[0].(map[string]any)
	if len(all) != 1 || a["mint"] != "MintB" || a["source"] != "report" || a["status"] != "blocked" || a["url"] != "https://status.example/x" {
		t.Fatalf("%s", r.raw)
	}
}

// FuzzCursorParam: any since value is either a 400 invalid_param or a
// non-negative cursor that formats back to the decimal it was given.
func FuzzCursorParam(f *testing.F) {
	for _, s := range []string{"", "0", "41", "-1", "1e3", "00012", "9223372036854775807", "9223372036854775808", " 1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := httptest.NewRequest("GET", "/v1/advisories?since="+url.QueryEscape(s), nil)
		n, err := cursorParam(r, "since")
		if err != nil {
			if code := err.(*apierr.Error).Details.(apierr.Details)["code"]; code != "invalid_param" {
				t.Fatalf("%q: code %v", s, code)
			}
			return
		}
		if n < 0 || s != "" && strconv.FormatInt(n, 10) != strings.TrimLeft(s, "0") && !(n == 0 && strings.Trim(s, "0") == "") {
			t.Fatalf("%q parsed as %d", s, n)
		}
	})
}
