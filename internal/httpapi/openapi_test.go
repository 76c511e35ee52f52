package httpapi

import (
	"slices"
	"strings"
	"testing"
)

// GET /openapi.json serves the contract without a key, as JSON (the
// document is checked against itself like every other response), and the
// contract lists every route of the table with the route's scopes as its
// security requirements.
func TestOpenAPIDocument(t *testing.T) {
	h, _, _ := listHarness(t)
	r := h.do(t, "GET", "/openapi.json", nil, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" || r.header.Get("Cache-Control") != cacheContract {
		t.Fatalf("openapi.json: %d %v", r.status, r.header)
	}
	paths, _ := r.body["paths"].(map[string]any)
	for _, rt := range h.srv.routes() {
		method, path, _ := strings.Cut(rt.pattern, " ")
		path = strings.TrimSuffix(path, "{$}") // "GET /{$}" is the contract's "/"
		op, _ := paths[path].(map[string]any)
		o, _ := op[strings.ToLower(method)].(map[string]any)
		if o == nil {
			t.Errorf("route %q is not in the contract", rt.pattern)
			continue
		}
		// A keyed conditional GET answers 304 (docs/http.md): the contract
		// must give it one, and only it.
		resps, _ := o["responses"].(map[string]any)
		if want304 := rt.conditional() && rt.auth == authKey; want304 != (resps["304"] != nil) {
			t.Errorf("%s: contract 304 %v, route conditional %v", rt.pattern, resps["304"] != nil, want304)
		}
		sec, _ := o["security"].([]any)
		var scopes, schemes []string
		for _, req := range sec {
			for scheme, roles := range req.(map[string]any) {
				schemes = append(schemes, scheme)
				for _, role := range roles.([]any) {
					scopes = append(scopes, role.(string))
				}
			}
		}
		slices.Sort(scopes)
		want := slices.Sorted(slices.Values(rt.scopes))
		switch rt.auth {
		case authNone:
			if sec == nil || len(sec) != 0 {
				t.Errorf("%s: security %v, want [] (public)", rt.pattern, sec)
			}
		case authSession:
			if slices.Contains(schemes, "apiKey") || len(schemes) == 0 {
				t.Errorf("%s: security %v, want the session schemes", rt.pattern, sec)
			}
		default:
			if !slices.Equal(scopes, want) {
				t.Errorf("%s: contract scopes %v, route scopes %v", rt.pattern, scopes, want)
			}
		}
	}
}
