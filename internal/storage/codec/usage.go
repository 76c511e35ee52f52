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
