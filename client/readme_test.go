package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/assetd/assetd/client"
)

// readme: the Go example of README.md ("Contract and Go client"), kept
// byte-identical by TestREADMEExampleIsThisCode.

// searchSol prints the assets matching "sol" and their primary variant's price (baseURL: e.g. http://localhost:8080).
func searchSol(ctx context.Context, baseURL string) error {
	c, err := client.New(baseURL, os.Getenv("ASSETD_KEY"))
	if err != nil {
		return err
	}
	res, err := c.SearchAssets(ctx, &client.SearchAssetsParams{Q: "sol", Limit: client.Ptr[int64](5)})
	var apiErr *client.Error
	switch {
	case errors.As(err, &apiErr):
		// apiErr.Status, apiErr.Tag ("BadRequestError"), apiErr.Code ("invalid_param"), apiErr.RequestID
		return fmt.Errorf("search refused: %w", err)
	case err != nil:
		return err
	}
	// Every member is typed (generated from the contract); nullable ones are pointers.
	fmt.Println(len(res.Results), "results for", res.Query)
	for _, a := range res.Results {
		price := "no market"
		if v := a.PrimaryVariant; v != nil && v.Market != nil && v.Market.Price != nil {
			price = fmt.Sprintf("$%.2f", *v.Market.Price)
		}
		fmt.Println(a.AssetId, price)
	}
	return nil
}

// end of the README example

// searchServer answers /v1/assets/search like assetd, or with a 400
// envelope when refuse is set.
func searchServer(refuse bool) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req-1")
		if refuse || r.URL.Path != "/v1/assets/search" || r.Header.Get("X-Api-Key") == "" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"_tag":"BadRequestError","message":"bad limit","details":{"code":"invalid_param"}}}`)
			return
		}
		// Synthetic rows (not real prices): one priced primary variant, one without a market.
		fmt.Fprintf(w, `{"query":%q,"category":null,"primaryVariantStrategy":"liquidity","results":[`+
			`{"assetId":"sol","category":"crypto","imageUrl":null,"stats":null,"primaryVariant":{"variantId":"sol:native","mint":"So11111111111111111111111111111111111111112","kind":"native","liquidityTier":"tier1","trustTier":"tier1","tags":[],"market":{"price":1.25,"liquidity":null,"volume24hUSD":null,"marketCap":null,"priceChange24hPercent":null,"priceChange1hPercent":null,"decimals":9,"logoURI":null,"lastFetchedAt":null},"executionQuality":null}},`+
			`{"assetId":"jitosol","category":"lst","imageUrl":null,"stats":null,"primaryVariant":null}]}`, r.URL.Query().Get("q"))
	}))
}

// Example_readme runs the README's example against a stand-in server.
func Example_readme() {
	srv := searchServer(false)
	defer srv.Close()
	os.Setenv("ASSETD_KEY", "adk_example") //nolint:errcheck // the example reads its key from the environment
	if err := searchSol(context.Background(), srv.URL); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 2 results for sol
	// sol $1.25
	// jitosol no market
}

func TestREADMEExampleRefusal(t *testing.T) {
	srv := searchServer(true)
	defer srv.Close()
	err := searchSol(context.Background(), srv.URL)
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Tag != "BadRequestError" || apiErr.Code != "invalid_param" || apiErr.RequestID != "req-1" ||
		!strings.HasPrefix(err.Error(), "search refused: ") {
		t.Fatalf("refusal: %v", err)
	}
}

// TestREADMEExampleIsThisCode fails when README.md's Go example and the
// compiled copy above differ.
func TestREADMEExampleIsThisCode(t *testing.T) {
	readmeBlockIsThisCode(t, "readme_test.go", "// searchSol prints", "// end of the README example")
}

// readmeBlockIsThisCode fails t when the README's ```go block that starts
// with the line start differs from src's text from start up to end (the
// compiled copy of that example).
func readmeBlockIsThisCode(t *testing.T, src, start, end string) {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	r := string(readme)
	i := strings.Index(r, "```go\n"+start)
	if i < 0 {
		t.Fatalf("README.md has no ```go block starting with %q", start)
	}
	r = r[i+len("```go\n"):]
	r = r[:strings.Index(r, "```")]
	c := string(code)
	j, k := strings.Index(c, start), strings.Index(c, end)
	if j < 0 || k < j {
		t.Fatalf("%s has no %q ... %q section", src, start, end)
	}
	if c = c[j:k]; strings.TrimSpace(r) != strings.TrimSpace(c) {
		t.Fatalf("README.md's example differs from client/%s:\nREADME:\n%s\ntest:\n%s", src, r, c)
	}
}
