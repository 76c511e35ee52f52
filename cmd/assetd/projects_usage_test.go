package main

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/dashboard"
	"github.com/assetd/assetd/internal/usage"
	"github.com/google/go-cmp/cmp"
)

type fakeUsageStore []usage.DayCount

func (f fakeUsageStore) UsageByDay(context.Context, string, int64) ([]usage.DayCount, error) {
	return f, nil
}

// The dashboard chart gets one count per UTC day in [from, to), summed
// over routes and statuses, oldest first.
func TestDashboardUsageSumsDays(t *testing.T) {
	d := func(day int) time.Time { return time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC) }
	st := fakeUsageStore{ // the store's order: newest day first
		{Day: d(23), Route: "GET /v1/health", Status: 200, Requests: 7},
		{Day: d(22), Route: "GET /v1/health", Status: 200, Requests: 5},
		{Day: d(22), Route: "GET /v1/assets/{assetId}", Status: 404, Requests: 2},
		{Day: d(20), Route: "GET /v1/health", Status: 200, Requests: 1},
	}
	got, err := dashboardUsage{st}.UsageByDay(context.Background(), "k", d(21), d(23))
	if err != nil {
		t.Fatal(err)
	}
	want := []dashboard.DayCount{{Day: d(22), Count: 7}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("days (-want +got):\n%s", diff)
	}
}
