//go:build !unix

package tokenindex

// cpuSeconds is unavailable here; benchmarks report 0.
func cpuSeconds() float64 { return 0 }
