package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assetd/assetd/client"
	"github.com/assetd/assetd/internal/contracttest"
)

// startTypedDemo starts `assetd serve --demo` with an assets:read key and
// waits until solana's primary variant is priced.
func startTypedDemo(t *testing.T) (*server, string) {
	t.Helper()
	dir := t.TempDir()
	key := strings.TrimSpace(mustCLI(t, "keys", "create", "--project", "typed", "--scopes", "assets:read", "--data-dir", dir))
	s := startServer(t, "--data-dir", dir, "--demo")
	c, err := client.New(s.base, key)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "solana priced", func() bool {
		d, err := c.GetAsset(context.Background(), "solana", nil)
		return err == nil && d.Asset.PrimaryVariant != nil && d.Asset.PrimaryVariant.Market != nil &&
			d.Asset.PrimaryVariant.Market.Price != nil
	})
	return s, key
}

// TestTypedGoClient: the Go client's GetAsset returns the typed Asset
// generated from the contract (PrimaryVariant.Market.Price is a *float64),
// and the generated client behind Client.API answers the same, typed per
// status, through the key and the retry rule. Every response is checked
// against the contract on the way.
func TestTypedGoClient(t *testing.T) {
	s, key := startTypedDemo(t)
	c, err := client.New(s.base, key, client.WithHTTPClient(&http.Client{Transport: contracttest.Transport(t, nil)}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := c.GetAsset(ctx, "solana", nil)
	if err != nil {
		t.Fatal(err)
	}
	var asset client.Asset = d.Asset
	var price *float64 = asset.PrimaryVariant.Market.Price
	if asset.AssetId != "solana" || price == nil || *price <= 0 {
		t.Fatalf("GetAsset(solana) = %+v (price %v)", asset, price)
	}
	if k := asset.PrimaryVariant.Kind; !k.Valid() {
		t.Errorf("primary variant kind %q is not one of the contract's enum", k)
	}

	res, err := c.API().GetAssetWithResponse(ctx, "solana", nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != 200 || res.JSON200 == nil || res.JSON200.Asset.PrimaryVariant.Market.Price == nil {
		t.Fatalf("generated GetAsset: %d %s", res.StatusCode(), res.Body)
	}
	nf, err := c.API().GetAssetWithResponse(ctx, "no-such-asset-xyz", nil)
	if err != nil {
		t.Fatal(err)
	}
	if nf.StatusCode() != 404 || nf.JSON404 == nil || nf.JSON404.Error.UnderscoreTag == nil ||
		string(*nf.JSON404.Error.UnderscoreTag) != "NotFoundError" {
		t.Fatalf("generated GetAsset(unknown): %d %s", nf.StatusCode(), nf.Body)
	}
}

// TestTypeScriptTypedCall builds the TypeScript type package (clients/ts)
// with tsc --strict and runs its typed call against the demo server. It
// skips when node or the package's node_modules (npm ci, done by .ci/run)
// are absent.
func TestTypeScriptTypedCall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the TypeScript build")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the TypeScript typed call")
	}
	pkg, err := filepath.Abs("../../clients/ts")
	if err != nil {
		t.Fatal(err)
	}
	tsc := filepath.Join(pkg, "node_modules", ".bin", "tsc")
	if _, err := os.Stat(tsc); err != nil {
		t.Skip("clients/ts/node_modules is absent (run npm ci there): skipping the TypeScript typed call")
	}
	out := t.TempDir()
	build := exec.Command(tsc, "-p", filepath.Join(pkg, "tsconfig.json"), "--strict", "--outDir", out)
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("tsc --strict: %v\n%s", err, b)
	}
	s, key := startTypedDemo(t)
	run := exec.Command(node, filepath.Join(out, "call.js"), s.base, key, "solana")
	b, err := run.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node call.js: %v\n%s%s", err, b, stderr)
	}
	var got struct {
		AssetID string   `json:"assetId"`
		Kind    *string  `json:"kind"`
		Price   *float64 `json:"price"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("call.js printed %q: %v", b, err)
	}
	if got.AssetID != "solana" || got.Kind == nil || got.Price == nil || *got.Price <= 0 {
		t.Fatalf("call.js printed %s", b)
	}
}
