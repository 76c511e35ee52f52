package main

import (
	"bytes"
	"strings"
	"testing"
)

// A recorded `go test -json` stream (shape of cmd/test2json): one pass,
// one skip with a reason, one skip without, one failure.
const stream = `{"Action":"start","Package":"github.com/assetd/assetd/x"}
{"ImportPath":"github.com/assetd/assetd/y","Action":"build-output","Output":"y/y.go:3:1: syntax error\n"}
{"Action":"run","Package":"github.com/assetd/assetd/x","Test":"TestA"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"github.com/assetd/assetd/x","Test":"TestA"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestB","Output":"    b_test.go:12: no chromium binary found: browser test skipped\n"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"github.com/assetd/assetd/x","Test":"TestB"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestC","Output":"--- SKIP: TestC (0.00s)\n"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestC","Output":"    c_test.go:3: ASSETD_TEST_REDIS_URL not set\n"}
{"Action":"skip","Package":"github.com/assetd/assetd/x","Test":"TestC"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestD","Output":"--- SKIP: TestD (0.00s)\n"}
{"Action":"skip","Package":"github.com/assetd/assetd/x","Test":"TestD"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestE","Output":"    e_test.go:9: want 1, got 2\n"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestE","Output":"--- FAIL: TestE (0.00s)\n"}
{"Action":"fail","Package":"github.com/assetd/assetd/x","Test":"TestE"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Test":"TestHang","Output":"panic: test timed out after 30m0s\n"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Output":"FAIL\n"}
{"Action":"output","Package":"github.com/assetd/assetd/x","Output":"FAIL\tgithub.com/assetd/assetd/x\t0.01s\n"}
{"Action":"fail","Package":"github.com/assetd/assetd/x"}
`

func TestReport(t *testing.T) {
	var out bytes.Buffer
	res := report(strings.NewReader(stream), &out)
	res.summary(&out)
	got := out.String()
	for _, want := range []string{
		"e_test.go:9: want 1, got 2", // a failure's output
		"y/y.go:3:1: syntax error",   // a build error
		"panic: test timed out",      // an unfinished test of a failed package
		"FAIL\tgithub.com/assetd/assetd/x\t0.01s",
		"SKIPPED (3):",
		"  x TestB: no chromium binary found: browser test skipped\n",
		"  x TestC: ASSETD_TEST_REDIS_URL not set\n",
		"  x TestD: (no reason given)\n",
		"tests: 1 passed, 1 failed, 3 skipped",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "=== RUN") {
		t.Errorf("report repeats passing tests' output:\n%s", got)
	}
}
