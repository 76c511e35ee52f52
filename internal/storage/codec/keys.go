package codec

import (
	"time"

	"github.com/assetd/assetd/internal/apikey"
	"github.com/assetd/assetd/internal/storage"
)

// KeyColumns selects an API key joined with its project (aliases k, p),
// in the order ScanKey reads.
const KeyColumns = `k.id, k.project_id, p.name, k.key_hash, k.scopes, k.rate_requests, k.rate_window_ms,
	k.quota_per_month, k.created_at, k.revoked_at, k.name`

// ScanKey reads one KeyColumns row.
func ScanKey(sc storage.Scanner) (apikey.Key, error) {
	var k apikey.Key
	var scopes string
	var windowMs, created int64
	var revoked *int64
	if err := sc.Scan(&k.ID, &k.ProjectID, &k.Project, &k.Hash, &scopes, &k.Limits.RateRequests, &windowMs,
		&k.Limits.QuotaPerMonth, &created, &revoked, &k.Name); err != nil {
		return k, err
	}
	k.Scopes = storage.SplitList(scopes)
	k.Limits.RateWindow = time.Duration(windowMs) * time.Millisecond
	k.CreatedAt = storage.FromMs(created)
	k.RevokedAt = storage.FromNullMs(revoked)
	return k, nil
}
