package main

import (
	"log/slog"
	"runtime"
	"runtime/debug"
	"time"
)

// releaseStartupMemory returns start-up's garbage to the operating system
// once its one-off builds are done (the stored registry decoded, the
// snapshot, catalog, search index and curator claims built). Until the
// next collection the runtime keeps that memory mapped, sized by the
// start-up peak rather than by what the server holds: with a 150k-asset
// registry about twice the live heap.
func releaseStartupMemory(log *slog.Logger) {
	start := time.Now()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	debug.FreeOSMemory()
	runtime.ReadMemStats(&after)
	const mb = 1 << 20
	log.Info("start-up memory released", "heap_live_mb", after.HeapAlloc/mb,
		"released_mb", (after.HeapReleased-min(after.HeapReleased, before.HeapReleased))/mb,
		"mapped_mb", (after.Sys-after.HeapReleased)/mb, "took", time.Since(start).Round(time.Millisecond))
}
