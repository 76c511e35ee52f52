package storage

import (
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
