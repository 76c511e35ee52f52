package httpapi

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"sync"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/registry"
)

// List reads encoded once per version (docs/lists.md "Caching"). A list
// read (GET /v2/lists/{slug}), a composition (GET /v2/lists/tokens), the
// catalog (GET /v2/lists) and a token-list export are encoded once per
// set of the versions they are built from (listDeps); a request whose
// versions match answers the kept bytes, ETag and gzip form. List and
// composition rows are encoded once each: a page is the document's head,
// a slice of the encoded rows and its tail, encoded once per distinct
// (start, end) of rows.

const (
	// listBodiesEntries bounds the lists (and compositions, catalog
	// pages) kept; past it the cache is emptied.
	listBodiesEntries = 1024
	// listPagesPerEntry bounds the distinct pages kept per list version;
	// past it, further pages are assembled per request (still from the
	// encoded rows).
	listPagesPerEntry = 64
)

// listDeps are the versions a list read is built from: the catalog model
// (curated membership and registry text; 0 for a community list), the
// advisory index, the list views (the catalog and compositions; 0 for a
// single list) and the community list's own view (nil for curated ones).
// A field added here (a further source of list rows) keys every list
// cache at once.
type listDeps struct {
	catalog    uint64
	advisories uint64
	views      uint64
	// facts is the on-chain facts version: members' decimals the
	// registry lacks resolve through them (internal/decimals).
	facts uint64
	view  *lists.View
	// snap is the registry snapshot of a curated list read (its text and
	// tokens); with the entry's members (compared by value), it stands
	// for the catalog version there, so a market refresh that leaves the
	// effective membership alone keeps the encoded read.
	snap *registry.Snapshot
}

// listEntry is one list read encoded for its deps: the document up to
// its rows (head, ending with '['), each row, and the tail; the pages and
// the token-list export built from it.
type listEntry struct {
	deps listDeps
	head []byte
	rows [][]byte
	tail []byte
	// body is the whole document of an unpaged read (the catalog).
	body *encoded
	// members is a curated list's effective membership it was built from.
	members []registry.CuratedMember

	mu     sync.Mutex
	pages  map[[2]int]*encoded
	export *encoded
}

// listBodies holds the encoded list reads by key (a slug, or a
// composition's or catalog page's normalised parameters).
type listBodies struct {
	mu sync.RWMutex
	m  map[string]*listEntry
}

// get returns the entry of key when it was built for deps.
func (c *listBodies) get(key string, deps listDeps) *listEntry {
	c.mu.RLock()
	e := c.m[key]
	c.mu.RUnlock()
	if e == nil || e.deps != deps {
		return nil
	}
	return e
}

// getKey is get with a key built in the caller's buffer (no allocation).
func (c *listBodies) getKey(key []byte, deps listDeps) *listEntry {
	c.mu.RLock()
	e := c.m[string(key)]
	c.mu.RUnlock()
	if e == nil || e.deps != deps {
		return nil
	}
	return e
}

func (c *listBodies) put(key string, e *listEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= listBodiesEntries {
		if _, ok := c.m[key]; !ok {
			c.m = make(map[string]*listEntry, 64)
		}
	}
	c.m[key] = e
}

// newRowsEntry encodes doc (whose last field is its row array, encoded
// empty) and rows: the entry's head is doc up to the array's '[', its
// tail what follows the array. ok is false when doc does not end with an
// empty array (the caller encodes per request).
func newRowsEntry[T any](deps listDeps, doc any, rows []T) (*listEntry, bool) {
	b, first, err := encodeJSON(doc)
	if err != nil || first != "" || !bytes.HasSuffix(b, []byte("[]}\n")) {
		return nil, false
	}
	e := &listEntry{deps: deps, head: b[:len(b)-3], tail: b[len(b)-3:], rows: make([][]byte, len(rows))}
	for i := range rows {
		r, err := json.Marshal(&rows[i])
		if err != nil {
			return nil, false
		}
		e.rows[i] = r
	}
	return e, true
}

// page is the encoded document holding rows [start, end).
func (e *listEntry) page(start, end int) *encoded {
	k := [2]int{start, end}
	e.mu.Lock()
	p := e.pages[k]
	e.mu.Unlock()
	if p != nil {
		return p
	}
	n := len(e.head) + len(e.tail) + end - start
	for _, r := range e.rows[start:end] {
		n += len(r)
	}
	b := make([]byte, 0, n)
	b = append(b, e.head...)
	for i, r := range e.rows[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	b = append(b, e.tail...)
	p = newEncoded(b)
	e.mu.Lock()
	if e.pages == nil {
		e.pages = make(map[[2]int]*encoded, 4)
	}
	if q := e.pages[k]; q != nil {
		p = q
	} else if len(e.pages) < listPagesPerEntry {
		e.pages[k] = p
	}
	e.mu.Unlock()
	return p
}

// pageBounds clips offset and limit to n rows.
func pageBounds(offset, limit, n int) (int, int) {
	start := min(offset, n)
	return start, min(start+limit, n)
}

// listAdvisoryVersion is the version of the advisory index list reads
// consult (false: it has none, and list reads are encoded per request).
func (s *Server) listAdvisoryVersion() (uint64, bool) {
	if s.d.ListReader == nil {
		return 0, false
	}
	if s.d.ListReader.Advisories == nil {
		return 0, true
	}
	av, ok := s.d.ListReader.Advisories.(versioned)
	if !ok {
		return 0, false
	}
	return av.Version(), true
}

// listDepsFor are the deps of the list read of slug, and a curated
// list's effective membership.
func (s *Server) listDepsFor(slug string) (listDeps, []registry.CuratedMember, bool) {
	av, ok := s.listAdvisoryVersion()
	if !ok || s.d.ListViews == nil {
		return listDeps{}, nil, false
	}
	d := listDeps{advisories: av, facts: s.d.OnChain.Version()}
	snap := s.d.ListReader.Catalog.Snapshot()
	if _, ok := snap.CuratedList(slug); ok {
		members, ok := s.d.ListReader.Catalog.CuratedMembers(slug)
		if !ok {
			return listDeps{}, nil, false
		}
		d.snap = snap
		return d, members, true
	}
	d.view, _ = s.d.ListViews.Get(slug)
	return d, nil, true
}

// setDeps are the deps of reads over several lists (composition,
// catalog).
func (s *Server) setDeps() (listDeps, bool) {
	av, ok := s.listAdvisoryVersion()
	if !ok || s.d.ListViews == nil {
		return listDeps{}, false
	}
	return listDeps{catalog: s.d.Catalog.Version(), advisories: av, views: s.d.ListViews.Version(), facts: s.d.OnChain.Version()}, true
}

// listEntryFor returns the encoded read of slug, building it on a miss
// (nil entry, nil error: not cacheable, encode per request).
func (s *Server) listEntryFor(slug string) (*listEntry, error) {
	deps, members, ok := s.listDepsFor(slug)
	if !ok {
		return nil, nil
	}
	if e := s.listBodies.get(slug, deps); e != nil && slices.Equal(e.members, members) {
		return e, nil
	}
	rl, err := s.d.ListReader.Read(slug)
	if err != nil {
		return nil, err
	}
	e, ok := newRowsEntry(deps, listDoc{rl.Summary, []lists.Token{}}, rl.Tokens)
	if !ok {
		return nil, nil
	}
	e.members = members
	s.listBodies.put(slug, e)
	return e, nil
}

// listDoc is the list read's document.
type listDoc struct {
	lists.Summary
	Tokens []lists.Token `json:"tokens"`
}

// composeEntry returns the encoded composition of slugs (all its rows;
// pages are slices of them), building it on a miss (nil: not cacheable).
func (s *Server) composeEntry(slugs []string) *listEntry {
	deps, ok := s.setDeps()
	if !ok {
		return nil
	}
	var kb [256]byte
	key := append(kb[:0], "\x00compose"...)
	for _, sl := range slugs {
		key = append(append(key, 0), sl...)
	}
	if e := s.listBodies.getKey(key, deps); e != nil {
		return e
	}
	c := s.d.ListReader.Compose(slugs, 0, math.MaxInt)
	rows := c.Tokens
	c.Tokens = []lists.Token{}
	e, ok := newRowsEntry(deps, c, rows)
	if !ok {
		return nil
	}
	s.listBodies.put(string(key), e)
	return e
}
