package httpapi

import (
	"net/http"
	"sync"
)

// bodyCacheEntries bounds the responses kept for one catalog version
// (distinct normalised parameter sets); past it, bodies are encoded per
// request until the next version.
const bodyCacheEntries = 2048

// bodyCache holds the encoded responses of the catalog's read models
// (curated, search) for one model version: each distinct normalised
// request is encoded once per version, with its ETag and gzip form.
type bodyCache struct {
	mu      sync.RWMutex
	version uint64
	m       map[string]*encoded
}

func (c *bodyCache) get(version uint64, dep any, key []byte) *encoded {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.version != version {
		return nil
	}
	if e := c.m[string(key)]; e != nil && e.dep == dep { // no allocation for the lookup
		return e
	}
	return nil
}

func (c *bodyCache) put(version uint64, key string, e *encoded) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != version {
		if version < c.version {
			return // a request that read an older model
		}
		c.version, c.m = version, nil
	}
	if c.m == nil { // the first put, or the first of a version
		c.m = make(map[string]*encoded, 64)
	}
	if _, ok := c.m[key]; ok || len(c.m) < bodyCacheEntries {
		c.m[key] = e
	}
}

// versioned is a read model that numbers its states (the advisory index):
// what is derived from one version stays valid while Version holds.
type versioned interface {
	Version() uint64
}

// serveVersioned answers from the body c holds for (version, dep, key),
// encoding build() once when it is missing. dep is compared by identity
// (nil when version says everything).
// key is built by the caller in a buffer of its own: a hit does not
// allocate it.
func serveVersioned(w http.ResponseWriter, c *bodyCache, version uint64, dep any, key []byte, build func() any) error {
	e := c.get(version, dep, key)
	if e == nil {
		b, first, err := encodeJSON(build())
		if err != nil {
			return err
		}
		e = newEncoded(b)
		e.dep, e.nonFinite = dep, first
		c.put(version, string(key), e)
	}
	if rw, ok := w.(*recorder); ok && e.nonFinite != "" {
		rw.nonFinite = e.nonFinite
	}
	return writeBody(w, http.StatusOK, e.plain, e)
}
