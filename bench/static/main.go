// Command static is the Go ceiling of bench/compare.sh: it captures
// assetd's responses for the compared endpoints, then serves them from
// memory with Content-Length, the least a Go net/http server can do.
//
//	go run ./bench/static -capture DIR -url http://127.0.0.1:8080 -key "$KEY"
//	go run ./bench/static -serve DIR -addr 127.0.0.1:0 [-body-only]
//
// -capture writes DIR/<name>.json (the plain body assetd answered),
// DIR/<name>.headers (its response headers, one "Key: value" per line,
// without the Date, Content-Length and connection headers every server
// writes itself) and DIR/endpoints.tsv (name, method, assetd path,
// request body file) for detail, curated majors, curated all, search,
// trending and market-snapshots (a POST of up to 50 curated mints).
// -serve answers GET /<name> with the same response: the captured headers
// and body (-body-only: the body with Content-Type and Content-Length
// only), and prints its address. A request whose If-None-Match is the
// captured ETag gets a 304 with the captured headers but those of a body
// (the Go ceiling of a conditional GET, bench/instr.sh's NAME-304 lines).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "static:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("static", flag.ContinueOnError)
	capture := fs.String("capture", "", "directory to capture assetd's bodies into")
	serve := fs.String("serve", "", "directory of captured bodies to serve")
	base := fs.String("url", "http://127.0.0.1:8080", "assetd base URL (-capture)")
	key := fs.String("key", "", "API key with assets:read (-capture)")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (-serve)")
	bodyOnly := fs.Bool("body-only", false, "serve the bodies without assetd's response headers (-serve)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *capture != "":
		return captureBodies(*capture, strings.TrimRight(*base, "/"), *key)
	case *serve != "":
		return serveBodies(*serve, *addr, *bodyOnly)
	}
	return errors.New("give -capture DIR or -serve DIR")
}

type endpoint struct{ name, method, path, body string }

func captureBodies(dir, base, key string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	c := &http.Client{Timeout: 30 * time.Second}
	get := func(method, path string, body []byte) ([]byte, http.Header, error) {
		req, err := http.NewRequestWithContext(context.Background(), method, base+path, bytes.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Accept-Encoding", "identity")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
		}
		return b, resp.Header, err
	}
	all, _, err := get("GET", "/v1/assets/curated?list=all", nil)
	if err != nil {
		return err
	}
	var cur struct {
		Assets []struct {
			AssetID string `json:"assetId"`
			Symbol  string `json:"symbol"`
			Primary *struct {
				Mint string `json:"mint"`
			} `json:"primaryVariant"`
		} `json:"assets"`
	}
	if err := json.Unmarshal(all, &cur); err != nil || len(cur.Assets) == 0 {
		return fmt.Errorf("curated list: %v (%d assets)", err, len(cur.Assets))
	}
	var mints []string
	for _, a := range cur.Assets {
		if a.Primary != nil && a.Primary.Mint != "" && len(mints) < 50 {
			mints = append(mints, a.Primary.Mint)
		}
	}
	snapBody, _ := json.Marshal(map[string]any{"mints": mints})
	if err := os.WriteFile(filepath.Join(dir, "snapshots.body"), snapBody, 0o644); err != nil {
		return err
	}
	eps := []endpoint{
		{"detail", "GET", "/v1/assets/" + cur.Assets[0].AssetID, ""},
		{"curated-majors", "GET", "/v1/assets/curated?list=majors", ""},
		{"curated-all", "GET", "/v1/assets/curated?list=all", ""},
		{"search", "GET", "/v1/assets/search?q=" + strings.ToLower(cur.Assets[0].Symbol), ""},
		{"trending", "GET", "/v1/assets/trending", ""},
		{"market-snapshots", "POST", "/v1/assets/market-snapshots", "snapshots.body"},
	}
	var tsv strings.Builder
	for _, e := range eps {
		var body []byte
		if e.body != "" {
			body = snapBody
		}
		b, h, err := get(e.method, e.path, body)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.name+".json"), b, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.name+".headers"), encodeHeaders(h), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&tsv, "%s\t%s\t%s\t%s\n", e.name, e.method, e.path, cmp(e.body, "-"))
		fmt.Printf("%-17s %7d bytes  %s %s\n", e.name, len(b), e.method, e.path)
	}
	return os.WriteFile(filepath.Join(dir, "endpoints.tsv"), []byte(tsv.String()), 0o644)
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ownHeaders are the response headers a server writes itself, which a
// replay must not repeat.
var ownHeaders = map[string]bool{"Date": true, "Content-Length": true, "Connection": true, "Keep-Alive": true, "Transfer-Encoding": true}

// encodeHeaders writes h without ownHeaders as sorted "Key: value" lines.
func encodeHeaders(h http.Header) []byte {
	var b bytes.Buffer
	keys := make([]string, 0, len(h))
	for k := range h {
		if !ownHeaders[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	return b.Bytes()
}

// decodeHeaders reads encodeHeaders' lines.
func decodeHeaders(b []byte) (http.Header, error) {
	h := http.Header{}
	for line := range strings.Lines(string(b)) {
		k, v, ok := strings.Cut(strings.TrimRight(line, "\r\n"), ": ")
		if !ok || k == "" {
			return nil, fmt.Errorf("header line %q", line)
		}
		h.Add(k, v)
	}
	return h, nil
}

func serveBodies(dir, addr string, bodyOnly bool) error {
	mux, err := bodiesMux(dir, bodyOnly)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	return http.Serve(ln, mux)
}

// bodiesMux answers GET /<name> with DIR/<name>.json and, unless
// bodyOnly, the headers of DIR/<name>.headers.
func bodiesMux(dir string, bodyOnly bool) (*http.ServeMux, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no captured bodies in %s", dir)
	}
	mux := http.NewServeMux()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		hdr := http.Header{"Content-Type": {"application/json"}}
		if !bodyOnly {
			raw, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".headers")
			if err != nil {
				return nil, err
			}
			if hdr, err = decodeHeaders(raw); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
		}
		hdr["Content-Length"] = []string{strconv.Itoa(len(b))}
		// Keys and values in two slices: assigning them costs the handler
		// no map iteration. The 304's headers are the 200's without those
		// of a body (RFC 9110 15.4.5).
		var keys, keys304 []string
		var vals, vals304 [][]string
		for k, v := range hdr {
			keys, vals = append(keys, k), append(vals, v)
			switch k {
			case "Content-Type", "Content-Length", "Content-Encoding":
			default:
				keys304, vals304 = append(keys304, k), append(vals304, v)
			}
		}
		etag := ""
		if v := hdr["Etag"]; len(v) == 1 {
			etag = v[0]
		}
		mux.HandleFunc("/"+strings.TrimSuffix(filepath.Base(f), ".json"), func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			// The least a conditional GET can cost: one exact comparison
			// of If-None-Match with the captured ETag.
			if inm := r.Header["If-None-Match"]; etag != "" && len(inm) == 1 && inm[0] == etag {
				for i, k := range keys304 {
					h[k] = vals304[i]
				}
				w.WriteHeader(http.StatusNotModified)
				return
			}
			for i, k := range keys {
				h[k] = vals[i]
			}
			_, _ = w.Write(b)
		})
	}
	return mux, nil
}
