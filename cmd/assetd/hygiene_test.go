package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRepositoryHygiene checks the repository files a newcomer and CI rely
// on (issue 12, item 22).
func TestRepositoryHygiene(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return string(b)
	}
	if m := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(read("go.mod")); m == nil || !regexp.MustCompile(`^\d+\.\d+(\.0)?$`).MatchString(m[1]) {
		t.Errorf("go.mod go directive %v demands a patch release", m)
	}
	ignore := strings.Fields(read(".gitignore"))
	for _, want := range []string{"/data/", "/data-demo/"} {
		if !slices.Contains(ignore, want) {
			t.Errorf(".gitignore lacks %s", want)
		}
	}
	if l := read("LICENSE"); !strings.Contains(l, "Apache License") || !strings.Contains(l, "Version 2.0, January 2004") || len(l) < 10000 {
		t.Errorf("LICENSE is not the Apache-2.0 text")
	}
	readme := read("README.md")
	for _, want := range []string{"The first build is slow and silent", "../shared/data", "ASSETD_TEST_DATABASE_URL", "ASSETD_TEST_REDIS", "ASSETD_TEST_NATS"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README does not mention %q", want)
		}
	}
	ci := read(".ci/run")
	for _, want := range []string{"go mod tidy -diff", "uses ASSETD_TEST_REDIS", "uses ASSETD_TEST_NATS"} {
		if !strings.Contains(ci, want) {
			t.Errorf(".ci/run lacks %q", want)
		}
	}
}
