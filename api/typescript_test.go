package api_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// freeJSON are the only schema members whose value is any JSON by design
// (docs/api.md): a change-log row's old and new fact values and a verdict
// warning's fact value (a number, string, boolean or object by fact).
var freeJSON = []string{"new", "old", "value"}

// TestTypeScriptTypesHaveNoUnknown reads the TypeScript types generated
// from the contract (clients/ts/src/api.d.ts, openapi-typescript) and fails
// when a member of a component schema is typed `unknown` (an untyped
// schema in the contract), other than the free JSON values above.
func TestTypeScriptTypesHaveNoUnknown(t *testing.T) {
	b, err := os.ReadFile("../clients/ts/src/api.d.ts")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	i := strings.Index(src, "\n    schemas: {\n")
	j := strings.Index(src, "\n    responses: {\n")
	if i < 0 || j < i {
		t.Fatal("api.d.ts has no components.schemas section")
	}
	member := regexp.MustCompile(`^\s*("?[\w$-]+"?|\[[^\]]+\])\??: (.*);$`)
	var bad []string
	for n, line := range strings.Split(src[i:j], "\n") {
		m := member.FindStringSubmatch(line)
		if m == nil || !regexp.MustCompile(`\bunknown\b`).MatchString(m[2]) {
			continue
		}
		if slices.Contains(freeJSON, strings.Trim(m[1], `"`)) && m[2] == "unknown" {
			continue
		}
		bad = append(bad, strings.TrimSpace(line)+" (schemas line "+strconv.Itoa(n)+")")
	}
	if len(bad) > 0 {
		t.Errorf("%d schema members typed unknown in clients/ts/src/api.d.ts:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
