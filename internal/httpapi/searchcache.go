package httpapi

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/curator"
)

// Judged curator searches kept for a short time (docs/search-tokens.md
// "Caching"). A search-tokens answer is encoded once per (query, policy,
// limit) and the versions it read: the catalog model (registry, curated
// membership, market views), the token index, the market cache and
// analytics, the advisory index and the community lists; and for at most
// searchTokensTTL, since judging also reads the clock (ages, staleness).
// An answer whose provider source is degraded (a background provider
// search still running) is not kept. latencyMs is not part of what is
// kept: each response carries its own.

const (
	// searchTokensTTL bounds how long a judged answer is reused.
	searchTokensTTL = 5 * time.Second
	// searchTokensEntries bounds the answers kept; past it the cache is
	// emptied.
	searchTokensEntries = 1024
)

// searchDeps are the versions a judged answer read.
type searchDeps struct {
	catalog, markets, analytics, advisories, views uint64
	index                                          any
}

// judged is one encoded answer, split around its latencyMs value.
type judged struct {
	deps   searchDeps
	at     time.Time
	before []byte // up to and including `"latencyMs":`
	after  []byte // from the ',' after the value
}

type searchCache struct {
	mu sync.RWMutex
	m  map[string]*judged
}

func (c *searchCache) get(key []byte, deps searchDeps, now time.Time) *judged {
	c.mu.RLock()
	j := c.m[string(key)]
	c.mu.RUnlock()
	if j == nil || j.deps != deps || now.Sub(j.at) >= searchTokensTTL || now.Before(j.at) {
		return nil
	}
	return j
}

func (c *searchCache) put(key string, j *judged) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= searchTokensEntries {
		c.m = make(map[string]*judged, 64)
	}
	c.m[key] = j
}

// searchDepsNow reads the versions; false when one of the sources does
// not number its states (answers are then judged per request).
func (s *Server) searchDepsNow() (searchDeps, bool) {
	av, ok := s.d.Advisories.(versioned)
	if !ok || s.d.Catalog == nil || s.d.ListViews == nil {
		return searchDeps{}, false
	}
	mv, ok := s.d.Markets.(marketVersioner)
	if !ok {
		return searchDeps{}, false
	}
	mc, ma, ok := mv.Version()
	if !ok {
		return searchDeps{}, false
	}
	d := searchDeps{catalog: s.d.Catalog.Version(), markets: mc, analytics: ma, advisories: av.Version(), views: s.d.ListViews.Version()}
	if x := s.d.Catalog.TokenIndex(); x != nil {
		d.index = x
	}
	return d, true
}

var latencyKey = []byte(`"latencyMs":0,`)

// newJudged splits the encoding of res (latencyMs zeroed) around the
// latency value; nil when it cannot be split.
func newJudged(deps searchDeps, at time.Time, res curator.Response) *judged {
	res.LatencyMs = 0
	b, err := json.Marshal(res)
	if err != nil {
		return nil
	}
	i := bytes.Index(b, latencyKey)
	if i < 0 {
		return nil
	}
	cut := i + len(latencyKey) - 2 // after the ':'
	return &judged{deps: deps, at: at, before: b[:cut], after: append(b[cut+1:len(b):len(b)], '\n')}
}

// body is the answer with latency ms.
func (j *judged) body(ms float64) []byte {
	b := make([]byte, 0, len(j.before)+len(j.after)+8)
	b = append(b, j.before...)
	b = strconv.AppendFloat(b, ms, 'f', -1, 64)
	return append(b, j.after...)
}

// latencyMs is the time since start as the curator reports it (ms, two
// decimals).
func latencyMs(d time.Duration) float64 {
	return math.Round(float64(d.Microseconds())/10) / 100
}
