package httpapi

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The HTTP layer does not reach into the dashboard: both are handed the
// one list read model (lists.Reader) by cmd/assetd, and the dashboard is
// mounted as a plain http.Handler.
func TestDoesNotImportDashboard(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/assetd/assetd/internal/dashboard" {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
