package upstream

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads a Retry-After header value: delta-seconds or an
// HTTP-date (RFC 9110 section 10.2.3), relative to now. A missing,
// unparsable or past value gives 0, meaning "the provider did not say".
func ParseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		const maxSeconds = int64(1<<63-1) / int64(time.Second)
		return time.Duration(min(n, maxSeconds)) * time.Second
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	if d := t.Sub(now); d > 0 {
		return d
	}
	return 0
}
