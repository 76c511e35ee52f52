package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBuiltBinaryPrintsRevision builds the binary the way the README does,
// from a git checkout, and checks that `assetd version` names the checkout's
// commit. -buildvcs=true is explicit because some environments set
// GOFLAGS=-buildvcs=false, which would silently drop the stamp.
func TestBuiltBinaryPrintsRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	revOut, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (git rev-parse HEAD: %v): nothing to stamp", err)
	}
	rev := strings.TrimSpace(string(revOut))
	bin := filepath.Join(t.TempDir(), "assetd")
	build := exec.CommandContext(ctx, "go", "build", "-buildvcs=true", "-o", bin, "./cmd/assetd")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true ./cmd/assetd: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("assetd %s: %v\n%s", args[0], err, out)
		}
		if !strings.Contains(string(out), "revision "+rev) {
			t.Errorf("assetd %s = %q, want it to name revision %s", args[0], out, rev)
		}
	}
}
