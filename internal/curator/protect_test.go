package curator

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/assetd/assetd/internal/asset"
	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/registry/registrytest"
	"github.com/assetd/assetd/internal/tokenindex"
)

func TestSourceProtectorAndMint(t *testing.T) {
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: "Cg2222222222222222222222222222222222222222", Symbol: "CG", CoingeckoID: "second"})
	b.Add(tokenindex.Token{Mint: "Cg1111111111111111111111111111111111111111", Symbol: "CG", CoingeckoID: "first"})
	x := b.Build()
	first, _ := x.Lookup("Cg1111111111111111111111111111111111111111")
	p := &Protected{
		assets: []registry.Asset{
			{AssetID: "usdc", Variants: []registry.Variant{{Mint: "usdc-native"}}},
			{AssetID: "sol", Variants: []registry.Variant{{Mint: "sol-native"}, {Mint: "sol-wrapped"}}},
		},
		lists: []registry.CuratedList{
			{ID: "all"},
			{ID: "majors", Members: []registry.CuratedMember{{Mint: "m0"}, {Mint: "m1"}}},
		},
		x: x,
	}
	tests := []struct {
		src             source
		protector, mint string
	}{
		{source{kind: srcRegistry, i: 0, j: 0}, "registry:usdc", "usdc-native"},
		{source{kind: srcRegistry, i: 1, j: 0}, "registry:sol", "sol-native"},
		{source{kind: srcRegistry, i: 1, j: 1}, "registry:sol", "sol-wrapped"},
		{source{kind: srcCurated, i: 1, j: 1}, "curated:majors", "m1"},
		{source{kind: srcCoingecko, i: first}, "coingecko:first", "Cg1111111111111111111111111111111111111111"},
		{source{kind: srcCoingecko, i: 1 - first}, "coingecko:second", "Cg2222222222222222222222222222222222222222"},
	}
	for _, tt := range tests {
		if got := p.protector(tt.src); got != tt.protector {
			t.Errorf("protector(%+v) = %q, want %q", tt.src, got, tt.protector)
		}
		if got := p.mint(tt.src); got != tt.mint {
			t.Errorf("mint(%+v) = %q, want %q", tt.src, got, tt.mint)
		}
	}
}

func TestClaims(t *testing.T) {
	empty := newClaimsBuilder(1).build()
	if _, ok := empty.Get("X"); ok {
		t.Fatal("an empty key set finds a key")
	}
	p := &Protected{}
	b := newClaimsBuilder(minNameKey)
	const n = 5000
	for i := range n {
		p.assets = append(p.assets, registry.Asset{AssetID: fmt.Sprint("a", i), Variants: []registry.Variant{{Mint: fmt.Sprint("m", i)}}})
		p.add(b, fmt.Sprintf("Name %d", i), source{kind: srcRegistry, i: uint32(i)})
	}
	p.add(b, "abc", source{kind: srcRegistry}) // shorter than minNameKey: never looked up
	c := b.build()
	if c.Len() != n {
		t.Fatalf("%d entries, want %d", c.Len(), n)
	}
	for i := range n {
		key := tokenindex.CollisionKey(tokenindex.Key(fmt.Sprintf("Name %d", i)))
		e, ok := c.Get(key)
		if !ok || e.first.i != uint32(i) {
			t.Fatalf("get(%q) = %+v, %v; want the entry of asset %d", key, e, ok, i)
		}
		if _, ok := c.Get(key + "X"); ok {
			t.Fatalf("get(%q) finds an absent key", key+"X")
		}
	}
	if _, ok := c.Get("ABC"); ok {
		t.Error("a key shorter than the builder's minimum was kept")
	}
}

// refClaim is a protected key as the index held it in strings: its first
// protector and its holders.
type refClaim struct {
	by      string
	holders []string
}

// refProtected is BuildProtected written plainly with maps of strings,
// the reference the compact index must agree with.
func refProtected(snap *registry.Snapshot, x *tokenindex.Index) (symbols, names map[string]*refClaim) {
	symbols, names = map[string]*refClaim{}, map[string]*refClaim{}
	add := func(m map[string]*refClaim, raw, mint, by string) {
		key := tokenindex.CollisionKey(tokenindex.Key(raw))
		if key == "" {
			return
		}
		c, ok := m[key]
		listed := func(by string) bool { return strings.HasPrefix(by, "coingecko:") }
		switch {
		case !ok:
			m[key] = &refClaim{by: by, holders: []string{mint}}
		case listed(by) && !listed(c.by):
			// The registry or a curated member holds the key: a listed
			// token sharing it does not.
		case !slices.Contains(c.holders, mint):
			c.holders = append(c.holders, mint)
		}
	}
	for i := range snap.Assets() {
		a := &snap.Assets()[i]
		for j := range a.Variants {
			v := &a.Variants[j]
			for _, s := range ClaimedSymbols(a, v) {
				add(symbols, s, v.Mint, "registry:"+a.AssetID)
			}
			if v.Name != "" {
				add(names, v.Name, v.Mint, "registry:"+a.AssetID)
			}
			if !derivative(v.Kind) && a.Name != "" {
				add(names, a.Name, v.Mint, "registry:"+a.AssetID)
			}
		}
	}
	for _, l := range snap.CuratedLists() {
		for _, m := range l.Members {
			if _, _, ok := snap.VariantByMint(m.Mint); ok {
				continue
			}
			if t, ok := x.Get(m.Mint); ok {
				add(symbols, t.Symbol, m.Mint, "curated:"+l.ID)
			}
		}
	}
	for id := range tokenindex.ID(x.Len()) {
		if cg := x.CoingeckoID(id); cg != "" {
			add(symbols, x.Symbol(id), x.Mint(id), "coingecko:"+cg)
			add(names, x.Name(id), x.Mint(id), "coingecko:"+cg)
		}
	}
	return symbols, names
}

// TestBuildProtectedMatchesReference checks every key of the seed plus a
// synthetic registry and a token index of coingecko-listed tokens (some
// claiming registry symbols and names, some curated members no asset
// lists): same keys, first protectors and holders as the plain build.
func TestBuildProtectedMatchesReference(t *testing.T) {
	majors := registry.CuratedList{ID: "majors"}
	for i := range 40 { // every fourth member an asset's, the rest unlisted
		mint := registrytest.Mint(5_000_000 + i)
		if i%4 == 0 {
			mint = registrytest.Mint(2 * i)
		}
		majors.Members = append(majors.Members, registry.CuratedMember{Mint: mint, Rank: i})
	}
	snap := syntheticSnapshot(t, 3_000, majors)
	var b tokenindex.Builder
	for i := range 300 {
		// Coingecko-listed tokens claiming synthetic symbols and names
		// (every third a new one), and an unlisted one.
		b.Add(tokenindex.Token{Mint: registrytest.Mint(1_000_000 + i), Symbol: fmt.Sprintf("SYN%06d", 10*i), Name: fmt.Sprintf("Synthetic asset %d", 7*i),
			CoingeckoID: fmt.Sprintf("syn-cg-%d", i)})
		b.Add(tokenindex.Token{Mint: registrytest.Mint(2_000_000 + i), Symbol: fmt.Sprintf("CGX%d", i%100), Name: fmt.Sprintf("Coingecko token %d", i%50),
			CoingeckoID: fmt.Sprintf("cgx-%d", i)})
		b.Add(tokenindex.Token{Mint: registrytest.Mint(3_000_000 + i), Symbol: "USDC", Name: "USD Coin"})
	}
	curatedOnly := 0
	for _, l := range snap.CuratedLists() {
		for _, m := range l.Members {
			if _, _, ok := snap.VariantByMint(m.Mint); !ok {
				b.Add(tokenindex.Token{Mint: m.Mint, Symbol: "CUR" + m.Mint[40:], Name: "Curated " + m.Mint[:6]}) // some share a symbol
				curatedOnly++
			}
		}
	}
	x := b.Build()
	p := BuildProtected(snap, x, nil)
	refSyms, refNames := refProtected(snap, x)
	check := func(what string, c *claims, ref map[string]*refClaim, minKey int) {
		t.Helper()
		got := map[string]bool{}
		for n := range c.Len() {
			key := c.Key(n)
			got[key] = true
			e, ok := c.Get(key)
			if !ok || e != c.Value(n) {
				t.Fatalf("%s %q: get finds %p %v, want entry %d", what, key, e, ok, n)
			}
			r, ok := ref[key]
			if !ok {
				t.Errorf("%s %q protected, the reference does not protect it", what, key)
				continue
			}
			if by := p.protector(e.first); by != r.by {
				t.Errorf("%s %q protected by %q, want %q", what, key, by, r.by)
			}
			if n := p.holderCount(e); n != len(r.holders) {
				t.Errorf("%s %q: %d holders, want %d", what, key, n, len(r.holders))
			}
			for _, m := range r.holders {
				if !p.holds(e, m) {
					t.Errorf("%s %q not held by %s", what, key, m)
				}
			}
		}
		for _, key := range slices.Sorted(maps.Keys(ref)) {
			if !got[key] && len(key) >= minKey {
				t.Errorf("%s %q not protected, the reference protects it", what, key)
			}
		}
	}
	check("symbol", &p.symbols, refSyms, 1)
	check("name", &p.names, refNames, minNameKey)
	if p.Len() != len(refSyms) {
		t.Errorf("Len %d, want %d", p.Len(), len(refSyms))
	}
	if len(p.others) == 0 || curatedOnly == 0 {
		t.Errorf("%d keys with several holders, %d curated members no asset lists; the test data should have both", len(p.others), curatedOnly)
	}
	t.Logf("%d symbols, %d names, %d with several holders, %d curated members no asset lists",
		p.symbols.Len(), p.names.Len(), len(p.others), curatedOnly)
}

// TestClaimVerdictProtectors: each candidate is reported with its own
// key's protector, past the judgment's few reused protector texts.
func TestClaimVerdictProtectors(t *testing.T) {
	const letters = "ABCDFGHJKMNPQRTUVWXYZ" // none another maps to in a collision key
	sym := func(i int) string {
		return "SYM" + letters[i/len(letters):i/len(letters)+1] + letters[i%len(letters):i%len(letters)+1]
	}
	p := &Protected{}
	b := newClaimsBuilder(1)
	var cands []Candidate
	for i := range 40 {
		p.assets = append(p.assets, registry.Asset{AssetID: fmt.Sprint("asset-", i), Variants: []registry.Variant{{Mint: fmt.Sprint("holder-", i)}}})
		p.add(b, sym(i), source{kind: srcRegistry, i: uint32(i)})
	}
	p.symbols = b.build()
	for round := range 3 { // holders, then impostors, then holders again: texts reused and evicted
		for i := range 40 {
			mint := fmt.Sprint("holder-", i)
			if round == 1 {
				mint = fmt.Sprint("impostor-", i)
			}
			cands = append(cands, Candidate{Mint: mint, Symbol: sym(i)})
		}
	}
	vs := claimVerdicts(cands, claimKeys(cands), p)
	for n, v := range vs {
		i, round := n%40, n/40
		want := VerdictProtectedHolder
		if round == 1 {
			want = VerdictImpersonation
		}
		if v.kind != want || v.protectedBy != fmt.Sprint("registry:asset-", i) {
			t.Errorf("candidate %d (round %d): %s by %q, want %s by registry:asset-%d", n, round, v.kind, v.protectedBy, want, i)
		}
	}
}

// TestListedTokensShareProtection: a token with an external listing id
// (coingecko) that shares a symbol the registry protects is a collision,
// not a holder; of several listed tokens sharing an unprotected symbol
// only the dominant one (the market leader, else the oldest) holds it,
// the others are collisions, and without evidence all of them are.
func TestListedTokensShareProtection(t *testing.T) {
	snap := seedSnapshot(t)
	// Synthetic mints (base58 shapes, not real tokens).
	const (
		listedUSDC = "SynListedUSDC1111111111111111111111111111111"
		realWoof   = "SynWoofRea11111111111111111111111111111111111"
		otherWoof  = "SynWoofOther111111111111111111111111111111111"
		copyWoof   = "SynWoofCopy1111111111111111111111111111111111"
	)
	var b tokenindex.Builder
	b.Add(tokenindex.Token{Mint: listedUSDC, Symbol: "USDC", Name: "Synthetic listed USD", CoingeckoID: "syn-listed-usd"})
	b.Add(tokenindex.Token{Mint: realWoof, Symbol: "WOOF", Name: "Synthetic Woof", CoingeckoID: "syn-woof"})
	b.Add(tokenindex.Token{Mint: otherWoof, Symbol: "$WOOF", Name: "Synthetic other woof", CoingeckoID: "syn-woof-other"})
	x := b.Build()
	prot := BuildProtected(snap, x, nil)
	woof := func(mint, cg string, m *asset.Market, age *float64) Candidate {
		return Candidate{Mint: mint, Symbol: "WOOF", Name: "Woof", CoingeckoID: cg, Market: m, AgeDays: age}
	}
	type want struct{ mint, verdict, by string }
	tests := []struct {
		name  string
		q     string
		cands []Candidate
		want  []want
	}{
		{"registry symbol", "USDC", []Candidate{usdc(), {Mint: listedUSDC, Symbol: "USDC", Name: "Synthetic listed USD", CoingeckoID: "syn-listed-usd"}},
			[]want{{usdcMint, VerdictProtectedHolder, "registry:usd"}, {listedUSDC, VerdictCollision, "registry:usd"}}},
		{"no evidence: contested", "WOOF", []Candidate{woof(realWoof, "syn-woof", nil, nil), woof(otherWoof, "syn-woof-other", nil, nil), woof(copyWoof, "", nil, nil)},
			[]want{{realWoof, VerdictCollision, ""}, {otherWoof, VerdictCollision, ""}, {copyWoof, VerdictImpersonation, "coingecko:syn-woof-other"}}}, // the first listed holder (index order)
		{"market leader", "WOOF", []Candidate{woof(realWoof, "syn-woof", mkt(5_000_000, 1_000_000), nil), woof(otherWoof, "syn-woof-other", mkt(20_000, 100), nil), woof(copyWoof, "", nil, nil)},
			[]want{{realWoof, VerdictProtectedHolder, "coingecko:syn-woof"}, {otherWoof, VerdictCollision, "coingecko:syn-woof"}, {copyWoof, VerdictImpersonation, "coingecko:syn-woof"}}},
		{"oldest listing", "WOOF", []Candidate{woof(realWoof, "syn-woof", nil, days(900)), woof(otherWoof, "syn-woof-other", nil, days(40))},
			[]want{{realWoof, VerdictProtectedHolder, "coingecko:syn-woof"}, {otherWoof, VerdictCollision, "coingecko:syn-woof"}}},
		{"plain spelling before age", "WOOF", []Candidate{woof(realWoof, "syn-woof", nil, days(40)), {Mint: otherWoof, Symbol: "$WOOF", Name: "Synthetic other woof", CoingeckoID: "syn-woof-other", AgeDays: days(900)}},
			[]want{{realWoof, VerdictProtectedHolder, "coingecko:syn-woof"}, {otherWoof, VerdictCollision, "coingecko:syn-woof"}}},
		{"one holder absent: contested", "WOOF", []Candidate{woof(otherWoof, "syn-woof-other", mkt(5_000_000, 1_000_000), days(900))},
			[]want{{otherWoof, VerdictCollision, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Judge(Interpret(tt.q), tt.cands, Policies[PolicyDegen], prot, MaxLimit, now)
			for _, w := range tt.want {
				r, _ := find(o, w.mint)
				if r == nil || r.Claims.Verdict != w.verdict || r.Claims.ProtectedBy != w.by {
					t.Errorf("%s: %+v, want %s by %q", w.mint, r, w.verdict, w.by)
					continue
				}
				flag := map[string]string{VerdictCollision: WarnCollision, VerdictImpersonation: WarnImpersonation}[w.verdict]
				if flag != "" && !slices.Contains(r.Warnings, flag) {
					t.Errorf("%s: warnings %v, want %s", w.mint, r.Warnings, flag)
				}
			}
		})
	}
	// The market leader is attested as such.
	o := Judge(Interpret("WOOF"), tests[2].cands, Policies[PolicyDegen], prot, MaxLimit, now)
	if r, _ := find(o, realWoof); r == nil || !slices.Contains(r.Reasons, ReasonMarketLeader) || o.Results[0].Mint != realWoof {
		t.Errorf("market leader: %+v", o.Results)
	}
}
