package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestMain clears the ASSETD_* configuration of the developer's shell (the
// ASSETD_TEST_* suite switches, the ASSETD_E2E_* browser-test settings and
// ASSETD_SHARED_DATA stay) so every test starts from the defaults.
func TestMain(m *testing.M) {
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ASSETD_") && !strings.HasPrefix(k, "ASSETD_TEST_") && !strings.HasPrefix(k, "ASSETD_E2E_") &&
			k != "ASSETD_SHARED_DATA" && k != "ASSETD_CHROMIUM" {
			os.Unsetenv(k)
		}
	}
	os.Exit(m.Run())
}

func quietCLI() *cli {
	return &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
}

func TestServeEnvironment(t *testing.T) {
	t.Setenv("ASSETD_ADDR", "127.0.0.1:9999")
	t.Setenv("ASSETD_DEMO", "true")
	t.Setenv("ASSETD_MARKETDATA_B", "0")
	t.Setenv("ASSETD_WARM_INTERVAL", "10s")
	t.Setenv("ASSETD_PROVIDER_BUDGET", "2.5")
	t.Setenv("ASSETD_LIST_MEMBERS_MAX", "7")
	cfg, err := quietCLI().parseServe([]string{"--addr", "127.0.0.1:7777"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.addr != "127.0.0.1:7777" {
		t.Errorf("addr = %q; the flag must win over ASSETD_ADDR", cfg.addr)
	}
	if !cfg.demo || cfg.market.marketB || cfg.market.warmInterval.String() != "10s" || cfg.market.budget != 2.5 || cfg.lists.MembersPerList != 7 {
		t.Errorf("env not applied: demo=%v marketB=%v warm=%v budget=%v members=%d",
			cfg.demo, cfg.market.marketB, cfg.market.warmInterval, cfg.market.budget, cfg.lists.MembersPerList)
	}
}

func TestServeEnvironmentInvalidValuesNameTheVariable(t *testing.T) {
	for _, tc := range []struct{ name, value string }{
		{"ASSETD_DEMO", "yes"},
		{"ASSETD_MARKETDATA_B", "off"},
		{"ASSETD_WARM_INTERVAL", "often"},
		{"ASSETD_PROVIDER_BUDGET", "fast"},
		{"ASSETD_LIST_BATCH_MAX", "1.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tc.name, tc.value)
			_, err := quietCLI().parseServe(nil)
			var u usageError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.name) {
				t.Fatalf("%s=%s: err = %v; want a usage error naming the variable", tc.name, tc.value, err)
			}
		})
	}
}

func TestDemoHasItsOwnDefaultDataDir(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{nil, "", "./data"},
		{[]string{"--demo"}, "", "./data-demo"},
		{[]string{"--demo", "--data-dir", "x"}, "", "x"},
		{[]string{"--demo"}, "y", "y"},
	} {
		if tc.env != "" {
			t.Setenv("ASSETD_DATA_DIR", tc.env)
		}
		cfg, err := quietCLI().parseServe(tc.args)
		if err != nil || cfg.dataDir != tc.want {
			t.Errorf("serve %v (ASSETD_DATA_DIR=%q): data dir %q, %v; want %q", tc.args, tc.env, cfg.dataDir, err, tc.want)
		}
	}
}

// TestEveryServeFlagHasADocumentedEnvVar reads `serve -h`: every flag names
// its variable, and the README's configuration table lists each one.
func TestEveryServeFlagHasADocumentedEnvVar(t *testing.T) {
	var out bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard}
	if err := c.run(context.Background(), []string{"serve", "-h"}); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	flagLine := regexp.MustCompile(`^  --([a-z0-9-]+)`)
	lines := strings.Split(out.String(), "\n")
	n := 0
	for i, l := range lines {
		m := flagLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n++
		env := envName(m[1])
		if i+1 >= len(lines) || !strings.Contains(lines[i+1], "env "+env) {
			t.Errorf("serve -h: --%s does not name %s", m[1], env)
		}
		if !bytes.Contains(readme, []byte("`"+env+"`")) || !bytes.Contains(readme, []byte("`--"+m[1]+"`")) {
			t.Errorf("README configuration table lacks --%s / %s", m[1], env)
		}
	}
	if n < 30 {
		t.Fatalf("serve -h listed %d flags:\n%s", n, out.String())
	}
}

// TestEveryCommandAnswersHelp runs "-h" on every command and group (exit
// status 0: run returns no error), and checks that every command the
// top-level usage names is documented, so the walk covers them all.
func TestEveryCommandAnswersHelp(t *testing.T) {
	groups := map[string]bool{}
	for name := range commandDocs {
		if g, _, ok := strings.Cut(name, " "); ok {
			groups[g] = true
		}
	}
	for _, line := range strings.Split(usageText, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "assetd" {
			continue
		}
		name := f[1]
		if groups[name] && len(f) > 2 {
			name += " " + f[2]
		}
		if _, ok := commandDocs[name]; !ok {
			t.Errorf("usage names %q, which has no commandDocs entry (so no -h text)", name)
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		var out bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard}
		if err := c.run(context.Background(), args); err != nil || !strings.Contains(out.String(), "Usage:") {
			t.Errorf("assetd %s: %v\n%s", args[0], err, out.String())
		}
	}
	for name, doc := range commandDocs {
		args := append(strings.Fields(name), "-h")
		var out bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard}
		if err := c.run(context.Background(), args); err != nil {
			t.Errorf("assetd %s: %v", strings.Join(args, " "), err)
			continue
		}
		if !strings.Contains(out.String(), doc.about) || !strings.Contains(out.String(), strings.TrimSpace("Usage: assetd "+name+" [flags] "+doc.args)+"\n") || (!doc.noStore && name != "version" && !strings.Contains(out.String(), "--data-dir")) {
			t.Errorf("assetd %s -h printed:\n%s", name, out.String())
		}
		for _, a := range doc.argv {
			if !strings.Contains(out.String(), a[1]) {
				t.Errorf("assetd %s -h does not describe %s", name, a[0])
			}
		}
		if g, _, ok := strings.Cut(name, " "); ok {
			groups[g] = true
		}
	}
	for g := range groups {
		var out bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard}
		if err := c.run(context.Background(), []string{g, "-h"}); err != nil || !strings.Contains(out.String(), "Subcommands:") {
			t.Errorf("assetd %s -h: %v\n%s", g, err, out.String())
		}
	}
}

// TestStoreCommandsReadOnlyStoreFlagsFromEnv: ASSETD_DATA_DIR reaches
// `keys`, while serve's ASSETD_QUOTA does not become keys limits --quota.
func TestStoreCommandsReadOnlyStoreFlagsFromEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ASSETD_DATA_DIR", dir)
	t.Setenv("ASSETD_QUOTA", "5/month")
	mustCLI(t, "keys", "create", "--project", "p")
	id := strings.Fields(mustCLI(t, "keys", "list", "--data-dir", dir))[0]
	mustCLI(t, "keys", "limits", id, "--rate", "2/10s")
	if list := mustCLI(t, "keys", "list"); !strings.Contains(list, "quota=default") {
		t.Fatalf("keys limits took ASSETD_QUOTA: %q", list)
	}
}

// The HTTP flags (--cors-origins, --access-log) read their ASSETD_*
// variables like every serve flag, and a bad access-log mode is refused.
func TestHTTPFlagsFromEnvironment(t *testing.T) {
	t.Setenv("ASSETD_CORS_ORIGINS", "https://a.example, *")
	t.Setenv("ASSETD_ACCESS_LOG", "all")
	cfg, err := quietCLI().parseServe(nil)
	if err != nil || cfg.http.accessLog != "all" || len(cfg.http.origins()) != 2 {
		t.Fatalf("env config: access log %q, origins %v, %v", cfg.http.accessLog, cfg.http.origins(), err)
	}
	t.Setenv("ASSETD_ACCESS_LOG", "verbose")
	if _, err := quietCLI().parseServe(nil); err == nil {
		t.Fatal("ASSETD_ACCESS_LOG=verbose accepted")
	}
}
