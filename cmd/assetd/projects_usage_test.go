package main

import (
	"context"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/usage"
)

type fakeUsageStore struct{ since, bucket int64 }

func (f *fakeUsageStore) UsageBuckets(_ context.Context, _ string, since, bucket int64) ([]usage.Bucket, error) {
	f.since, f.bucket = since, bucket
	return nil, nil
}

// The dashboard's buckets reach the store in unix minutes; a bucket that
// is not a whole number of minutes is refused.
func TestDashboardUsageBuckets(t *testing.T) {
	from := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		bucket time.Duration
		want   int64
	}{{time.Hour, 60}, {24 * time.Hour, 1440}} {
		st := &fakeUsageStore{}
		if _, err := (dashboardUsage{st}).UsageBuckets(context.Background(), "k", from, c.bucket); err != nil {
			t.Fatal(err)
		}
		if st.since != usage.MinuteOf(from) || st.bucket != c.want {
			t.Errorf("bucket %s: store asked since %d per %d, want %d per %d", c.bucket, st.since, st.bucket, usage.MinuteOf(from), c.want)
		}
	}
	for _, bad := range []time.Duration{0, 90 * time.Second} {
		if _, err := (dashboardUsage{&fakeUsageStore{}}).UsageBuckets(context.Background(), "k", from, bad); err == nil {
			t.Errorf("bucket %s accepted", bad)
		}
	}
}
