package httpapi

import (
	"html/template"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// DocsHint says where the documentation is (it ships with the source,
// not with the binary).
const DocsHint = "README.md and docs/ in the source tree of github.com/assetd/assetd (docs/api.md: the contract and the Go client)"

// rootBody is GET / in JSON.
type rootBody struct {
	Service   string            `json:"service"`
	Version   string            `json:"version"`
	Simulated bool              `json:"simulated,omitempty"`
	Links     map[string]string `json:"links"`
	Docs      string            `json:"docs"`
}

var rootPage = template.Must(template.New("root").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>assetd</title></head>
<body><main>
<h1>assetd</h1>
<p>The Asset Data Service for Solana tokens, version {{.Version}}.{{if .Simulated}} <strong>Simulated demo data:</strong> every market number is synthetic.{{end}}</p>
<ul>
<li><a href="/openapi.json">/openapi.json</a>: the API contract (OpenAPI 3.1); API calls send their key in the <code>x-api-key</code> header</li>
{{- if .Links.dashboard}}
<li><a href="/dashboard/">/dashboard/</a>: keys, usage and lists in the browser</li>
{{- end}}
<li><a href="/v1/health">/v1/health</a> and <a href="/readyz">/readyz</a>: liveness and readiness</li>
</ul>
<p>Documentation: {{.Docs}}.</p>
</main></body></html>
`))

// root is GET /: where to go from here, as a short HTML page for browsers
// (Accept names text/html) and as JSON for everyone else.
func (s *Server) root(w http.ResponseWriter, r *http.Request) error {
	body := rootBody{Service: "assetd", Version: s.d.Version, Simulated: s.d.Simulated, Docs: DocsHint,
		Links: map[string]string{"openapi": "/openapi.json", "health": "/v1/health", "readiness": "/readyz"}}
	if s.d.Dashboard != nil {
		body.Links["dashboard"] = "/dashboard/"
	}
	h := w.Header()
	h.Set("Cache-Control", noStore)
	h.Add("Vary", "Accept")
	if !acceptsHTML(r.Header.Get("Accept")) {
		return writeJSON(w, http.StatusOK, body)
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	return rootPage.Execute(w, body)
}

// acceptsHTML says an Accept header names text/html (with a non-zero
// q), as every browser's does; */* alone (curl) gets JSON.
func acceptsHTML(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil || mt != "text/html" {
			continue
		}
		if q, ok := params["q"]; ok {
			if v, err := strconv.ParseFloat(q, 64); err != nil || v <= 0 {
				continue
			}
		}
		return true
	}
	return false
}

// dashboardSlash is GET /dashboard: a redirect to /dashboard/ (keeping the
// query), where the dashboard is mounted.
func (s *Server) dashboardSlash(w http.ResponseWriter, r *http.Request) error {
	target := "/dashboard/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	w.Header().Set("Cache-Control", noStore)
	http.Redirect(w, r, target, http.StatusMovedPermanently)
	return nil
}
