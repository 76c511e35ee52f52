package news

import (
	"cmp"
	"slices"
	"time"
)

// DedupeWindow is how far apart two items with the same normalised title
// may be published and still count as one story.
const DedupeWindow = 48 * time.Hour

// DedupeStats counts the items Dedupe dropped, by reason.
type DedupeStats struct {
	URL   int // same canonical URL as an earlier item
	Title int // same normalised title as an item published up to 48 h earlier
}

// Total is URL + Title.
func (d DedupeStats) Total() int { return d.URL + d.Title }

// Dedupe keeps the earliest item of every canonical URL and of every
// normalised title within DedupeWindow, and returns the kept items
// ordered by publication time (oldest first; ties by first-seen time,
// then canonical URL). Items without a canonical URL are dropped
// beforehand by the adapters; an empty title never matches another.
// items is not modified.
func Dedupe(items []Item) ([]Item, DedupeStats) {
	// Sort positions, not the (large) items.
	order := make([]int32, len(items))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int {
		a, b := &items[x], &items[y]
		if c := a.PostedAt.Compare(b.PostedAt); c != 0 {
			return c
		}
		if c := a.FirstSeen.Compare(b.FirstSeen); c != 0 {
			return c
		}
		return cmp.Compare(a.CanonicalURL, b.CanonicalURL)
	})
	var st DedupeStats
	urls := make(map[string]bool, len(items))
	titles := make(map[string]time.Time, len(items))
	kept := make([]Item, 0, len(items))
	for _, i := range order {
		it := &items[i]
		if urls[it.CanonicalURL] {
			st.URL++
			continue
		}
		urls[it.CanonicalURL] = true
		key := TitleKey(it.Title)
		if key != "" {
			if at, ok := titles[key]; ok && it.PostedAt.Sub(at) <= DedupeWindow {
				st.Title++
				continue
			}
			titles[key] = it.PostedAt
		}
		kept = append(kept, *it)
	}
	return kept, st
}
