package httpapi

import (
	"bytes"
	"hash/crc64"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/assetd/assetd/internal/coalesce"
	"github.com/klauspost/compress/gzip"
)

// Conditional and compressed responses (docs/http.md). Every 200 of a
// cacheable GET carries a strong ETag (a CRC-64 of the exact plain bytes:
// the same model version and normalised parameters give the same bytes,
// so the same tag), answers a matching If-None-Match with 304 and no
// body, and is gzipped when the client accepts it and the body is at
// least gzipMinBytes. Bodies are written with Content-Length in one call.

const (
	// gzipMinBytes: smaller bodies are sent plain (a frame or two either way).
	gzipMinBytes = 1024
	// gzipCacheMinBytes: the gzip form of a body at least this large is
	// kept beside its ETag, so it is compressed once per distinct body.
	gzipCacheMinBytes = 8 << 10
	// gzipCacheEntries bounds that cache; it is emptied when full.
	gzipCacheEntries = 512
)

var crcTable = crc64.MakeTable(crc64.ECMA)

// strongETag is the quoted CRC-64 of body.
func strongETag(body []byte) string {
	var b [18]byte
	b[0] = '"'
	sum := crc64.Checksum(body, crcTable)
	const hexd = "0123456789abcdef"
	for i := 0; i < 16; i++ {
		b[16-i] = hexd[sum&0xf]
		sum >>= 4
	}
	b[17] = '"'
	return string(b[:])
}

// etagMatches reports whether an If-None-Match value names etag (weak
// comparison, as RFC 9110 requires for If-None-Match) or is "*".
func etagMatches(inm, etag string) bool {
	for inm != "" {
		var t string
		t, inm, _ = strings.Cut(inm, ",")
		t = strings.TrimSpace(t)
		t = strings.TrimPrefix(t, "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether Accept-Encoding allows gzip (q > 0).
func acceptsGzip(ae string) bool {
	for ae != "" {
		var t string
		t, ae, _ = strings.Cut(ae, ",")
		name, params, _ := strings.Cut(t, ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, "gzip") && name != "*" {
			continue
		}
		params = strings.TrimSpace(params)
		if q, ok := strings.CutPrefix(params, "q="); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(q), 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// conditional is what a cacheable GET asked for, captured by wrap.
type conditional struct {
	on          bool
	ifNoneMatch string
	gzip        bool
}

// encoded is one response body encoded once: its plain bytes, strong
// ETag and (for large bodies) gzip form, computed on first need. The
// header values are kept as ready slices, so a response from it sets its
// headers without allocating.
type encoded struct {
	// dep is what the body was built from beyond the version (the token
	// index of a search); a different dep is a miss.
	dep any
	// nonFinite is the JSON path of its first NaN or ±Inf written as null.
	nonFinite string
	plain     []byte
	etag      string
	etagHdr   []string // {etag}
	lenHdr    []string // {len(plain)}
	gzOnce    sync.Once
	gz        []byte
	gzLenHdr  []string // {len(gz)}
}

func newEncoded(plain []byte) *encoded {
	e := &encoded{plain: plain, etag: strongETag(plain)}
	e.etagHdr = []string{e.etag}
	e.lenHdr = []string{strconv.Itoa(len(plain))}
	return e
}

func (e *encoded) gzipped() []byte {
	e.gzOnce.Do(func() {
		e.gz = gzipBytes(e.plain)
		e.gzLenHdr = []string{strconv.Itoa(len(e.gz))}
	})
	return e.gz
}

var gzPool = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression)
	return zw
}}

func gzipBytes(p []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(p)/4 + 64)
	zw := gzPool.Get().(*gzip.Writer)
	zw.Reset(&out)
	_, _ = zw.Write(p)
	_ = zw.Close()
	gzPool.Put(zw)
	return out.Bytes()
}

// gzipCache keeps the gzip form of large unversioned bodies by ETag.
type gzipCache struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (c *gzipCache) get(etag string, plain []byte) []byte {
	c.mu.Lock()
	gz, ok := c.m[etag]
	c.mu.Unlock()
	if ok {
		return gz
	}
	gz = gzipBytes(plain)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= gzipCacheEntries {
		c.m = make(map[string][]byte, 64)
	}
	c.m[etag] = gz
	c.mu.Unlock()
	return gz
}

// Shared header values. Each has len == cap, so Header.Add appends to a
// copy and never writes into them; Header.Set replaces them.
var (
	hdrJSON           = []string{"application/json"}
	hdrAcceptEncoding = []string{"Accept-Encoding"}
	hdrGzip           = []string{"gzip"}
	hdrSmallLens      = func() [][]string {
		out := make([][]string, 1024)
		for i := range out {
			out[i] = []string{strconv.Itoa(i)}
		}
		return out
	}()
)

// lengthHdr is n as a Content-Length header value (shared below 1024).
func lengthHdr(n int) []string {
	if n < len(hdrSmallLens) {
		return hdrSmallLens[n]
	}
	return []string{strconv.Itoa(n)}
}

// writeBody writes a JSON body with Content-Length in one call; on a 200
// of a cacheable GET it adds the ETag, answers If-None-Match and
// compresses. enc, when not nil, holds body's precomputed ETag and gzip
// form. Header keys are set in canonical form directly (no
// canonicalisation, no per-request value slices for the shared values).
func writeBody(w http.ResponseWriter, status int, body []byte, enc *encoded) error {
	h := w.Header()
	rw, _ := w.(*recorder)
	if rw == nil || !rw.cond.on || status != http.StatusOK {
		h["Content-Type"] = hdrJSON
		if needsLength(rw, len(body)) {
			h["Content-Length"] = lengthHdr(len(body))
		}
		return send(w, rw, status, body)
	}
	if enc != nil {
		h["Etag"] = enc.etagHdr
	} else {
		h["Etag"] = []string{strongETag(body)}
	}
	if v, ok := h["Vary"]; ok {
		h["Vary"] = append(v, "Accept-Encoding")
	} else {
		h["Vary"] = hdrAcceptEncoding
	}
	if rw.cond.ifNoneMatch != "" && etagMatches(rw.cond.ifNoneMatch, h["Etag"][0]) {
		// A 304 has no body: Content-Type is never set on it (not set
		// and deleted), the rest of the body's work is skipped.
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h["Content-Type"] = hdrJSON
	var lenHdr []string
	if rw.cond.gzip && len(body) >= gzipMinBytes {
		switch {
		case enc != nil:
			body = enc.gzipped()
			lenHdr = enc.gzLenHdr
		case len(body) >= gzipCacheMinBytes && rw.gz != nil:
			body = rw.gz.get(h["Etag"][0], body)
		default:
			body = gzipBytes(body)
		}
		h["Content-Encoding"] = hdrGzip
	} else if enc != nil {
		lenHdr = enc.lenHdr
	}
	if needsLength(rw, len(body)) {
		if lenHdr == nil {
			lenHdr = lengthHdr(len(body))
		}
		h["Content-Length"] = lenHdr
	}
	return send(w, rw, status, body)
}

// coalesceMinBytes: a body this large would leave net/http's 4 KB
// connection buffer in two writes after its headers; send holds the
// connection so that headers and body go in one.
const coalesceMinBytes = 2 << 10

// needsLength reports whether the handler must set Content-Length for an
// n-byte body. On an HTTP/1.x connection of net/http's server (rw.conn)
// a body under coalesceMinBytes stays in the response's 2 KB buffer
// until the handler returns, and net/http then writes its Content-Length
// itself, outside the header map: one entry fewer for net/http to clone,
// sort and write, and a production response's map stays at its small
// size (8 entries; assigning and cloning 9 takes 1.8 µs and 7 allocations
// against 0.45 µs and 1, docs/http.md).
func needsLength(rw *recorder, n int) bool {
	return rw == nil || rw.conn == nil || n >= coalesceMinBytes
}

// flushErrorer is net/http's response writer.
type flushErrorer interface{ FlushError() error }

// send writes the status and body. On a coalescing connection (rw.conn)
// a body of coalesceMinBytes or more is written and flushed while the
// connection is held, so the response reaches the socket in one write;
// body must not change until send returns.
func send(w http.ResponseWriter, rw *recorder, status int, body []byte) error {
	var c *coalesce.Conn
	if rw != nil && len(body) >= coalesceMinBytes {
		c = rw.conn
	}
	if c == nil {
		w.WriteHeader(status)
		_, err := w.Write(body)
		return err
	}
	c.Hold(body)
	w.WriteHeader(status)
	_, err := w.Write(body)
	if f, ok := rw.ResponseWriter.(flushErrorer); ok && err == nil {
		err = f.FlushError()
	}
	if rerr := c.Release(); err == nil {
		err = rerr
	}
	return err
}
