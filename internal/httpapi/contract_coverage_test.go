package httpapi

import (
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/contracttest"
)

// suiteContract tallies every response the package's endpoint tests
// check against the contract (harness.serve), so that TestMain can tell
// which operations of the contract no test exercised.
var suiteContract = contracttest.NewTally()

// checkContract validates one response against the contract, failing tb
// when it does not conform, and counts it for the coverage check.
// Benchmarks skip it so that their figures measure the handlers alone.
func checkContract(tb testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	tb.Helper()
	if _, ok := tb.(*testing.B); ok {
		return
	}
	if err := suiteContract.Record(req, status, header, body); err != nil {
		tb.Errorf("contract: %s %s → %d: %v\nbody: %.2000s", req.Method, req.URL.RequestURI(), status, err, body)
	}
}

// TestMain runs the suite and then the coverage check: when the whole
// suite ran (no -run, -skip or fuzzing) and passed, every operation of the
// contract must have been answered, with a conforming success (or a
// status it describes with a body of its own), by at least one test.
// An operation added to api/openapi.yaml without an endpoint test here
// fails the package.
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || !wholeSuite() {
		os.Exit(code)
	}
	unc, err := suiteContract.Uncovered()
	if err != nil {
		fmt.Fprintf(os.Stderr, "contract coverage: %v\n", err)
		os.Exit(1)
	}
	if len(unc) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: contract coverage: no test of this package validated an answer to:\n\t%s\n", strings.Join(unc, "\n\t"))
		os.Exit(1)
	}
	if testing.Verbose() {
		fmt.Printf("contract coverage: every operation answered; %d responses validated\n", suiteContract.Checked())
	}
	os.Exit(code)
}

// wholeSuite says every test of the package ran: no -run, -skip, -fuzz
// or -test.list selection.
func wholeSuite() bool {
	for _, name := range []string{"test.run", "test.skip", "test.fuzz", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return true
}
