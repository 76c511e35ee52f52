package main

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Synthetic tokens (base58 shapes, not real mints).
const (
	synthMintA = "Syn1dx1111111111111111111111111111111111111"
	synthMintB = "SynNu11111111111111111111111111111111111111"
)

// TestTokenImportReachesRunningServer imports a token file with the CLI
// while a server runs on the same store: curator search, v1 search and
// member resolution find the new tokens within the poll interval, and
// hostile metadata arrives cleaned.
func TestTokenImportReachesRunningServer(t *testing.T) {
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) {
			key := strings.TrimSpace(mustCLI(t, append([]string{"keys", "create", "--project", "acme"}, e.flags...)...))
			s := startServer(t, e.flags...)
			hdr := map[string]string{"X-Api-Key": key}
			file := filepath.Join(t.TempDir(), "synthetic.csv")
			csv := "mint,symbol,name,decimals,logoURI,coingeckoId\n" +
				synthMintA + ",SYNTHX,Synthetic Example Token,6,https://img.example/" + synthMintA + ".png,\n" +
				synthMintB + ",\"SYN\x00NUL\",\"Evil\u202e Token\",9,javascript:alert(1),\n"
			if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
				t.Fatal(err)
			}
			if out := mustCLI(t, append([]string{"tokens", "import", file, "--dry-run"}, e.flags...)...); !strings.Contains(out, "dry run") {
				t.Fatalf("dry run: %q", out)
			}
			out := mustCLI(t, append([]string{"tokens", "import", file, "--source", "synthetic"}, e.flags...)...)
			if !strings.Contains(out, "stored 2 tokens as source synthetic") {
				t.Fatalf("import output: %q", out)
			}
			found := func() bool {
				_, _, body := s.get(t, "/v2/lists/search-tokens?policy=degen&q=SYNTHX", hdr)
				res, _ := body["results"].([]any)
				return len(res) > 0 && res[0].(map[string]any)["mint"] == synthMintA
			}
			d := eventually(t, 5*time.Second, "search-tokens finds the imported token", found)
			t.Logf("%s: imported token searchable %s after import", e.name, d)
			_, _, body := s.get(t, "/v1/assets/search?q="+url.QueryEscape("synthetic example"), hdr)
			if rs, _ := body["results"].([]any); len(rs) == 0 || rs[0].(map[string]any)["assetId"] != "solana-"+synthMintA {
				t.Fatalf("v1 search: %v", body)
			}
			_, _, body = s.get(t, "/v2/lists/search-tokens?policy=degen&q="+synthMintB, hdr)
			res, _ := body["results"].([]any)
			if len(res) != 1 {
				t.Fatalf("mint search: %v", body)
			}
			claims := res[0].(map[string]any)["claims"].(map[string]any)
			if claims["symbol"] != "SYNNUL" || claims["name"] != "Evil Token" {
				t.Fatalf("hostile metadata served as %v", claims)
			}
			if out := mustCLI(t, append([]string{"tokens", "stats"}, e.flags...)...); !strings.Contains(out, "synthetic\t2 tokens") {
				t.Fatalf("stats: %q", out)
			}
		})
	}
}
