package storage

import (
	"github.com/assetd/assetd/internal/apikey"
	"strings"
	"time"
)

// Row helpers shared by the engines: both store times as unix milliseconds
// and scope sets as comma-joined text.

// Ms converts a time to unix milliseconds.
func Ms(t time.Time) int64 { return t.UnixMilli() }

// FromMs converts unix milliseconds to a UTC time.
func FromMs(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// FromNullMs converts a nullable unix-ms column to a *time.Time.
func FromNullMs(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := FromMs(*ms)
	return &t
}

// JoinList encodes a string set as one column.
func JoinList(s []string) string { return strings.Join(s, ",") }

// SplitList decodes JoinList.
func SplitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// Scanner is a row of either engine (*sql.Row, *sql.Rows, pgx.Row, pgx.Rows).
type Scanner interface {
	Scan(dest ...any) error
}

// RowIter is a result set of either engine (*sql.Rows, pgx.Rows).
type RowIter interface {
	Scanner
	Next() bool
	Err() error
}

// ScanCounts reads (text, integer) rows into a map: change versions,
// usage counts per route.
func ScanCounts(rows RowIter) (map[string]int64, error) {
	out := map[string]int64{}
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// KeyColumns selects an API key joined with its project (aliases k, p),
// in the order ScanKey reads.
const KeyColumns = `k.id, k.project_id, p.name, k.key_hash, k.scopes, k.rate_requests, k.rate_window_ms,
	k.quota_per_month, k.created_at, k.revoked_at`

// ScanKey reads one KeyColumns row.
func ScanKey(sc Scanner) (apikey.Key, error) {
	var k apikey.Key
	var scopes string
	var windowMs, created int64
	var revoked *int64
	if err := sc.Scan(&k.ID, &k.ProjectID, &k.Project, &k.Hash, &scopes, &k.Limits.RateRequests, &windowMs,
		&k.Limits.QuotaPerMonth, &created, &revoked); err != nil {
		return k, err
	}
	k.Scopes = SplitList(scopes)
	k.Limits.RateWindow = time.Duration(windowMs) * time.Millisecond
	k.CreatedAt = FromMs(created)
	k.RevokedAt = FromNullMs(revoked)
	return k, nil
}
