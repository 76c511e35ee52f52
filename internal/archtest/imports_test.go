package archtest

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/assetd/assetd/"

// TestImportRules: the import rules ARCHITECTURE.md states, checked over
// each package's non-test files.
//   - internal/storage is a leaf: domain packages import it for its errors,
//     topics and row types, so it imports no package of the module (the
//     codecs of domain rows live in internal/storage/codec).
//   - internal/httpapi does not reach into the dashboard: cmd/assetd hands
//     both the one list read model (lists.Reader) and mounts the dashboard
//     as a plain http.Handler.
//   - only internal/httpapi maps errors to the envelope's _tag
//     (internal/apierr): domain packages return their own errors.
func TestImportRules(t *testing.T) {
	tests := []struct {
		dir       string // relative to the module root
		forbidden func(path string) bool
		rule      string
	}{
		{"internal/storage", func(p string) bool { return strings.HasPrefix(p, module) }, "imports no package of the module"},
		{"internal/httpapi", func(p string) bool { return p == module+"internal/dashboard" }, "does not import the dashboard"},
	}
	for _, dir := range packageDirs(t) {
		if dir == "internal/httpapi" || dir == "internal/apierr" || strings.HasPrefix(dir, "cmd/") ||
			strings.HasSuffix(dir, "test") {
			continue
		}
		tests = append(tests, struct {
			dir       string
			forbidden func(path string) bool
			rule      string
		}{dir, func(p string) bool { return p == module+"internal/apierr" }, "does not import apierr (only httpapi maps errors)"})
	}
	for _, tt := range tests {
		for file, imports := range nonTestImports(t, tt.dir) {
			for _, p := range imports {
				if tt.forbidden(p) {
					t.Errorf("%s imports %s: %s %s", file, p, tt.dir, tt.rule)
				}
			}
		}
	}
}

// packageDirs lists the module's directories under internal/ that hold Go
// files.
func packageDirs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join("..", "..", "internal", "*", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var dirs []string
	for _, f := range append(files, more...) {
		d, err := filepath.Rel(filepath.Join("..", ".."), filepath.Dir(f))
		if err != nil {
			t.Fatal(err)
		}
		if d = filepath.ToSlash(d); !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	if len(dirs) < 10 {
		t.Fatalf("found only %d package directories under internal/", len(dirs))
	}
	return dirs
}

// nonTestImports returns the import paths of each non-test Go file of dir.
func nonTestImports(t *testing.T, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.ToSlash(filepath.Join(dir, filepath.Base(f)))
		for _, imp := range file.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = append(out[name], p)
		}
	}
	return out
}
