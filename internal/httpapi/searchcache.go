package httpapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"hash/crc64"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/assetd/assetd/internal/curator"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/tokenindex"
	"github.com/klauspost/compress/flate"
)

// Judged curator searches kept for a short time (docs/search-tokens.md
// "Bounds and caching per request"). A search-tokens answer is judged
// once per (interpretation: intent, normalised query, suspicious
// characters; policy, limit) and encoded once per query as sent (the body
// names it), for the versions it read: the registry
// snapshot (variants, curated membership), the token index, the market
// cache, the advisory index, the community list views and the on-chain
// facts; and for at most searchTokensTTL, since judging also reads the
// clock (ages, staleness) and the trade analytics, which are not part of
// the key: a trade does not re-judge every cached search, a kept answer
// shows trades at most searchTokensTTL late. An answer whose provider
// source is degraded (a background provider search still running) is not
// kept.
//
// latencyMs is not part of what is kept: each response carries its own.
// So that the per-request number costs neither a hash of the body nor a
// compression, an answer is kept as the bytes before and after the value,
// with their CRCs and their gzip (raw deflate) forms; a response splices
// the digits in, and its ETag and gzip trailer combine the pieces' CRCs
// (crcCombine): the ETag is still the CRC-64 of the exact bytes sent.

const (
	// searchTokensTTL bounds how long a judged answer is reused.
	searchTokensTTL = 5 * time.Second
	// searchTokensEntries bounds the answers kept; past it the cache is
	// emptied.
	searchTokensEntries = 1024
)

// searchDeps are the versions a judged answer read.
type searchDeps struct {
	snap                              *registry.Snapshot
	index                             *tokenindex.Index
	markets, advisories, views, facts uint64
}

// judged is one encoded answer, split around its latencyMs value.
type judged struct {
	deps searchDeps
	at   time.Time
	// before runs up to and including `"latencyMs":`; it starts with
	// `{"query":` and the query as sent, encoded, which ends at queryEnd.
	before   []byte
	queryEnd int
	after    []byte // from the ',' after the value

	// CRC-64 (the ETag's) of before and of after, and the operator that
	// shifts a CRC over len(after) bytes.
	crcBefore, crcAfter, shiftAfter uint64

	gzOnce sync.Once
	gz     *judgedGzip
}

// judgedGzip is the gzip form of a judged answer in pieces: head is the
// gzip header and before deflated, ending on a byte boundary (a sync
// flush); tail is after deflated by a fresh compressor, ending with the
// final block. Between them a response puts its latency digits as a
// stored block, after them the trailer.
type judgedGzip struct {
	head, tail                      []byte
	crcBefore, crcAfter, shiftAfter uint32 // CRC-32 (gzip's)
}

// searchCache holds judged answers by key: (query as sent, policy,
// limit) for the answers as sent, (interpretation, policy, limit) for the
// judgments they share.
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
	mc, _, ok := mv.Version() // analytics: bounded by the TTL, see above
	if !ok {
		return searchDeps{}, false
	}
	return searchDeps{snap: s.d.Catalog.Snapshot(), index: s.d.Catalog.TokenIndex(), markets: mc, advisories: av.Version(),
		views: s.d.ListViews.Version(), facts: s.d.OnChain.Version()}, true
}

var (
	latencyKey = []byte(`"latencyMs":0,`)
	queryKey   = []byte(`{"query":`)
)

// newJudged splits the encoding of res (latencyMs zeroed) around the
// latency value; nil when it cannot be split.
func newJudged(deps searchDeps, at time.Time, res curator.Response) *judged {
	res.LatencyMs = 0
	b, err := json.Marshal(res)
	if err != nil {
		return nil
	}
	q, err := json.Marshal(res.Query)
	if err != nil || !bytes.HasPrefix(b, queryKey) || !bytes.HasPrefix(b[len(queryKey):], q) {
		return nil
	}
	i := bytes.Index(b, latencyKey)
	if i < 0 {
		return nil
	}
	cut := i + len(latencyKey) - 2 // after the ':'
	j := &judged{deps: deps, at: at, before: b[:cut], queryEnd: len(queryKey) + len(q), after: append(b[cut+1:len(b):len(b)], '\n')}
	j.crcBefore, j.crcAfter = crc64.Checksum(j.before, crcTable), crc64.Checksum(j.after, crcTable)
	j.shiftAfter = crc64Shift.shift(len(j.after))
	return j
}

// withQuery is j for another query as sent with the same interpretation
// (the judgment reads only the interpretation): the same answer under its
// own "query"; nil when query cannot be encoded.
func (j *judged) withQuery(query string) *judged {
	q, err := json.Marshal(query)
	if err != nil {
		return nil
	}
	n := &judged{deps: j.deps, at: j.at, queryEnd: len(queryKey) + len(q), after: j.after,
		crcAfter: j.crcAfter, shiftAfter: j.shiftAfter}
	n.before = make([]byte, 0, n.queryEnd+len(j.before)-j.queryEnd)
	n.before = append(append(append(n.before, queryKey...), q...), j.before[j.queryEnd:]...)
	n.crcBefore = crc64.Checksum(n.before, crcTable)
	return n
}

// judgedBufs holds the buffers responses are assembled in (send is done
// with them when it returns).
var judgedBufs = sync.Pool{New: func() any { return new([]byte) }}

// write writes the answer with latency ms as writeBody writes a body:
// ETag (the CRC-64 of the bytes, combined from the pieces'),
// If-None-Match, gzip when accepted, Content-Length.
func (j *judged) write(w http.ResponseWriter, ms float64) error {
	var digits [32]byte
	num := strconv.AppendFloat(digits[:0], ms, 'f', -1, 64)
	size := len(j.before) + len(num) + len(j.after)
	h := w.Header()
	rw, _ := w.(*recorder)
	bp := judgedBufs.Get().(*[]byte)
	defer judgedBufs.Put(bp)
	body := (*bp)[:0]
	if rw != nil && rw.cond.on {
		crc := crc64Shift.combine(crc64.Update(j.crcBefore, crcTable, num), j.crcAfter, j.shiftAfter)
		var tag [18]byte
		h["Etag"] = []string{string(appendETag(tag[:0], crc))}
		if v, ok := h["Vary"]; ok {
			h["Vary"] = append(v, "Accept-Encoding")
		} else {
			h["Vary"] = hdrAcceptEncoding
		}
		if rw.cond.ifNoneMatch != "" && etagMatches(rw.cond.ifNoneMatch, h["Etag"][0]) {
			w.WriteHeader(http.StatusNotModified) // no Content-Type: no body
			return nil
		}
		if rw.cond.gzip && size >= gzipMinBytes {
			body = j.gzipped().appendTo(body, num, size)
			h["Content-Encoding"] = hdrGzip
		}
	}
	h["Content-Type"] = hdrJSON
	if len(body) == 0 {
		body = append(append(append(body, j.before...), num...), j.after...)
	}
	*bp = body
	if needsLength(rw, len(body)) {
		h["Content-Length"] = lengthHdr(len(body))
	}
	return send(w, rw, http.StatusOK, body)
}

// appendETag appends crc as a strong ETag ("" and 16 hex digits).
func appendETag(b []byte, crc uint64) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexd[crc>>uint(i)&0xf])
	}
	return append(b, '"')
}

// gzipped returns the gzip pieces, compressing on first need.
func (j *judged) gzipped() *judgedGzip {
	j.gzOnce.Do(func() {
		g := &judgedGzip{crcBefore: crc32.ChecksumIEEE(j.before), crcAfter: crc32.ChecksumIEEE(j.after),
			shiftAfter: uint32(crc32Shift.shift(len(j.after)))}
		var buf bytes.Buffer
		// The gzip header: deflate, no flags, no time, no extra flags, OS
		// unknown (what compress/gzip writes without a name or time).
		buf.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
		zw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
		_, _ = zw.Write(j.before)
		_ = zw.Flush() // ends on a byte boundary
		g.head = bytes.Clone(buf.Bytes())
		buf.Reset()
		zw.Reset(&buf)
		_, _ = zw.Write(j.after)
		_ = zw.Close()
		g.tail = bytes.Clone(buf.Bytes())
		j.gz = g
	})
	return j.gz
}

// appendTo appends the gzip form of before, num, after (size bytes in
// all) to b.
func (g *judgedGzip) appendTo(b, num []byte, size int) []byte {
	b = append(b, g.head...)
	// num as a stored block, not final: header bits 000 padded to a byte,
	// then LEN and its complement.
	n := uint16(len(num))
	b = append(b, 0, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
	b = append(b, num...)
	b = append(b, g.tail...)
	crc := uint32(crc32Shift.combine(uint64(crc32.Update(g.crcBefore, crc32.IEEETable, num)), uint64(g.crcAfter), uint64(g.shiftAfter)))
	b = binary.LittleEndian.AppendUint32(b, crc)
	return binary.LittleEndian.AppendUint32(b, uint32(size))
}

// latencyMs is the time since start as the curator reports it (ms, two
// decimals).
func latencyMs(d time.Duration) float64 {
	return math.Round(float64(d.Microseconds())/10) / 100
}
