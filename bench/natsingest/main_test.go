package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestRunsBothPaths runs the tool small against PostgreSQL and NATS
// (ASSETD_TEST_DATABASE_URL, ASSETD_TEST_NATS_URL; skipped without): both
// paths store every trade and the report names both and the ratio. It
// checks no figure (they depend on the machine's load).
func TestRunsBothPaths(t *testing.T) {
	pg, nats := os.Getenv("ASSETD_TEST_DATABASE_URL"), os.Getenv("ASSETD_TEST_NATS_URL")
	if pg == "" || nats == "" {
		t.Skip("ASSETD_TEST_DATABASE_URL and ASSETD_TEST_NATS_URL not both set")
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-pg", pg, "-nats", nats, "-n", "3000", "-batch", "700", "-senders", "2"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"direct      3000 trades", "nats        3000 trades", "ratio nats/direct"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestArgs(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"-batch", "-1"}, {"-senders", "0"}, {"-nope"}} {
		if err := run(context.Background(), args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
