package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/usage"
	"github.com/google/go-cmp/cmp"
)

// testKeyNames: a key's name is stored and read back by GetKey and
// ListKeys; a key created without one reads back "".
func testKeyNames(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	named := newKey("key_named", hash(1), apikey.ScopeAssetsRead)
	named.Name = "Production backend · ünïcode"
	mustCreate(t, s, "acme", named)
	mustCreate(t, s, "acme", newKey("key_plain", hash(2), apikey.ScopeAssetsRead))
	got, err := s.GetKey(ctx, "key_named")
	if err != nil || got.Name != named.Name {
		t.Fatalf("GetKey: name %q, %v", got.Name, err)
	}
	next := newKey("key_next", hash(3), apikey.ScopeAssetsRead)
	next.ProjectID, next.Name = got.ProjectID, got.Name
	if err := s.RotateKey(ctx, "key_named", next, t0); err != nil {
		t.Fatal(err)
	}
	all, err := s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, k := range all {
		names[k.ID] = k.Name
	}
	want := map[string]string{"key_named": named.Name, "key_plain": "", "key_next": named.Name}
	if d := cmp.Diff(want, names); d != "" {
		t.Fatalf("names (-want +got):\n%s", d)
	}
	if err := s.SetKeyName(ctx, "key_plain", "renamed"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetKey(ctx, "key_plain"); got.Name != "renamed" {
		t.Fatalf("after SetKeyName: %q", got.Name)
	}
	if err := s.SetKeyName(ctx, "key_none", "x"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("SetKeyName of an unknown key: %v", err)
	}
}

// testUsageBuckets: aggregates sum per hour and per day, route and
// status, oldest bucket first; Charged and the last minute come along.
func testUsageBuckets(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	m := usage.MinuteOf(t0) // 12:00 UTC
	detail := "GET /v1/assets/{assetId}"
	batch := []usage.Aggregate{
		{KeyID: "key_a", ProjectID: "prj_a", Route: detail, Status: 200, Minute: m, Requests: 3, Charged: 3},
		{KeyID: "key_a", ProjectID: "prj_a", Route: detail, Status: 200, Minute: m + 7, Requests: 2, Charged: 2},
		{KeyID: "key_a", ProjectID: "prj_a", Route: detail, Status: 429, Minute: m + 61, Requests: 4},
		{KeyID: "key_a", ProjectID: "prj_a", Route: detail, Status: 200, Minute: m - 1440, Requests: 9, Charged: 9},
		{KeyID: "key_b", ProjectID: "prj_b", Route: detail, Status: 200, Minute: m, Requests: 100, Charged: 100},
	}
	if err := s.AddUsage(ctx, batch); err != nil {
		t.Fatal(err)
	}
	min := func(n int64) time.Time { return time.Unix(n*60, 0).UTC() }
	hours, err := s.UsageBuckets(ctx, "key_a", m-60, 60)
	if err != nil {
		t.Fatal(err)
	}
	want := []usage.Bucket{
		{Start: t0, Route: detail, Status: 200, Requests: 5, Charged: 5, Last: min(m + 7)},
		{Start: t0.Add(time.Hour), Route: detail, Status: 429, Requests: 4, Charged: 0, Last: min(m + 61)},
	}
	if d := cmp.Diff(want, hours); d != "" {
		t.Fatalf("hours (-want +got):\n%s", d)
	}
	days, err := s.UsageBuckets(ctx, "key_a", m-2*1440, 1440)
	if err != nil {
		t.Fatal(err)
	}
	day := t0.Truncate(24 * time.Hour)
	want = []usage.Bucket{
		{Start: day.Add(-24 * time.Hour), Route: detail, Status: 200, Requests: 9, Charged: 9, Last: min(m - 1440)},
		{Start: day, Route: detail, Status: 200, Requests: 5, Charged: 5, Last: min(m + 7)},
		{Start: day, Route: detail, Status: 429, Requests: 4, Charged: 0, Last: min(m + 61)},
	}
	if d := cmp.Diff(want, days); d != "" {
		t.Fatalf("days (-want +got):\n%s", d)
	}
	if got, err := s.UsageBuckets(ctx, "key_none", 0, 60); err != nil || len(got) != 0 {
		t.Fatalf("unknown key: %v, %v", got, err)
	}
}

// testDashboardFlashes: a flash is taken once (a second take is
// ErrNotFound), an expired one is not returned, and putting a flash
// deletes the expired ones.
func testDashboardFlashes(t *testing.T, h Harness) {
	s, reopen := h.Fresh(t)
	ctx := context.Background()
	payload := []byte{0, 1, 2, 0xff, 'x'}
	if err := s.PutFlash(ctx, "f1", payload, t0, t0.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.PutFlash(ctx, "f2", []byte("old"), t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	other := reopen() // another replica reads what this one wrote
	got, err := other.TakeFlash(ctx, "f1", t0.Add(time.Minute))
	if err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("take: %v, %v", got, err)
	}
	if _, err := s.TakeFlash(ctx, "f1", t0.Add(time.Minute)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("second take: %v, want ErrNotFound", err)
	}
	if _, err := s.TakeFlash(ctx, "f2", t0.Add(2*time.Minute)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("expired take: %v, want ErrNotFound", err)
	}
	if err := s.PutFlash(ctx, "f3", []byte("a"), t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// f3 expired by t0+2m; putting f4 then deletes it, so even a take
	// "back in time" finds nothing.
	if err := s.PutFlash(ctx, "f4", []byte("b"), t0.Add(2*time.Minute), t0.Add(7*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeFlash(ctx, "f3", t0); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("pruned take: %v, want ErrNotFound", err)
	}
	if err := s.PutFlash(ctx, "f4", []byte("dup"), t0, t0.Add(time.Minute)); err == nil {
		t.Fatal("a second flash with the same id was stored")
	}
}
