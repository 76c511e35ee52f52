package httpapi

import (
	"bytes"
	"io"
	"net/http"
)

// decodeMintsBody reads a market-snapshots body, {"mints":[...]} or
// {"addresses":[...]}, into mints and addresses. The common shape (those
// keys only, arrays of plain ASCII strings without escapes) is scanned
// directly, with one string allocation for all the mints; anything else,
// errors included, goes through decodeJSON into full, so every answer
// (values and error envelopes) is what encoding/json gives.
func decodeMintsBody(w http.ResponseWriter, r *http.Request, mints, addresses *[]string, full any) error {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	raw, err := readMintsBody(r, buf)
	return decodeReadMintsBody(w, r, raw, err, mints, addresses, full)
}

// readMintsBody reads a JSON-typed body of at most MaxBodyBytes into buf
// and returns its bytes; nil (and the read error, if any) when the body
// is not application/json, is too large or could not be read, which
// decodeReadMintsBody then hands to encoding/json.
func readMintsBody(r *http.Request, buf *bytes.Buffer) ([]byte, error) {
	if r.Header.Get("Content-Type") != "application/json" {
		return nil, nil
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil || buf.Len() > MaxBodyBytes {
		// Whatever was read is replayed to encoding/json, then the error.
		if err != nil {
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(buf.Bytes()), errReader{err}))
		} else {
			r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
		}
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeReadMintsBody finishes decodeMintsBody on what readMintsBody
// returned: raw is scanned when it has the common shape, and otherwise
// decoded by encoding/json (which reads r.Body when raw is nil).
func decodeReadMintsBody(w http.ResponseWriter, r *http.Request, raw []byte, readErr error, mints, addresses *[]string, full any) error {
	if raw != nil && scanMintsBody(raw, mints, addresses) {
		return nil
	}
	*mints, *addresses = nil, nil
	if raw != nil && readErr == nil {
		r.Body = io.NopCloser(bytes.NewReader(raw))
	}
	return decodeJSON(w, r, full)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// scanMintsBody parses b when it has the common shape (see
// decodeMintsBody); false when it does not (nothing is then promised
// about mints and addresses).
func scanMintsBody(b []byte, mints, addresses *[]string) bool {
	all := string(b) // the mints are substrings of this one copy
	i := skipWS(all, 0)
	if i >= len(all) || all[i] != '{' {
		return false
	}
	i = skipWS(all, i+1)
	if i < len(all) && all[i] == '}' {
		return skipWS(all, i+1) == len(all)
	}
	for {
		key, j, ok := scanPlainString(all, i)
		if !ok {
			return false
		}
		var dst *[]string
		switch key {
		case "mints":
			dst = mints
		case "addresses":
			dst = addresses
		default:
			return false
		}
		i = skipWS(all, j)
		if i >= len(all) || all[i] != ':' {
			return false
		}
		i = skipWS(all, i+1)
		if i >= len(all) || all[i] != '[' {
			return false
		}
		i = skipWS(all, i+1)
		out := make([]string, 0, 64)
		if i < len(all) && all[i] == ']' {
			i++
		} else {
			for {
				v, j, ok := scanPlainString(all, i)
				if !ok {
					return false
				}
				out = append(out, v)
				i = skipWS(all, j)
				if i < len(all) && all[i] == ',' {
					i = skipWS(all, i+1)
					continue
				}
				if i < len(all) && all[i] == ']' {
					i++
					break
				}
				return false
			}
		}
		*dst = out
		i = skipWS(all, i)
		if i < len(all) && all[i] == ',' {
			i = skipWS(all, i+1)
			continue
		}
		if i < len(all) && all[i] == '}' {
			return skipWS(all, i+1) == len(all)
		}
		return false
	}
}

func skipWS(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// scanPlainString reads a JSON string at s[i] made of printable ASCII
// without escapes; it returns its contents and the index after it.
func scanPlainString(s string, i int) (string, int, bool) {
	if i >= len(s) || s[i] != '"' {
		return "", i, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return s[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", i, false
		}
	}
	return "", i, false
}
