// Command testreport runs `go test -json` with the given arguments and
// prints what `go test` prints (package results, and the output of every
// failing test), then every skipped test with the reason it gave, so that
// skips are never invisible. Its exit status is go test's.
//
//	go run ./cmd/testreport -race -count=1 -timeout 30m ./...
//	go run ./cmd/testreport -short ./internal/...
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
)

func main() {
	cmd := exec.Command("go", append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	rep := report(out, os.Stdout)
	err = cmd.Wait()
	rep.summary(os.Stdout)
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if rep.failed > 0 {
		os.Exit(1)
	}
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// skip is a skipped test (or package without tests run) and its reason.
type skip struct{ pkg, test, reason string }

type results struct {
	skips  []skip
	failed int
	passed int
}

// report copies package-level output and failing tests' output from the
// event stream r to w, and collects the skips.
func report(r io.Reader, w io.Writer) *results {
	res := &results{}
	outputs := map[[2]string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(w, sc.Text()) // not an event (a build error printed as text)
			continue
		}
		k := [2]string{e.Package, e.Test}
		switch e.Action {
		case "build-output": // compiler output (Go 1.24+ reports it as events)
			fmt.Fprint(w, e.Output)
		case "output":
			if e.Test == "" {
				// Package lines: ok/FAIL/? and build output; drop the
				// PASS/FAIL summary lines of -v style.
				if s := strings.TrimSpace(e.Output); s != "PASS" && s != "FAIL" && !strings.HasPrefix(s, "=== ") {
					fmt.Fprint(w, e.Output)
				}
				continue
			}
			outputs[k] = append(outputs[k], e.Output)
		case "pass":
			if e.Test != "" {
				res.passed++
			}
			delete(outputs, k)
		case "skip":
			if e.Test != "" {
				res.skips = append(res.skips, skip{e.Package, e.Test, skipReason(outputs[k])})
			}
			delete(outputs, k)
		case "fail":
			if e.Test != "" {
				res.failed++
				for _, l := range outputs[k] {
					fmt.Fprint(w, l)
				}
				delete(outputs, k)
				continue
			}
			// The package failed: print what its unfinished tests wrote
			// (a timeout's panic and stacks land in the running test).
			for key, lines := range outputs {
				if key[0] == e.Package {
					for _, l := range lines {
						fmt.Fprint(w, l)
					}
					delete(outputs, key)
				}
			}
		}
	}
	return res
}

// skipReason is the last message the test logged (its t.Skip reason:
// with -json, which implies -v, it comes before "--- SKIP"; without -v
// after it), or that it gave none.
func skipReason(lines []string) string {
	reason := ""
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		// "file_test.go:12: reason": keep the reason.
		if i := strings.Index(t, ": "); i > 0 && strings.Contains(t[:i], ".go:") {
			reason = t[i+2:]
		} else if reason != "" {
			reason += " " + t // a continuation line of a multi-line message
		}
	}
	if reason == "" {
		return "(no reason given)"
	}
	return reason
}

// summary prints the skips, grouped by package, and the totals.
func (r *results) summary(w io.Writer) {
	sort.SliceStable(r.skips, func(i, j int) bool { return r.skips[i].pkg < r.skips[j].pkg })
	if len(r.skips) > 0 {
		fmt.Fprintf(w, "\nSKIPPED (%d):\n", len(r.skips))
		for _, s := range r.skips {
			fmt.Fprintf(w, "  %s %s: %s\n", strings.TrimPrefix(s.pkg, "github.com/assetd/assetd/"), s.test, s.reason)
		}
	}
	fmt.Fprintf(w, "\ntests: %d passed, %d failed, %d skipped\n", r.passed, r.failed, len(r.skips))
}
