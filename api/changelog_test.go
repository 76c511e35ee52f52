package api

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// releaseHeading is a Keep a Changelog release heading: "## [1.2.3] - 2026-11-27".
var releaseHeading = regexp.MustCompile(`^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`)

// changelogVersion is the info.version CHANGELOG.md implies: the newest
// released version, with +unreleased while [Unreleased] holds entries
// (0.0.0 before the first release).
func changelogVersion(md []byte) (string, error) {
	released, pending, inUnreleased := "", false, false
	sc := bufio.NewScanner(bytes.NewReader(md))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "## [Unreleased]":
			inUnreleased = true
		case strings.HasPrefix(line, "## "):
			inUnreleased = false
			if m := releaseHeading.FindStringSubmatch(line); m != nil && released == "" {
				released = m[1]
			}
		case inUnreleased && strings.HasPrefix(line, "- "):
			pending = true
		}
	}
	if released == "" {
		released = "0.0.0"
	}
	if pending {
		return released + "+unreleased", sc.Err()
	}
	return released, sc.Err()
}

func TestInfoVersionFollowsChangelog(t *testing.T) {
	md, err := os.ReadFile("../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := changelogVersion(md)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := Load(YAML())
	if err != nil {
		t.Fatal(err)
	}
	if doc.Info.Version != want {
		t.Fatalf("api/openapi.yaml info.version is %q; CHANGELOG.md implies %q (see its header)", doc.Info.Version, want)
	}
}

func TestChangelogVersion(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"# Changelog\n## [Unreleased]\n### Added\n- x\n", "0.0.0+unreleased"},
		{"## [Unreleased]\n\n## [0.2.0] - 2026-12-01\n- a\n## [0.1.0] - 2026-11-30\n- b\n", "0.2.0"},
		{"## [Unreleased]\n- c\n## [0.2.0] - 2026-12-01\n- a\n", "0.2.0+unreleased"},
	} {
		if got, _ := changelogVersion([]byte(tc.md)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.md, got, tc.want)
		}
	}
}
