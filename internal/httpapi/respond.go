package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/assetd/assetd/internal/apierr"
	"github.com/assetd/assetd/internal/storage"
)

// MaxBodyBytes is the largest request body accepted.
const MaxBodyBytes = 1 << 20

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeJSON writes v as a JSON response with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	first, err := encodeInto(buf, v)
	if err != nil {
		return err
	}
	if rw, ok := w.(*recorder); ok && first != "" {
		rw.nonFinite = first
	}
	return writeBody(w, status, buf.Bytes(), nil)
}

// encodeJSON returns v encoded exactly as writeJSON writes it, and the
// JSON path of its first non-finite number ("" when none).
func encodeJSON(v any) ([]byte, string, error) {
	var buf bytes.Buffer
	first, err := encodeInto(&buf, v)
	if err != nil {
		return nil, "", err
	}
	return buf.Bytes(), first, nil
}

// encodeInto encodes v into buf. encoding/json refuses NaN and ±Inf: they
// are written as null (slow path, never taken by a finite body) and first
// is the JSON path of the first one, for the request log.
func encodeInto(buf *bytes.Buffer, v any) (first string, err error) {
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		var uv *json.UnsupportedValueError
		if !errors.As(err, &uv) {
			return "", fmt.Errorf("encode response: %w", err)
		}
		buf.Reset()
		return encodeFinite(buf, v)
	}
	return "", nil
}

type envelope struct {
	Error envelopeBody `json:"error"`
}

type envelopeBody struct {
	Tag     string `json:"_tag"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// writeError renders err as the spec's error envelope and logs it: 5xx at
// error level with the cause, 4xx at debug. An internal error caused by a
// full store (storage.ErrFull) is 503 store_unavailable, logged at debug:
// the store logs the change of state.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if rw, ok := w.(*recorder); ok && rw.matched && rw.status != 0 {
		// The response already started (typically the client went away
		// while the body was written): an error envelope can no longer
		// be sent, and a vanished client is not a server failure.
		log.DebugContext(r.Context(), "response aborted after it started", "request_id", requestID(r.Context()),
			"status", rw.status, "err", err)
		return
	}
	e := apierr.From(err)
	storeFull := e.Kind == apierr.Internal && errors.Is(err, storage.ErrFull)
	if storeFull {
		e = &apierr.Error{Kind: apierr.Unavailable, Message: "the store has no space left for writes; nothing was written, retry later",
			Details: apierr.Details{"code": "store_unavailable"}, Cause: err}
	}
	status := e.Kind.Status()
	body := envelope{Error: envelopeBody{Tag: e.Kind.Tag(), Message: e.Message, Details: e.Details}}
	if status >= 500 {
		if e.Kind != apierr.Unavailable { // a 503 names the missing dependency; nothing else leaks
			body.Error.Message = "internal server error"
			body.Error.Details = nil
		}
		if storeFull {
			// The store logs the state change once (storage.FullWatch);
			// one line per refused write would flood the log.
			log.DebugContext(r.Context(), "request refused: store full", "request_id", requestID(r.Context()), "method", r.Method,
				"path", r.URL.Path, "err", err)
		} else {
			log.ErrorContext(r.Context(), "request failed", "request_id", requestID(r.Context()), "method", r.Method,
				"path", r.URL.Path, "err", err)
		}
	} else {
		log.DebugContext(r.Context(), "request refused", "request_id", requestID(r.Context()), "status", status, "err", err)
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	// Every 401 names its challenge (RFC 9110 §11.6.1): the API key
	// header, or a bearer session on /v1/whoami.
	switch e.Kind {
	case apierr.Unauthorized:
		h.Set("WWW-Authenticate", `ApiKey header="x-api-key"`)
	case apierr.SessionUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="assetd"`)
	}
	if e.Kind == apierr.RateLimited && h.Get("Retry-After") == "" {
		// Every 429 says when to retry (docs/errors.md), whichever limit
		// refused it.
		h.Set("Retry-After", strconv.FormatInt(max(1, ceilSeconds(e.RetryAfter)), 10))
	}
	_ = writeJSON(w, status, body)
}

// decodeJSON reads a JSON body into dst: it must be application/json, at
// most MaxBodyBytes, one JSON value of the right shape.
func decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != "application/json" {
		return apierr.New(apierr.BadRequest, "Content-Type must be application/json").
			WithDetails(apierr.Details{"code": "unsupported_content_type", "contentType": ct})
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err := dec.Decode(dst); err != nil {
		return bodyError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return bodyError(err)
		}
		return apierr.New(apierr.BadRequest, "request body must hold a single JSON value").
			WithDetails(apierr.Details{"code": "invalid_json"})
	}
	return nil
}

func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return apierr.Newf(apierr.PayloadTooLarge, "request body exceeds %d bytes", tooBig.Limit).
			WithDetails(apierr.Details{"code": "body_too_large", "limit": tooBig.Limit})
	case errors.Is(err, io.EOF):
		return apierr.New(apierr.BadRequest, "request body is empty").WithDetails(apierr.Details{"code": "invalid_json"})
	case errors.As(err, &syn):
		return apierr.Newf(apierr.BadRequest, "malformed JSON at byte %d: %s", syn.Offset, syn.Error()).
			WithDetails(apierr.Details{"code": "invalid_json", "offset": syn.Offset})
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(body)"
		}
		return apierr.Newf(apierr.BadRequest, "field %s must be %s, not %s", field, jsonKind(typ.Type.Kind().String()), typ.Value).
			WithDetails(apierr.Details{"code": "invalid_type", "field": field})
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.New(apierr.BadRequest, "malformed JSON: unexpected end of body").WithDetails(apierr.Details{"code": "invalid_json"})
	}
	return apierr.Newf(apierr.BadRequest, "malformed JSON: %s", strings.TrimPrefix(err.Error(), "json: ")).
		WithDetails(apierr.Details{"code": "invalid_json"})
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	return "a number"
}
