package refresh_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/assetd/assetd/internal/refresh"
	"github.com/assetd/assetd/internal/refresh/redisshare"
)

// TestRoleNamesTheLeaseInItsLogLines: a replica holds several leases (the
// provider refresh, on-chain reads, the trade source); only the provider
// refresh's lines say "lease acquired", so operators and the cluster test
// tell them apart.
func TestRoleNamesTheLeaseInItsLogLines(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	for _, tc := range []struct {
		role, want, notWant string
	}{
		{"", "refreshes provider data for the cluster (lease acquired)", "took its lease"},
		{"on-chain reads", `now runs the cluster's on-chain reads (took its lease)`, "lease acquired"},
	} {
		var buf bytes.Buffer
		e := refresh.NewElector(redisshare.New(rdb, "role:"+tc.role+":"), time.Minute, nil, slog.New(slog.NewTextHandler(&buf, nil)))
		e.Role = tc.role
		if !e.Step(context.Background()) {
			t.Fatalf("role %q: a free lease was not acquired", tc.role)
		}
		if got := buf.String(); !strings.Contains(got, tc.want) || strings.Contains(got, tc.notWant) {
			t.Errorf("role %q: log %q, want %q and not %q", tc.role, got, tc.want, tc.notWant)
		}
	}
}
