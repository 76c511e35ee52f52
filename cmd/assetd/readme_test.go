package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeSection returns the shell lines of the ```sh blocks of README.md's
// section titled heading (comments removed, blank lines skipped).
func readmeSection(t *testing.T, readme, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", heading)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	var lines []string
	in := false
	for _, l := range strings.Split(rest, "\n") {
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in:
			l = regexp.MustCompile(`\s+#\s.*$`).ReplaceAllString(l, "")
			if strings.TrimSpace(l) != "" {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
	}
	return lines
}

// shellWords splits a simple shell command line: words, '…' and "…"
// quoting, $VAR and $(…) left for the caller ($VAR expanded from vars
// outside single quotes).
func shellWords(line string, vars map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	expand := func(s string) string {
		return os.Expand(s, func(k string) string { return vars[k] })
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			j := strings.IndexByte(line[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unbalanced %c in %q", c, line)
			}
			part := line[i+1 : i+1+j]
			if c == '"' {
				part = expand(part)
			}
			cur.WriteString(part)
			inWord = true
			i += j + 1
		default:
			j := strings.IndexAny(line[i:], " \t'\"")
			if j < 0 {
				j = len(line) - i
			}
			cur.WriteString(expand(line[i : i+j]))
			inWord = true
			i += j - 1
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// TestREADMEFirstRun runs the README's first run as a new user would on a
// fresh clone: in an empty directory, `serve --demo` as "Two commands"
// shows it, then every line of "First request" in order (CLI commands
// in-process, curl as HTTP GETs). Each request must answer 200 and the
// session the README creates must sign in to the dashboard. The one
// difference from the README is the port: the server listens on a free
// one (ASSETD_ADDR), and localhost:8080 in the commands is rewritten to
// it. A line the test cannot interpret fails it, so the README and this
// test cannot drift apart.
func TestREADMEFirstRun(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	var serveArgs []string
	for _, l := range readmeSection(t, readme, "Two commands") {
		if rest, ok := strings.CutPrefix(l, "go run ./cmd/assetd serve"); ok {
			serveArgs = append([]string{"serve"}, strings.Fields(rest)...)
			break
		}
	}
	if len(serveArgs) == 0 {
		t.Fatal(`README.md "Two commands" shows no go run ./cmd/assetd serve line`)
	}
	steps := readmeSection(t, readme, "First request")
	if len(steps) < 5 {
		t.Fatalf("README.md \"First request\" has %d command lines: %q", len(steps), steps)
	}

	t.Chdir(t.TempDir()) // a fresh clone: no ./data, no ./data-demo
	t.Setenv("ASSETD_ADDR", "127.0.0.1:0")
	logs := &syncBuffer{}
	addrc := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: logs, ready: func(a string) { addrc <- a }}
		done <- c.run(ctx, serveArgs)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(eventuallyDeadline):
			t.Error("serve did not stop")
		}
	})
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("assetd %s exited: %v\n%s", strings.Join(serveArgs, " "), err, logs)
	case <-time.After(eventuallyDeadline):
		t.Fatalf("assetd %s did not start\n%s", strings.Join(serveArgs, " "), logs)
	}

	vars := map[string]string{}
	var sessionToken string
	cliRe := regexp.MustCompile(`^(?:([A-Z_]+)=\$\((.*)\)|(go run ./cmd/assetd .*))$`)
	for i, line := range steps {
		what := fmt.Sprintf("README step %d %q", i+1, line)
		if m := cliRe.FindStringSubmatch(line); m != nil {
			cmdline := m[3]
			if m[1] != "" {
				cmdline = m[2]
			}
			rest, ok := strings.CutPrefix(cmdline, "go run ./cmd/assetd ")
			if !ok {
				t.Fatalf("%s: only go run ./cmd/assetd commands are understood", what)
			}
			args, err := shellWords(rest, vars)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			out, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if m[1] != "" {
				vars[m[1]] = strings.TrimSpace(out)
			}
			if len(args) >= 2 && args[0] == "sessions" && args[1] == "create" {
				sessionToken = strings.TrimSpace(out)
			}
			continue
		}
		words, err := shellWords(line, vars)
		if err != nil || len(words) == 0 || words[0] != "curl" {
			t.Fatalf("%s: the test understands go run ./cmd/assetd and curl lines only (%v)", what, err)
		}
		req, keyed := curlRequest(t, what, words[1:], addr)
		status, body := 0, ""
		send := func() bool {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			status, body = resp.StatusCode, string(b)
			return status != http.StatusUnauthorized
		}
		if keyed {
			// "Keys created … while the server runs take effect within a
			// second" (the README): a key the reload has not read yet is
			// a 401 for that long.
			eventually(t, time.Second, what+": the new key is accepted", send)
		} else {
			send()
		}
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s\nserver log:\n%s", what, status, body, logs)
		}
	}
	if sessionToken == "" {
		t.Fatal(`README.md "First request" creates no session`)
	}
	signedIn := dashboardSignIn(t, "http://"+addr, sessionToken)
	if !strings.Contains(signedIn, "my-app") || !strings.Contains(signedIn, "Sign out") {
		t.Fatalf("dashboard after sign-in does not show the project:\n%.3000s", signedIn)
	}

	// The mistake the README used to lead to: a key created without
	// --demo lands in ./data. The command says so, and the server's 401
	// names the store it reads.
	var stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr}
	var out bytes.Buffer
	c.stdout = &out
	if err := c.run(context.Background(), []string{"keys", "create", "--project", "my-app"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "add --demo") {
		t.Errorf("keys create into a new ./data beside ./data-demo gave no hint: %q", stderr.String())
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/v1/assets/resolve?ref=sol", nil)
	req.Header.Set("x-api-key", strings.TrimSpace(out.String()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(string(b), "SQLite in ./data-demo; CLI commands reach it with --demo") ||
		resp.Header.Get("WWW-Authenticate") != `ApiKey header="x-api-key"` {
		t.Fatalf("key from the other store: %d %v %s", resp.StatusCode, resp.Header, b)
	}
	if _, err := os.Stat(filepath.Join("data-demo", "assetd.db")); err != nil {
		t.Errorf("the demo store is not ./data-demo: %v", err)
	}
}

// curlRequest turns curl's arguments (-s, -H "K: V", one URL) into a
// request to addr; keyed says it sends an API key.
func curlRequest(t *testing.T, what string, args []string, addr string) (*http.Request, bool) {
	t.Helper()
	hdr := http.Header{}
	target := ""
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-s":
		case a == "-H" && i+1 < len(args):
			k, v, ok := strings.Cut(args[i+1], ":")
			if !ok {
				t.Fatalf("%s: header %q", what, args[i+1])
			}
			hdr.Set(strings.TrimSpace(k), strings.TrimSpace(v))
			i++
		case !strings.HasPrefix(a, "-") && target == "":
			target = a
		default:
			t.Fatalf("%s: curl argument %q is not understood by the test", what, a)
		}
	}
	if !strings.Contains(target, "://") {
		target = "http://" + target
	}
	u, err := url.Parse(target)
	if err != nil || u.Host != "localhost:8080" {
		t.Fatalf("%s: URL %q (want localhost:8080, as the README's server)", what, target)
	}
	u.Host = addr
	req, err := http.NewRequest("GET", u.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = hdr
	return req, hdr.Get("x-api-key") != ""
}

// dashboardSignIn signs in to the dashboard as a browser would (the
// sign-in form with its CSRF token, the session token pasted) starting
// from /dashboard without a slash, and returns the page it lands on.
func dashboardSignIn(t *testing.T, base, token string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	get := func(u string) (int, string) {
		resp, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, page := get(base + "/dashboard")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if status != 200 || m == nil {
		t.Fatalf("GET /dashboard: %d, no sign-in form:\n%.2000s", status, page)
	}
	resp, err := hc.PostForm(base+"/dashboard/signin", url.Values{"csrf": {m[1]}, "token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("sign-in: %d\n%.2000s", resp.StatusCode, b)
	}
	return string(b)
}
