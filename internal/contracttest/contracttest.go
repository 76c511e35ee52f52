// Package contracttest checks HTTP responses against assetd's OpenAPI
// contract (package api). Tests route every response they observe through
// Check, so a handler that drifts from the contract (a renamed or missing
// field, a wrong type, an undocumented status or header) fails the suite.
//
// Only responses are checked: tests deliberately send invalid requests to
// assert the 400s, and those 400s are themselves checked against the
// contract.
package contracttest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/assetd/assetd/api"
)

// FixturePrefix marks routes that exist only in tests (handlers standing in
// for scope-guarded endpoints); their successes are not in the contract.
const FixturePrefix = "/test/"

type validator struct {
	doc    *openapi3.T
	raw    map[string]any // the document as JSON, for schema pointers
	router routers.Router

	// Body schemas are compiled once per JSON pointer: kin-openapi compiles
	// a 3.1 schema on every call, which makes suites that issue thousands
	// of requests crawl.
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

const docURL = "https://assetd.invalid/openapi.json"

var load = sync.OnceValues(func() (*validator, error) {
	doc, err := api.New().Doc()
	if err != nil {
		return nil, err
	}
	// The router matches paths only: serve the document from any host.
	d := *doc
	d.Servers = nil
	r, err := gorillamux.NewRouter(&d)
	if err != nil {
		return nil, fmt.Errorf("contract router: %w", err)
	}
	js, err := api.New().JSON()
	if err != nil {
		return nil, err
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, fmt.Errorf("contract JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(docURL, raw); err != nil {
		return nil, fmt.Errorf("contract as a schema resource: %w", err)
	}
	m, _ := raw.(map[string]any)
	return &validator{doc: doc, raw: m, router: r, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
})

// schema compiles (once) the schema at a JSON pointer of the document.
func (v *validator) schema(ptr string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if s, ok := v.schemas[ptr]; ok {
		return s, nil
	}
	s, err := v.compiler.Compile(docURL + "#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", ptr, err)
	}
	v.schemas[ptr] = s
	return s, nil
}

// responsePointer is the JSON pointer of the body schema the contract
// gives an operation's status (the exact status, else default), following
// a $ref to components/responses.
func (v *validator) responsePointer(path, method string, status int) (string, bool) {
	esc := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1") }
	op, _ := dig(v.raw, "paths", path, strings.ToLower(method)).(map[string]any)
	resps, _ := op["responses"].(map[string]any)
	key := strconv.Itoa(status)
	if resps[key] == nil {
		key = "default"
	}
	r, _ := resps[key].(map[string]any)
	if r == nil {
		return "", false
	}
	ptr := "/paths/" + esc(path) + "/" + strings.ToLower(method) + "/responses/" + key
	if ref, ok := r["$ref"].(string); ok {
		ptr = strings.TrimPrefix(ref, "#")
		r, _ = dig(v.raw, strings.Split(strings.TrimPrefix(ptr, "/"), "/")...).(map[string]any)
	}
	if dig(r, "content", "application/json", "schema") == nil {
		return "", false
	}
	return ptr + "/content/application~1json/schema", true
}

func dig(x any, keys ...string) any {
	for _, k := range keys {
		m, ok := x.(map[string]any)
		if !ok {
			return nil
		}
		x = m[k]
	}
	return x
}

func (v *validator) body(ptr string, body []byte) error {
	s, err := v.schema(ptr)
	if err != nil {
		return err
	}
	x, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if err := s.Validate(x); err != nil {
		return fmt.Errorf("body does not match %s: %#v", ptr, err)
	}
	return nil
}

// Check validates one response (status, headers, body) to req against
// the contract and fails tb when it does not conform. Benchmarks skip the
// check so that their figures measure the handlers alone.
func Check(tb testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	tb.Helper()
	if _, ok := tb.(*testing.B); ok {
		return
	}
	if err := Validate(req, status, header, body); err != nil {
		tb.Errorf("contract: %s %s → %d: %v\nbody: %s", req.Method, req.URL.RequestURI(), status, err, truncate(body))
	}
}

// Validate is Check's verdict as an error (nil when the response conforms).
func Validate(req *http.Request, status int, header http.Header, body []byte) error {
	_, err := validate(req, status, header, body)
	return err
}

// validate is Validate that also names the contract operation the request
// matched ("GET /v1/assets/{assetId}"; "" when it matched none).
func validate(req *http.Request, status int, header http.Header, body []byte) (string, error) {
	v, err := load()
	if err != nil {
		return "", err
	}
	op := ""
	if route, _, err := v.router.FindRoute(req); err == nil {
		op = route.Method + " " + route.Path
	}
	return op, v.validate(req, status, header, body)
}

func (v *validator) validate(req *http.Request, status int, header http.Header, body []byte) error {
	if header.Get("X-Request-Id") == "" {
		return fmt.Errorf("no x-request-id header")
	}
	if req.Method == http.MethodOptions && status == http.StatusNoContent {
		// A CORS preflight is answered before routing, on any path: it is
		// checked against the contract's Preflight response.
		return v.preflight(header, body)
	}
	if header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("gzip body: %w", err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			return fmt.Errorf("gzip body: %w", err)
		}
	}
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		// An unknown route or a known path with another method: only an
		// error envelope may answer.
		if strings.HasPrefix(req.URL.Path, FixturePrefix) && status < 400 {
			return nil
		}
		if status < 400 {
			return fmt.Errorf("%d for a path or method the contract does not describe (%v)", status, err)
		}
		return v.envelope(header, body)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status: status,
		Header: header,
		Options: &openapi3filter.Options{
			IncludeResponseStatus: true,
			ExcludeResponseBody:   true, // checked below with a cached schema
			MultiError:            true,
		},
	}
	if status == http.StatusNotModified {
		// A 304 is valid only where the contract gives the operation one
		// (the conditional GETs); it has no body.
		nm := route.Operation.Responses.Status(status)
		if nm == nil || nm.Value == nil {
			return fmt.Errorf("304 for an operation the contract gives no 304 (not a conditional GET)")
		}
		if len(body) > 0 {
			return fmt.Errorf("a 304 with a body")
		}
		// kin-openapi skips 304s altogether: check the headers here.
		for name, h := range nm.Value.Headers {
			if err := checkHeader(name, h, header); err != nil {
				return fmt.Errorf("304: %w", err)
			}
		}
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return err
	}
	if err := declaredRateHeaders(route.Operation, status, header); err != nil {
		return err
	}
	ptr, ok := v.responsePointer(route.Path, req.Method, status)
	if status >= 400 && !strings.HasPrefix(ptr, "/paths/") {
		// An error the operation does not describe with a body of its own
		// (as /readyz does its 503) is the envelope.
		if err := v.envelope(header, body); err != nil {
			return err
		}
	}
	if !ok {
		if len(body) > 0 {
			return fmt.Errorf("a body where the contract describes none")
		}
		return nil
	}
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		// A non-JSON form the operation declares (GET /'s HTML page):
		// ValidateResponse above has checked it against its media type.
		if ref := route.Operation.Responses.Status(status); ref != nil && ref.Value != nil && ct != "" {
			if mt, _, _ := strings.Cut(ct, ";"); ref.Value.Content.Get(strings.TrimSpace(mt)) != nil {
				return nil
			}
		}
		return fmt.Errorf("Content-Type %q, want application/json", ct)
	}
	return v.body(ptr, body)
}

// rateHeaders are the limiter's headers: a response that carries one must
// be one the contract declares it on, so that clients reading the contract
// know where to expect them.
var rateHeaders = []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"}

// declaredRateHeaders fails when the response carries a RateLimit-* or
// Retry-After header its contract response (the status's, else default)
// does not declare, or carries the RateLimit-* trio only in part.
func declaredRateHeaders(op *openapi3.Operation, status int, header http.Header) error {
	ref := op.Responses.Status(status)
	if ref == nil {
		ref = op.Responses.Default()
	}
	if ref == nil || ref.Value == nil {
		return nil // no such status: ValidateResponse has said so
	}
	n := 0
	for _, name := range rateHeaders {
		if header.Get(name) == "" {
			continue
		}
		if name != "Retry-After" {
			n++
		}
		if !declares(ref.Value, name) {
			return fmt.Errorf("header %s on a %d the contract does not declare it on", name, status)
		}
	}
	if n != 0 && n != 3 {
		return fmt.Errorf("%d of the 3 RateLimit-* headers: they come together", n)
	}
	return nil
}

func declares(r *openapi3.Response, name string) bool {
	for k := range r.Headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// preflight checks a CORS preflight's 204 against the contract's
// components/responses/Preflight: its required headers, their schemas,
// and no body.
func (v *validator) preflight(header http.Header, body []byte) error {
	ref := v.doc.Components.Responses["Preflight"]
	if ref == nil || ref.Value == nil {
		return fmt.Errorf("the contract has no components/responses/Preflight")
	}
	if len(body) > 0 {
		return fmt.Errorf("a preflight 204 with a body")
	}
	for name, h := range ref.Value.Headers {
		if err := checkHeader(name, h, header); err != nil {
			return fmt.Errorf("preflight: %w", err)
		}
	}
	return nil
}

// checkHeader validates one declared header: present when required, and
// its value (an integer when the schema says so) against the schema.
func checkHeader(name string, ref *openapi3.HeaderRef, header http.Header) error {
	h := ref.Value
	if h == nil {
		return fmt.Errorf("header %s: unresolved", name)
	}
	raw, ok := header[http.CanonicalHeaderKey(name)]
	if !ok || len(raw) == 0 {
		if h.Required {
			return fmt.Errorf("header %s is required and missing", name)
		}
		return nil
	}
	if h.Schema == nil || h.Schema.Value == nil {
		return nil
	}
	var val any = strings.Join(raw, ", ")
	if h.Schema.Value.Type.Is(openapi3.TypeInteger) {
		n, err := strconv.ParseInt(raw[0], 10, 64)
		if err != nil {
			return fmt.Errorf("header %s: %q is not an integer", name, raw[0])
		}
		val = float64(n)
	}
	if err := h.Schema.Value.VisitJSON(val, openapi3.EnableJSONSchema2020()); err != nil {
		return fmt.Errorf("header %s: %w", name, err)
	}
	return nil
}

func (v *validator) envelope(header http.Header, body []byte) error {
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("error response Content-Type %q, want application/json", ct)
	}
	if cc := header.Get("Cache-Control"); cc != "no-store" {
		return fmt.Errorf("error response Cache-Control %q, want no-store", cc)
	}
	return v.body("/components/schemas/ErrorEnvelope", body)
}

// Transport wraps an http.RoundTripper (nil: the default) so that every
// response a test client receives is checked, for end-to-end tests that
// talk to a running server.
func Transport(tb testing.TB, next http.RoundTripper) http.RoundTripper {
	return inspect(next, func(req *http.Request, status int, header http.Header, body []byte) {
		Check(tb, req, status, header, body)
	})
}

// inspect wraps next (nil: the default) so that every response is read
// whole and handed to see before the client reads it.
func inspect(next http.RoundTripper, see func(req *http.Request, status int, header http.Header, body []byte)) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return inspector{next: next, see: see}
}

type inspector struct {
	next http.RoundTripper
	see  func(req *http.Request, status int, header http.Header, body []byte)
}

func (rt inspector) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rt.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("read response body: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	rt.see(req, resp.StatusCode, resp.Header, body)
	return resp, nil
}

func truncate(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// Warm loads the contract and compiles every response schema now, so that
// tests with deadlines do not pay for it inside their timed sections.
func Warm(tb testing.TB) {
	tb.Helper()
	v, err := load()
	if err != nil {
		tb.Fatalf("contract: %v", err)
	}
	paths, _ := v.raw["paths"].(map[string]any)
	for path, item := range paths {
		ops, _ := item.(map[string]any)
		for method, op := range ops {
			resps, _ := dig(op, "responses").(map[string]any)
			for status := range resps {
				n, err := strconv.Atoi(status)
				if err != nil {
					n = 599 // default
				}
				if ptr, ok := v.responsePointer(path, method, n); ok {
					if _, err := v.schema(ptr); err != nil {
						tb.Fatalf("contract: %v", err)
					}
				}
			}
		}
	}
	if _, err := v.schema("/components/schemas/ErrorEnvelope"); err != nil {
		tb.Fatalf("contract: %v", err)
	}
}
