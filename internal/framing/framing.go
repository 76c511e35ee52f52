// Package framing marks HTTP/1.x requests whose message framing is
// ambiguous: a request head carrying both Content-Length and
// Transfer-Encoding (RFC 9112 §6.3: "ought to be handled as an error";
// the classic request-smuggling shape when a proxy sits in front).
//
// net/http cannot tell such a request from a plain chunked one: it lets
// Transfer-Encoding win and deletes Content-Length from the header (and
// on HTTP/1.0 it drops Transfer-Encoding and reads Content-Length), so
// the handler sees nothing of the conflict. A listener wrapped by Listen
// watches the bytes of each connection: it follows the request heads and
// the body framing net/http applies (Content-Length, chunked), and when a
// head names both fields it adds the header Marker to that head (after
// the second of them) before the server reads it. The HTTP layer answers a marked request 400 and
// closes the connection (internal/httpapi, withFraming).
//
// The watch costs a scan of each head's lines and of chunk-size lines; a
// body of known length is skipped by count. Anything it does not follow
// (a head over MaxHeadBytes, a Transfer-Encoding other than chunked, a
// malformed chunk, HTTP/2's preface) ends the watch of that connection
// and leaves its bytes untouched: net/http refuses or closes those
// connections itself.
package framing

import (
	"bytes"
	"net"
	"strconv"
)

// Marker is the header added to a request head that carries both
// Content-Length and Transfer-Encoding.
const Marker = "Assetd-Framing-Conflict"

// MaxHeadBytes bounds the head the watch follows (net/http's default
// MaxHeaderBytes plus its 4 KB slack).
const MaxHeadBytes = 1<<20 + 4096

var markerLine = []byte(Marker + ": content-length-and-transfer-encoding\r\n")

// Listen wraps l so that its connections mark ambiguous request heads.
func Listen(l net.Listener) net.Listener { return listener{l} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c}, nil
}

// Parser states.
const (
	stHead      = iota // in a request head, at the start of a line when lineLen == 0
	stBody             // skipping left bytes of a Content-Length body
	stChunkSize        // in a chunk-size line
	stChunkData        // skipping left bytes of chunk data
	stChunkEnd         // skipping the CRLF after chunk data (left bytes)
	stTrailer          // in the trailer section, at a line start when lineLen == 0
	stOff              // not following this connection any more
)

// conn follows one connection's request stream (read side only; only the
// server's connection goroutine reads).
type conn struct {
	net.Conn
	pending []byte // bytes to hand out before reading again (a marker and what follows it)
	err     error  // the read error to return once pending is handed out

	state    int
	left     int64  // bytes left in stBody, stChunkData, stChunkEnd
	headLen  int    // bytes of the current head so far
	lineLen  int    // bytes of the current line so far
	line     []byte // the current line's first 64 bytes other than spaces and tabs (only its first when skip)
	skip     bool   // the current line starts with neither 'c' nor 't': line holds its first byte only
	tail     []byte // the request line's last 16 bytes
	lineNo   int    // lines of the current head so far
	http10   bool   // the request line ends in HTTP/1.0
	hasCL    bool
	hasTE    bool
	teChunk  bool  // the (last) Transfer-Encoding value is chunked
	clValue  int64 // the Content-Length value, -1 when unusable
	sizeLine []byte
}

// WriteConn is the connection writes reach unchanged (the watch is on the
// read side only): internal/coalesce sends held responses to it, so that
// they leave with one writev.
func (c *conn) WriteConn() net.Conn { return c.Conn }

// Read returns the connection's bytes, with Marker added to ambiguous
// heads.
func (c *conn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	if c.err != nil { // the read error that came with the marked bytes
		err := c.err
		c.err = nil
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	n, err := c.Conn.Read(p)
	if c.state == stOff || n == 0 {
		return n, err
	}
	out, rest := c.scan(p[:n])
	if rest != nil {
		c.pending = append(c.pending[:0], rest...)
		c.err, err = err, nil
	}
	if out == 0 && len(c.pending) > 0 { // the marker goes first
		m := copy(p, c.pending)
		c.pending = c.pending[m:]
		return m, err
	}
	return out, err
}

// scan follows data and returns how many of its bytes to hand out now;
// rest, when not nil, is handed out after them (the marker line and the
// rest of data).
func (c *conn) scan(data []byte) (out int, rest []byte) {
	for i := 0; i < len(data); {
		switch c.state {
		case stOff:
			return len(data), nil
		case stBody, stChunkData, stChunkEnd:
			k := int64(len(data) - i)
			if k > c.left {
				k = c.left
			}
			i += int(k)
			c.left -= k
			if c.left == 0 {
				switch c.state {
				case stBody:
					c.startHead()
				case stChunkData:
					c.state, c.left = stChunkEnd, 2
				case stChunkEnd:
					c.state, c.sizeLine = stChunkSize, c.sizeLine[:0]
				}
			}
		case stChunkSize:
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				c.sizeLine = append(c.sizeLine, data[i:]...)
				if len(c.sizeLine) > 4096 {
					c.state = stOff
				}
				return len(data), nil
			}
			c.sizeLine = append(c.sizeLine, data[i:i+j]...)
			i += j + 1
			c.chunkSize()
		case stHead, stTrailer:
			j := bytes.IndexByte(data[i:], '\n')
			seg := data[i:]
			if j >= 0 {
				seg = data[i : i+j+1]
			}
			c.headLen += len(seg)
			c.lineLen += len(seg)
			if c.headLen > MaxHeadBytes {
				c.state = stOff
				return len(data), nil
			}
			for _, b := range seg {
				if len(c.line) == 64 || c.skip {
					break
				}
				if b != ' ' && b != '\t' {
					c.line = append(c.line, b)
					// A line that cannot name Content-Length or
					// Transfer-Encoding needs only its first byte (the
					// empty-line check): most lines stop copying here.
					c.skip = len(c.line) == 1 && b|0x20 != 'c' && b|0x20 != 't'
				}
			}
			if c.lineNo == 0 {
				c.keepTail(seg)
			}
			i += len(seg)
			if j < 0 {
				continue
			}
			empty := c.lineLen == 1 || c.lineLen == 2 && c.line[0] == '\r'
			switch {
			case c.state == stTrailer:
				if empty {
					c.startHead()
					continue
				}
			case empty && c.lineNo == 0: // before a request line: net/http decides
			case empty:
				c.bodyAfterHead()
				continue
			default:
				c.headLine()
				if c.hasCL && c.hasTE {
					// Mark the head after this line and stop following: the
					// server answers 400 and closes the connection.
					c.state = stOff
					rest = make([]byte, 0, len(markerLine)+len(data)-i)
					rest = append(append(rest, markerLine...), data[i:]...)
					return i, rest
				}
			}
			c.lineNo++
			c.lineLen, c.line, c.skip = 0, c.line[:0], false
			c.tail = c.tail[:0]
		}
	}
	return len(data), nil
}

// tail keeps the last bytes of the request line (its version).
func (c *conn) keepTail(seg []byte) {
	c.tail = append(c.tail, seg...)
	if len(c.tail) > 16 {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-16:]...)
	}
}

// startHead resets the parser for the next request head.
func (c *conn) startHead() {
	c.state, c.headLen, c.lineLen, c.lineNo = stHead, 0, 0, 0
	c.line, c.tail, c.skip = c.line[:0], c.tail[:0], false
	c.http10, c.hasCL, c.hasTE, c.teChunk, c.clValue = false, false, false, false, 0
}

// headLine takes one complete line of a head (its first 64 bytes other
// than spaces and tabs in c.line; the request line's last bytes in
// c.tail).
func (c *conn) headLine() {
	if c.lineNo == 0 {
		v := bytes.TrimRight(c.tail, "\r\n")
		switch {
		case bytes.HasSuffix(v, []byte(" HTTP/1.1")):
		case bytes.HasSuffix(v, []byte(" HTTP/1.0")):
			c.http10 = true
		default: // HTTP/2's preface, garbage: net/http decides
			c.state = stOff
		}
		return
	}
	if len(c.line) == 0 || c.line[0]|0x20 != 'c' && c.line[0]|0x20 != 't' {
		return // neither name: most lines end here
	}
	name, value, ok := bytes.Cut(c.line, []byte(":"))
	if !ok {
		return
	}
	switch {
	case bytes.EqualFold(name, []byte("Content-Length")):
		v, err := strconv.ParseInt(string(bytes.TrimRight(value, "\r\n")), 10, 64)
		if err != nil || v < 0 || c.hasCL && v != c.clValue {
			v = -1 // net/http refuses the request and closes
		}
		c.hasCL, c.clValue = true, v
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		c.hasTE = true
		c.teChunk = bytes.EqualFold(bytes.TrimRight(value, "\r\n"), []byte("chunked"))
	}
}

// bodyAfterHead sets the state for the body of the head just read, as
// net/http frames it.
func (c *conn) bodyAfterHead() {
	switch {
	case c.hasTE && !c.http10:
		if !c.teChunk { // net/http answers 501 and closes
			c.state = stOff
			return
		}
		c.state, c.sizeLine = stChunkSize, c.sizeLine[:0]
	case c.hasCL && c.clValue < 0:
		c.state = stOff
	case c.hasCL && c.clValue > 0:
		c.state, c.left = stBody, c.clValue
	default:
		c.startHead()
	}
}

// chunkSize takes a complete chunk-size line.
func (c *conn) chunkSize() {
	v := bytes.TrimRight(c.sizeLine, "\r")
	if k := bytes.IndexByte(v, ';'); k >= 0 {
		v = v[:k]
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 16, 64)
	switch {
	case err != nil || n < 0:
		c.state = stOff
	case n == 0:
		c.state, c.lineLen = stTrailer, 0
	default:
		c.state, c.left = stChunkData, n
	}
}
