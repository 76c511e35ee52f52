package codec

import (
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/usage"
)

// ScanDayCounts reads rows of (day in unix days, route, status, requests),
// the shape both engines' UsageByDay select.
func ScanDayCounts(rows storage.RowIter) ([]usage.DayCount, error) {
	var out []usage.DayCount
	for rows.Next() {
		var d usage.DayCount
		var day int64
		if err := rows.Scan(&day, &d.Route, &d.Status, &d.Requests); err != nil {
			return nil, err
		}
		d.Day = time.Unix(day*86400, 0).UTC()
		out = append(out, d)
	}
	return out, rows.Err()
}

// ScanBuckets reads rows of (bucket index, route, status, requests,
// charged, last minute) for buckets of bucketMinutes, the shape both
// engines' UsageBuckets select.
func ScanBuckets(rows storage.RowIter, bucketMinutes int64) ([]usage.Bucket, error) {
	var out []usage.Bucket
	for rows.Next() {
		var b usage.Bucket
		var idx, last int64
		if err := rows.Scan(&idx, &b.Route, &b.Status, &b.Requests, &b.Charged, &last); err != nil {
			return nil, err
		}
		b.Start = time.Unix(idx*bucketMinutes*60, 0).UTC()
		b.Last = time.Unix(last*60, 0).UTC()
		out = append(out, b)
	}
	return out, rows.Err()
}
