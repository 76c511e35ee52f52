package contracttest

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Operations lists every operation of the contract as "METHOD /path"
// (the path as the contract writes it, with its {parameters}), sorted.
func Operations() ([]string, error) {
	v, err := load()
	if err != nil {
		return nil, err
	}
	var ops []string
	for path, item := range v.doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, strings.ToUpper(method)+" "+path)
		}
	}
	slices.Sort(ops)
	return ops, nil
}

// Failure is one response that broke the contract.
type Failure struct {
	Operation string // "" when the request matched no operation
	Request   string // METHOD and request URI
	Status    int
	Err       error
	Body      string // truncated
}

func (f Failure) String() string {
	return fmt.Sprintf("%s → %d: %v\nbody: %s", f.Request, f.Status, f.Err, f.Body)
}

// Tally validates every response it is shown against the contract,
// without failing a test, and keeps count: how many responses were
// checked and failed, and which operations answered with a success, so a
// suite can fail on an operation it never exercised (Uncovered) as well
// as on every broken response at once (Failures). It is safe for
// concurrent use.
type Tally struct {
	mu       sync.Mutex
	checked  int
	failures []Failure
	success  map[string]int // operation → validated 2xx responses
}

// NewTally returns an empty tally.
func NewTally() *Tally { return &Tally{success: map[string]int{}} }

// Record validates one response and counts it; the error is the verdict
// (nil when the response conforms).
func (t *Tally) Record(req *http.Request, status int, header http.Header, body []byte) error {
	op, err := validate(req, status, header, body)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.checked++
	if err != nil {
		t.failures = append(t.failures, Failure{Operation: op, Request: req.Method + " " + req.URL.RequestURI(), Status: status, Err: err, Body: truncate(body)})
		return err
	}
	if op != "" && answered(op, status) {
		t.success[op]++
	}
	return nil
}

// answered says a conforming status answers the operation: a success, or
// a status the operation describes with a body of its own (as /readyz
// does its 503), not the shared error envelope.
func answered(op string, status int) bool {
	if status >= 200 && status < 300 {
		return true
	}
	v, err := load()
	if err != nil {
		return false
	}
	method, path, _ := strings.Cut(op, " ")
	resps, _ := dig(v.raw, "paths", path, strings.ToLower(method), "responses").(map[string]any)
	if resps[strconv.Itoa(status)] == nil {
		return false
	}
	ptr, ok := v.responsePointer(path, method, status)
	return ok && strings.HasPrefix(ptr, "/paths/")
}

// Checked is the number of responses validated.
func (t *Tally) Checked() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.checked
}

// Failures are the responses that broke the contract, in arrival order.
func (t *Tally) Failures() []Failure {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.failures)
}

// FailuresByOperation counts the failures per operation, for a summary.
func (t *Tally) FailuresByOperation() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := map[string]int{}
	for _, f := range t.failures {
		n[f.Operation]++
	}
	return n
}

// Uncovered lists the contract's operations that no conforming answer (a
// success, or a status the operation describes with its own body) was
// recorded for, sorted.
func (t *Tally) Uncovered() ([]string, error) {
	ops, err := Operations()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, op := range ops {
		if t.success[op] == 0 {
			out = append(out, op)
		}
	}
	return out, nil
}

// Successes is the number of conforming successes per operation.
func (t *Tally) Successes() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string]int, len(t.success))
	for k, v := range t.success {
		out[k] = v
	}
	return out
}

// Summary is a one-line-per-operation report: successes and failures.
func (t *Tally) Summary() string {
	succ, fail := t.Successes(), t.FailuresByOperation()
	keys := map[string]bool{}
	for k := range succ {
		keys[k] = true
	}
	for k := range fail {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		name := k
		if name == "" {
			name = "(no operation)"
		}
		fmt.Fprintf(&b, "%-55s ok %4d  broken %4d\n", name, succ[k], fail[k])
	}
	return b.String()
}

// Transport wraps an http.RoundTripper (nil: the default) so that every
// response a client receives is recorded; unlike the package's Transport
// it never fails the test itself.
func (t *Tally) Transport(next http.RoundTripper) http.RoundTripper {
	return inspect(next, func(req *http.Request, status int, header http.Header, body []byte) {
		_ = t.Record(req, status, header, body)
	})
}
