package archtest

import (
	"bytes"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// testOnlyModules are modules the tests, benchmarks and code generators use
// that the server binary must not link: each one would be compiled on the
// first `go run ./cmd/assetd serve --demo` of a fresh clone for nothing
// (docs/build.md has the cold compile's cost per package). The embedded NATS
// server and miniredis stand in for real services in tests, chromedp drives
// the browser test, oapi-codegen and staticcheck are `go tool`s, and the
// second SQLite driver was evaluated and not adopted (docs/build.md).
var testOnlyModules = []string{
	"github.com/nats-io/nats-server/v2",
	"github.com/alicebob/miniredis/v2",
	"github.com/chromedp/chromedp",
	"github.com/chromedp/cdproto",
	"github.com/oapi-codegen/oapi-codegen/v2",
	"honnef.co/go/tools",
	"github.com/google/go-cmp",
	"github.com/ncruces/go-sqlite3",
}

// TestServerBinaryLinksNoTestOnlyModule: the modules cmd/assetd links
// (`go list -deps`, non-test files only) include none of testOnlyModules,
// and exactly one SQLite driver. It needs the go command and the module
// cache the build uses; it compiles nothing.
func TestServerBinaryLinksNoTestOnlyModule(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot list cmd/assetd's dependencies")
	}
	cmd := exec.Command(goTool, "list", "-deps", "-f", "{{with .Module}}{{.Path}}{{end}}", "./cmd/assetd")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/assetd: %v\n%s", err, stderr.String())
	}
	linked := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		linked[m] = true
	}
	if !linked["github.com/assetd/assetd"] {
		t.Fatalf("go list -deps ./cmd/assetd named no package of the module; output:\n%s", out)
	}
	var bad []string
	for _, m := range testOnlyModules {
		if linked[m] {
			bad = append(bad, m)
		}
	}
	sort.Strings(bad)
	for _, m := range bad {
		t.Errorf("cmd/assetd links %s, a test-only module: every cold `go run ./cmd/assetd` compiles it", m)
	}
	if !linked["modernc.org/sqlite"] {
		t.Errorf("cmd/assetd does not link modernc.org/sqlite, the SQLite driver docs/build.md measures")
	}
}
