//go:build unix

package swapdecode

import "syscall"

// processCPU returns the process's user+system CPU time in nanoseconds:
// on a shared machine the benchmark reports it per op next to wall time,
// so the per-core rate does not depend on other load.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
