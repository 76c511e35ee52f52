package registry

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assetd/assetd/internal/asset"
)

// solanaAssetID is the asset LST index entries attach to.
const solanaAssetID = "solana"

// tagLSTIndex marks variants that came from an LST index.
const tagLSTIndex = "lst_index"

// sourced is an asset being merged, with the position of the document that
// supplied it (0 = seed).
type sourced struct {
	asset Asset
	doc   int
}

// merger combines documents into one set of assets, curated lists and LST
// index entries. Its methods run in the order Build calls them.
type merger struct {
	report   *Report
	assets   map[string]*sourced
	homes    map[string]string
	lst      []Variant
	lstPos   map[string]int // mint -> index in lst
	lstMints map[string]bool
	lists    map[string]*CuratedList
	// supplemental holds the ids of assets taken from supplemental documents.
	supplemental map[string]bool
	// clone copies the authoritative assets (Build); BuildParsed owns its
	// documents and takes them as they are.
	clone bool
	// ids caches sortedIDs; code that adds or removes assets resets it.
	ids []string
}

func newMerger(r *Report) *merger {
	return &merger{
		report:   r,
		assets:   map[string]*sourced{},
		homes:    map[string]string{},
		lstPos:   map[string]int{},
		lstMints: map[string]bool{},
		lists:    map[string]*CuratedList{},

		supplemental: map[string]bool{},
	}
}

// docLabel names a Build input in errors and issues.
func docLabel(i int) string {
	if i == 0 {
		return "seed"
	}
	return fmt.Sprintf("overlay %d", i)
}

// addAuthoritative merges a regular document: an asset replaces the asset
// with the same id, mintHomes entries override earlier ones.
func (m *merger) addAuthoritative(i int, d *Document) {
	for j := range d.Assets {
		a := &d.Assets[j]
		if prev, ok := m.assets[a.AssetID]; ok {
			m.report.add(Issue{
				Kind: IssueAssetReplaced, AssetID: a.AssetID,
				Detail: fmt.Sprintf("%s replaces the entry from %s", docLabel(i), docLabel(prev.doc)),
			})
		}
		s := &sourced{asset: *a, doc: i}
		if m.clone {
			s.asset = cloneAsset(a)
		}
		m.assets[a.AssetID] = s
		m.ids = nil
	}
	maps.Copy(m.homes, d.MintHomes)
	m.addShared(d)
}

// addShared merges what every document contributes, supplemental or not:
// LST index entries (later entries replace earlier ones with the same mint)
// and curated lists (see mergeList).
func (m *merger) addShared(d *Document) {
	for j := range d.LSTIndex {
		e := cloneVariant(&d.LSTIndex[j])
		if pos, ok := m.lstPos[e.Mint]; ok {
			m.lst[pos] = e
			continue
		}
		m.lstPos[e.Mint] = len(m.lst)
		m.lst = append(m.lst, e)
	}
	for j := range d.CuratedLists {
		m.mergeList(&d.CuratedLists[j])
	}
}

// mergeList unions a list into the merged list with the same id. Members
// already present keep their position (and addedAt); new mints are appended
// in the incoming list's rank order. A later non-empty name or description
// replaces the earlier one.
func (m *merger) mergeList(l *CuratedList) {
	in := cloneList(l)
	slices.SortStableFunc(in.Members, func(a, b CuratedMember) int { return cmp.Compare(a.Rank, b.Rank) })
	cur, ok := m.lists[in.ID]
	if !ok {
		m.lists[in.ID] = &in
		return
	}
	if in.Name != "" {
		cur.Name = in.Name
	}
	if in.Description != "" {
		cur.Description = in.Description
	}
	have := make(map[string]bool, len(cur.Members))
	for _, mem := range cur.Members {
		have[mem.Mint] = true
	}
	for _, mem := range in.Members {
		if have[mem.Mint] {
			m.report.tally(IssueCuratedDuplicateMember, 1)
			continue
		}
		have[mem.Mint] = true
		cur.Members = append(cur.Members, mem)
	}
}

// sortedIDs returns the merged asset ids in ascending order (shared:
// read-only).
func (m *merger) sortedIDs() []string {
	if m.ids == nil {
		m.ids = slices.Sorted(maps.Keys(m.assets))
	}
	return m.ids
}

// resolveDuplicateMints keeps every mint in exactly one asset. For a mint
// listed by several assets the home is, in order: the asset named by
// mintHomes (when it lists the mint); the asset from the earliest document
// (the seed beats overlays, so imports cannot take a mint from a group we
// curate); the asset whose id sorts first. The other listings are removed.
// An asset left without variants is folded into the home of its first
// removed variant: its id, name, symbol, coin id, ticker and aliases become
// aliases there, so old references keep resolving.
func (m *merger) resolveDuplicateMints() {
	ids := m.sortedIDs()
	// first is the first owner of every mint (in asset id order); owners
	// lists every owner of the mints more than one asset lists.
	n := 0
	for _, s := range m.assets {
		n += len(s.asset.Variants)
	}
	first := make(map[string]*sourced, n)
	owners := map[string][]*sourced{}
	for _, id := range ids {
		s := m.assets[id]
		for _, v := range s.asset.Variants {
			f, ok := first[v.Mint]
			switch {
			case !ok:
				first[v.Mint] = s
			case owners[v.Mint] == nil:
				owners[v.Mint] = []*sourced{f, s}
			default:
				owners[v.Mint] = append(owners[v.Mint], s)
			}
		}
	}
	for _, mint := range slices.Sorted(maps.Keys(m.homes)) {
		home := m.homes[mint]
		os := owners[mint]
		if f, ok := first[mint]; ok && os == nil {
			os = []*sourced{f}
		}
		if !slices.ContainsFunc(os, func(s *sourced) bool { return s.asset.AssetID == home }) {
			m.report.add(Issue{
				Kind: IssueMintHomeIgnored, Mint: mint, AssetID: home,
				Detail: "mintHomes names an asset that does not list the mint",
			})
		}
	}
	foldInto := map[string]string{} // emptied asset -> home of its first removed variant
	for _, mint := range slices.Sorted(maps.Keys(owners)) {
		os := owners[mint]
		home, reason := m.pickHome(mint, os)
		candidates := make([]string, len(os))
		for i, s := range os {
			candidates[i] = s.asset.AssetID
			if s == home {
				continue
			}
			s.asset.Variants = slices.DeleteFunc(s.asset.Variants, func(v Variant) bool { return v.Mint == mint })
			if p := s.asset.PreIPO; p != nil && p.Mint == mint {
				p.Mint = ""
			}
			if _, ok := foldInto[s.asset.AssetID]; !ok {
				foldInto[s.asset.AssetID] = home.asset.AssetID
			}
		}
		m.report.add(Issue{
			Kind: IssueDuplicateMint, Mint: mint, AssetID: home.asset.AssetID, Candidates: candidates,
			Detail: "kept in " + home.asset.AssetID + " (" + reason + ")",
		})
	}
	for _, id := range ids {
		s := m.assets[id]
		if len(s.asset.Variants) > 0 {
			continue
		}
		target := m.assets[foldInto[id]]
		target.asset.Aliases = appendAliases(target.asset.Aliases, foldedAliases(&s.asset)...)
		delete(m.assets, id)
		m.ids = nil
		m.report.add(Issue{
			Kind: IssueAssetFolded, AssetID: id, Candidates: []string{target.asset.AssetID},
			Detail: "every variant belongs to " + target.asset.AssetID + "; its references became aliases there",
		})
	}
}

// pickHome chooses the asset that keeps a mint listed by several assets
// (owners are in asset id order) and says why.
func (m *merger) pickHome(mint string, owners []*sourced) (*sourced, string) {
	if home, ok := m.homes[mint]; ok {
		for _, s := range owners {
			if s.asset.AssetID == home {
				return s, "mintHomes"
			}
		}
	}
	best := owners[0]
	for _, s := range owners[1:] {
		if s.doc < best.doc {
			best = s
		}
	}
	for _, s := range owners {
		if s != best && s.doc == best.doc {
			return best, "first assetId"
		}
	}
	return best, "earliest document"
}

// foldedAliases lists the references of an asset that is folded away.
func foldedAliases(a *Asset) []string {
	out := []string{a.AssetID}
	for _, s := range []string{a.Name, a.Symbol, a.CoinID, a.StockTicker} {
		if s != "" {
			out = append(out, s)
		}
	}
	return append(out, a.Aliases...)
}

// appendAliases appends the aliases not already present (case-insensitively).
func appendAliases(dst []string, add ...string) []string {
	have := make(map[string]bool, len(dst)+len(add))
	for _, a := range dst {
		have[strings.ToLower(a)] = true
	}
	for _, a := range add {
		if k := strings.ToLower(a); !have[k] {
			have[k] = true
			dst = append(dst, a)
		}
	}
	return dst
}

// addSupplemental merges a supplemental document after the authoritative
// ones: an asset is skipped when its id is already a resolvable reference
// (an asset id or any alias key); variants whose mint is already listed are
// dropped; an asset left without variants is skipped.
func (m *merger) addSupplemental(i int, d *Document, taken map[string]bool, owned map[string]bool) {
	for j := range d.Assets {
		a := &d.Assets[j]
		if taken[a.AssetID] {
			m.report.add(Issue{
				Kind: IssueSupplementalSkipped, AssetID: a.AssetID,
				Detail: docLabel(i) + ": the id already resolves to a registry asset",
			})
			continue
		}
		c := cloneAsset(a)
		before := len(c.Variants)
		c.Variants = slices.DeleteFunc(c.Variants, func(v Variant) bool { return owned[v.Mint] })
		m.report.tally(IssueSupplementalMintKnown, before-len(c.Variants))
		if len(c.Variants) == 0 {
			m.report.add(Issue{
				Kind: IssueSupplementalSkipped, AssetID: a.AssetID,
				Detail: docLabel(i) + ": every mint is already listed",
			})
			continue
		}
		if c.PreIPO != nil && c.PreIPO.Mint != "" && !slices.ContainsFunc(c.Variants, func(v Variant) bool { return v.Mint == c.PreIPO.Mint }) {
			c.PreIPO.Mint = ""
		}
		for k := range assetKeys(&c) {
			taken[k] = true
		}
		for _, v := range c.Variants {
			owned[v.Mint] = true
		}
		m.assets[c.AssetID] = &sourced{asset: c, doc: i}
		m.ids = nil
		m.supplemental[c.AssetID] = true
	}
	m.addShared(d)
}

// takenKeys returns every reference that currently resolves (asset ids and
// alias keys) and every listed mint.
func (m *merger) takenKeys() (taken, owned map[string]bool) {
	taken, owned = map[string]bool{}, map[string]bool{}
	for _, s := range m.assets {
		for k := range assetKeys(&s.asset) {
			taken[k] = true
		}
		for _, v := range s.asset.Variants {
			owned[v.Mint] = true
		}
	}
	return taken, owned
}

// ownedMints returns every listed mint.
func (m *merger) ownedMints() map[string]bool {
	owned := map[string]bool{}
	for _, s := range m.assets {
		for _, v := range s.asset.Variants {
			owned[v.Mint] = true
		}
	}
	return owned
}

// attachLSTIndex appends the LST index entries whose mint no asset lists to
// the "solana" asset, as yield variants tagged "lst_index".
func (m *merger) attachLSTIndex() {
	if len(m.lst) == 0 {
		return
	}
	sol, ok := m.assets[solanaAssetID]
	if !ok {
		m.report.add(Issue{
			Kind:   IssueLSTIndexWithoutSolana,
			Detail: fmt.Sprintf("%d LST index entries ignored: no %q asset", len(m.lst), solanaAssetID),
		})
		return
	}
	owned := m.ownedMints()
	variantIDs := map[string]bool{}
	for _, v := range sol.asset.Variants {
		variantIDs[v.VariantID] = true
	}
	for _, e := range m.lst {
		if owned[e.Mint] {
			m.report.tally(IssueLSTIndexKnownMint, 1)
			continue
		}
		v := e
		if v.VariantID == "" || variantIDs[v.VariantID] {
			v.VariantID = solanaAssetID + ":" + v.Mint
		}
		if variantIDs[v.VariantID] {
			m.report.tally(IssueLSTIndexKnownMint, 1)
			continue
		}
		if v.Kind == "" {
			v.Kind = asset.KindYield
		}
		if !slices.Contains(v.Tags, tagLSTIndex) {
			v.Tags = append(v.Tags, tagLSTIndex)
		}
		variantIDs[v.VariantID] = true
		owned[v.Mint] = true
		m.lstMints[v.Mint] = true
		sol.asset.Variants = append(sol.asset.Variants, v)
	}
}
