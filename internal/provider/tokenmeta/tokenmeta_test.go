package tokenmeta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assetd/assetd/internal/market"
	"github.com/assetd/assetd/internal/provider/internal/providertest"
)

const (
	testKey     = "jup-test-key-abcdef"
	mintJUP     = "JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN"
	mintSOL     = "So11111111111111111111111111111111111111112"
	mintUnknown = "113er4GLruBrK7XoerB2YLe3SkaLc9KbFdGPrkFpump"

	jupFixture = "fixtures-jupiter-doc-examples.json"
)

var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func newClient(t *testing.T, h http.Handler, mut func(*Config)) *Client {
	t.Helper()
	srv := providertest.Server(t, h)
	cfg := Config{BaseURL: srv.URL, Timeout: 5 * time.Second, Now: func() time.Time { return testNow }}
	if mut != nil {
		mut(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// docExample returns the 200 example of a Tokens v2 endpoint (by index in
// the fixture: 0 /search, 1 /tag), skipping when the data is absent.
func docExample(t *testing.T, endpoint int) []byte {
	t.Helper()
	doc := providertest.SharedData(t, jupFixture)
	return providertest.JSONPath(t, doc, "specs", "openapi-spec/tokens/v2/tokens.yaml", "endpoints", endpoint, "examples", 0)
}

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func ip(v int) *int { return &v }

var wantJUP = market.TokenMeta{
	Mint: mintJUP, Symbol: "JUP", Name: "Jupiter", Decimals: ip(6),
	LogoURI: "https://static.jup.ag/jup/icon.png", Verified: true,
}

func TestLookupDocExample(t *testing.T) {
	body := docExample(t, 0)
	var got *http.Request
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Clone(context.Background())
		_, _ = w.Write(body)
	}), func(cfg *Config) { cfg.APIKey = testKey })
	res, err := c.Lookup(context.Background(), []string{mintJUP, mintUnknown, mintJUP, "not-a-mint"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]market.TokenMeta{mintJUP: wantJUP}, res); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	if got.URL.Path != "/tokens/v2/search" || got.URL.Query().Get("query") != mintJUP+","+mintUnknown {
		t.Errorf("request %s", got.URL)
	}
	if got.Header.Get("x-api-key") != testKey || got.Header.Get("Accept") != "application/json" {
		t.Errorf("headers %v", got.Header)
	}
}

func TestSearchMapping(t *testing.T) {
	sources := []struct {
		name string
		body func(t *testing.T) []byte
		want []market.TokenMeta
	}{
		{"doc /search example", func(t *testing.T) []byte { return docExample(t, 0) }, []market.TokenMeta{wantJUP}},
		// The /tag example has no icon; isVerified is true.
		{"doc /tag example", func(t *testing.T) []byte { return docExample(t, 1) }, []market.TokenMeta{
			{Mint: mintSOL, Symbol: "SOL", Name: "Wrapped SOL", Decimals: ip(9), Verified: true},
		}},
		{"snippet", func(t *testing.T) []byte { return testdata(t, "search_jup_sol.json") }, []market.TokenMeta{
			wantJUP,
			{Mint: mintSOL, Symbol: "SOL", Name: "Wrapped SOL", Decimals: ip(9), Verified: true},
		}},
		{"verified from tags, odd entries dropped", func(t *testing.T) []byte {
			return []byte(`[{"id":"` + mintSOL + `","symbol":"SOL","tags":["verified"]},{"symbol":"NOID"},{"id":"` + mintJUP + `","isVerified":false,"tags":["verified"],"decimals":null}]`)
		}, []market.TokenMeta{
			{Mint: mintSOL, Symbol: "SOL", Verified: true},
			{Mint: mintJUP, Verified: false},
		}},
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			body := src.body(t)
			var got *http.Request
			c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = r.Clone(context.Background())
				_, _ = w.Write(body)
			}), nil)
			res, err := c.Search(context.Background(), "  jup  ", 5)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(src.want, res); diff != "" {
				t.Errorf("Search (-want +got):\n%s", diff)
			}
			if got.URL.Query().Get("query") != "jup" {
				t.Errorf("query %q, want trimmed", got.URL.Query().Get("query"))
			}
			if _, ok := got.Header["X-Api-Key"]; ok {
				t.Error("x-api-key sent without a configured key")
			}
		})
	}
}

func TestSearchLimitAndEmpty(t *testing.T) {
	var items []string
	for i := range 30 {
		items = append(items, fmt.Sprintf(`{"id":"%s%02d","symbol":"T%d"}`, mintUnknown[:42], i, i))
	}
	var calls atomic.Int32
	var lastQuery string
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		lastQuery = r.URL.Query().Get("query")
		_, _ = w.Write([]byte("[" + strings.Join(items, ",") + "]"))
	}), nil)
	tests := []struct {
		limit, want int
	}{{0, DefaultSearchLimit}, {-3, DefaultSearchLimit}, {7, 7}, {500, 30}}
	for _, tt := range tests {
		res, err := c.Search(context.Background(), "t", tt.limit)
		if err != nil || len(res) != tt.want {
			t.Errorf("limit %d: %d results, %v; want %d", tt.limit, len(res), err, tt.want)
		}
	}
	n := calls.Load()
	if res, err := c.Search(context.Background(), "   ", 5); err != nil || res != nil || calls.Load() != n {
		t.Errorf("blank query: %v %v, calls %d", res, err, calls.Load()-n)
	}
	if _, err := c.Search(context.Background(), strings.Repeat("é", 150), 5); err != nil || len([]rune(lastQuery)) != MaxQueryLen {
		t.Errorf("long query sent with %d runes, %v", len([]rune(lastQuery)), err)
	}
}

func TestLookupBatchesAndExactMatch(t *testing.T) {
	mints := genMints(150)
	var mu sync.Mutex
	var sizes []int
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := strings.Split(r.URL.Query().Get("query"), ",")
		mu.Lock()
		sizes = append(sizes, len(q))
		mu.Unlock()
		// Answer the first asked mint, plus a fuzzy match nobody asked for.
		fmt.Fprintf(w, `[{"id":%q,"symbol":"A","decimals":6,"isVerified":false},{"id":%q,"symbol":"FUZZY"}]`, q[0], mintSOL)
	}), func(cfg *Config) { cfg.Concurrency = 1 })
	res, err := c.Lookup(context.Background(), mints)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{100, 50}, sizes); diff != "" {
		t.Errorf("call sizes (-want +got):\n%s", diff)
	}
	if len(res) != 2 || res[mints[0]].Symbol != "A" || res[mints[100]].Symbol != "A" {
		t.Errorf("got %v", res)
	}
	if _, ok := res[mintSOL]; ok {
		t.Error("an unrequested search hit was returned")
	}
}

func TestLookupPartialFailureAndUnknown(t *testing.T) {
	mints := genMints(120)
	mints[0] = mintJUP
	body := testdata(t, "search_jup_sol.json")
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Query().Get("query"), mintJUP) {
			_, _ = w.Write(body)
			return
		}
		http.Error(w, "upstream down", http.StatusServiceUnavailable)
	}), nil)
	res, err := c.Lookup(context.Background(), mints)
	if err != nil {
		t.Fatalf("one failing call of two: %v", err)
	}
	if diff := cmp.Diff(map[string]market.TokenMeta{mintJUP: wantJUP}, res); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	for name, h := range map[string]http.Handler{
		"empty": providertest.JSON(200, []byte(`[]`)),
		"null":  providertest.JSON(200, []byte(`null`)),
		"404":   http.NotFoundHandler(),
	} {
		c := newClient(t, h, nil)
		res, err := c.Lookup(context.Background(), []string{mintUnknown})
		if err != nil || len(res) != 0 {
			t.Errorf("%s: %v %v", name, res, err)
		}
	}
}

type call struct {
	name string
	run  func(ctx context.Context, c *Client) error
}

var calls = []call{
	{"Lookup", func(ctx context.Context, c *Client) error { _, err := c.Lookup(ctx, []string{mintJUP}); return err }},
	{"Search", func(ctx context.Context, c *Client) error { _, err := c.Search(ctx, "jup", 10); return err }},
}

func TestErrors(t *testing.T) {
	retryAt := testNow.Add(10 * time.Minute).Format(http.TimeFormat)
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		check  func(t *testing.T, err error)
	}{
		{"429 seconds", 429, map[string]string{"Retry-After": "3"}, "", providertest.WantRateLimited(3 * time.Second)},
		{"429 http date", 429, map[string]string{"Retry-After": retryAt}, "", providertest.WantRateLimited(10 * time.Minute)},
		{"500", 500, nil, "", providertest.WantIs(market.ErrUpstream)},
		{"401 echoing the key", 401, nil, `{"error":"bad key ` + testKey + `"}`, func(t *testing.T, err error) {
			providertest.WantIs(market.ErrUpstream)(t, err)
			if strings.Contains(err.Error(), testKey) {
				t.Errorf("error leaks the key: %v", err)
			}
		}},
		{"malformed JSON", 200, nil, `[{"id":"x",`, providertest.WantIs(market.ErrMalformed)},
		{"object instead of array", 200, nil, `{"tokens":[]}`, providertest.WantIs(market.ErrMalformed)},
		{"decimals wrong type", 200, nil, `[{"id":"` + mintJUP + `","decimals":{}}]`, providertest.WantIs(market.ErrMalformed)},
		{"oversized", 200, nil, `[` + strings.Repeat(`{"id":"x"},`, 200) + `{}]`, providertest.WantIs(market.ErrMalformed)},
	}
	for _, tt := range tests {
		for _, cl := range calls {
			t.Run(tt.name+"/"+cl.name, func(t *testing.T) {
				c := newClient(t, providertest.Reply(tt.status, tt.header, tt.body), func(cfg *Config) { cfg.MaxBody = 1024; cfg.APIKey = testKey })
				err := cl.run(context.Background(), c)
				if err == nil {
					t.Fatal("want an error")
				}
				tt.check(t, err)
			})
		}
	}
}

func TestTimeouts(t *testing.T) {
	for _, cl := range calls {
		t.Run(cl.name, func(t *testing.T) {
			providertest.Timeouts(t, func(ctx context.Context, h http.Handler, timeout time.Duration) error {
				return cl.run(ctx, newClient(t, h, func(cfg *Config) { cfg.Timeout = timeout }))
			})
		})
	}
}

func TestAPIKeyNeverLogged(t *testing.T) {
	var logs providertest.LogBuffer
	var n atomic.Int32
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 3 {
		case 0:
			_, _ = w.Write([]byte(`[]`))
		case 1:
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "key %s not allowed", r.Header.Get("x-api-key"))
		default:
			w.WriteHeader(http.StatusTooManyRequests)
		}
	}), func(cfg *Config) { cfg.APIKey = testKey; cfg.Logger = logs.Logger() })
	for range 3 {
		_, _ = c.Search(context.Background(), "x", 1)
	}
	if logs.String() == "" {
		t.Fatal("nothing logged")
	}
	if strings.Contains(logs.String(), testKey) {
		t.Errorf("the API key was logged:\n%s", logs.String())
	}
}

func genMints(n int) []string {
	const b58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	out := make([]string, n)
	for i := range out {
		out[i] = mintUnknown[:42] + string(b58[i/58%58]) + string(b58[i%58])
	}
	return out
}

func FuzzParseSearch(f *testing.F) {
	f.Add(testdata(f, "search_jup_sol.json"))
	if b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "data", jupFixture)); err == nil {
		var doc struct {
			Specs map[string]struct {
				Endpoints []struct {
					Examples []json.RawMessage `json:"examples"`
				} `json:"endpoints"`
			} `json:"specs"`
		}
		if json.Unmarshal(b, &doc) == nil {
			for _, ep := range doc.Specs["openapi-spec/tokens/v2/tokens.yaml"].Endpoints {
				for _, ex := range ep.Examples {
					f.Add([]byte(ex))
				}
			}
		}
	}
	for _, s := range []string{``, `null`, `[]`, `{}`, `[null]`, `[{"id":1}]`, `[{"id":"a","decimals":"6"}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms, err := parseSearch(body)
		if err != nil && !errors.Is(err, market.ErrMalformed) {
			t.Fatalf("error not ErrMalformed: %v", err)
		}
		for _, m := range ms {
			if m.Mint == "" {
				t.Fatal("entry without a mint")
			}
		}
	})
}

// TestHostileMetadataCleaned: control and bidi characters, overlong
// fields, non-http(s) icons and impossible decimals from the provider are
// cleaned before anything stores or serves them.
func TestHostileMetadataCleaned(t *testing.T) {
	body := `[{"id":"` + mintJUP + `","symbol":"JU\u0000P","name":"Jup\u202eiter\u0007","icon":"javascript:alert(1)","decimals":77},` +
		`{"id":"` + mintSOL + `","symbol":"` + strings.Repeat("S", 40) + `","name":"ok","icon":"http://example.org/a.png","decimals":9}]`
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }), nil)
	res, err := c.Lookup(context.Background(), []string{mintJUP, mintSOL})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]market.TokenMeta{
		mintJUP: {Mint: mintJUP, Symbol: "JUP", Name: "Jupiter"},
		mintSOL: {Mint: mintSOL, Symbol: strings.Repeat("S", 32), Name: "ok", LogoURI: "http://example.org/a.png", Decimals: ip(9)},
	}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
}
