package main

import (
	"testing"
	"time"
)

// FuzzParseLimits: the rate and quota parsers never panic and only accept
// positive counts with a window of 1s..1h.
func FuzzParseLimits(f *testing.F) {
	for _, s := range []string{"100/10s", "5/m", "1/1h", "0/1s", "-1/1s", "10", "10/", "/10s", "1/month", "9999999999999999999/1s", "1/1ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, w, err := parseRate(s); err == nil && (n <= 0 || w < time.Second || w > time.Hour) {
			t.Fatalf("parseRate(%q) = %d, %s", s, n, w)
		}
		if q, err := parseQuota(s); err == nil && q <= 0 {
			t.Fatalf("parseQuota(%q) = %d", s, q)
		}
	})
}
