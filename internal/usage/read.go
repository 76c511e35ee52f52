package usage

import "time"

// DayCount is a key's requests of one UTC day, route and status (what
// `assetd keys usage` prints).
type DayCount struct {
	Day      time.Time // 00:00 UTC
	Route    string
	Status   int
	Requests int64
}

// MinuteOf is t in unix minutes, the unit aggregates and queries use.
func MinuteOf(t time.Time) int64 { return minuteOf(t) }

// MonthStart is 00:00 UTC on the first day of t's month (what a monthly
// quota counts from).
func MonthStart(t time.Time) time.Time {
	u := t.UTC()
	return time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// Bucket is a key's requests of one route and status in one time bucket
// (a UTC hour or day): what the dashboard charts and breaks down.
type Bucket struct {
	Start    time.Time // start of the bucket, UTC
	Route    string
	Status   int
	Requests int64
	Charged  int64     // requests the limiter charged (what a quota counts)
	Last     time.Time // start of the bucket's last minute with a request
}
