// Command instr is the request side of bench/instr.sh: it sends n requests
// over one keep-alive connection and checks every status, so the server's
// instruction count over the run (valgrind callgrind) divides by n.
//
//	go run ./bench/instr -url http://127.0.0.1:8080 -key KEY -n 200 -path /v1/assets/sol
//	go run ./bench/instr -url ... -n 50 -paths FILE          # one path per line, cycled
//	go run ./bench/instr -url ... -n 20 -consume -paths FILE # and removed once sent
//	go run ./bench/instr -url ... -n 200 -path P -inm '"etag"' -status 304
//	go run ./bench/instr -url ... -n 200 -path P -method POST -body FILE
//
// The body of every response is read to the end; nothing is printed but
// the count (or the first unexpected status, as an error).
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "instr:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("instr", flag.ContinueOnError)
	base := fs.String("url", "http://127.0.0.1:8080", "server base URL")
	key := fs.String("key", "", "API key (X-Api-Key), if any")
	n := fs.Int("n", 100, "requests to send")
	path := fs.String("path", "", "request path and query")
	paths := fs.String("paths", "", "file of paths, one a line, cycled (instead of -path)")
	method := fs.String("method", "GET", "request method")
	bodyFile := fs.String("body", "", "request body file (application/json)")
	inm := fs.String("inm", "", "If-None-Match value; auto: the ETag of the last 200 (the first request, and any after the body changed, is a 200)")
	status := fs.Int("status", http.StatusOK, "expected status")
	consume := fs.Bool("consume", false, "with -paths: remove the paths sent from the file, so the next run sends others (first requests)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var list []string
	switch {
	case *paths != "":
		f, err := os.Open(*paths)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if p := strings.TrimSpace(sc.Text()); p != "" {
				list = append(list, p)
			}
		}
		f.Close()
	case *path != "":
		list = []string{*path}
	}
	if len(list) == 0 {
		return errors.New("give -path or -paths")
	}
	var body []byte
	if *bodyFile != "" {
		b, err := os.ReadFile(*bodyFile)
		if err != nil {
			return err
		}
		body = b
	}
	// One connection, kept alive; no compression asked for (the captured
	// bytes of the Go ceiling are the plain ones).
	etag, fresh := "", 0
	c := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DisableCompression: true}}
	for i := 0; i < *n; i++ {
		req, err := http.NewRequest(*method, strings.TrimRight(*base, "/")+list[i%len(list)], bytes.NewReader(body))
		if err != nil {
			return err
		}
		if *key != "" {
			req.Header.Set("X-Api-Key", *key)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		switch {
		case *inm == "auto" && etag != "":
			req.Header.Set("If-None-Match", etag)
		case *inm != "" && *inm != "auto":
			req.Header.Set("If-None-Match", *inm)
		}
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		// The start of the body is kept for the error of an unexpected
		// status (an error envelope says why).
		var head bytes.Buffer
		_, err = io.Copy(io.Discard, io.TeeReader(resp.Body, &limited{&head, 400}))
		resp.Body.Close()
		if err != nil {
			return err
		}
		if *inm == "auto" && resp.StatusCode == http.StatusOK {
			etag = resp.Header.Get("ETag")
			fresh++
			continue
		}
		if resp.StatusCode != *status {
			return fmt.Errorf("%s %s: status %d, want %d: %s", *method, list[i%len(list)], resp.StatusCode, *status, head.Bytes())
		}
	}
	if *consume && *paths != "" {
		if *n > len(list) {
			return fmt.Errorf("-consume: %d requests but %d paths left", *n, len(list))
		}
		if err := os.WriteFile(*paths, []byte(strings.Join(list[*n:], "\n")+"\n"), 0o644); err != nil {
			return err
		}
	}
	if *inm == "auto" && fresh > 1 {
		fmt.Fprintf(os.Stderr, "instr: %d of %d requests were 200s (the body changed)\n", fresh, *n)
	}
	fmt.Println(*n)
	return nil
}

// limited keeps the first n bytes written to it and drops the rest.
type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if k := l.n - l.b.Len(); k > 0 {
		l.b.Write(p[:min(k, len(p))])
	}
	return len(p), nil
}
