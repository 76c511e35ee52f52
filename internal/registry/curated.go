package registry

import (
	"slices"

	"github.com/assetd/assetd/internal/asset"
)

// AllListID is the derived curated list holding every curated asset.
const AllListID = "all"

// staticListIDs returns the curated list ids documents may define, in
// curated-rank order: majors, lsts, currencies, rwas, etfs, metals, stocks.
func staticListIDs() []string {
	return slices.DeleteFunc(slices.Clone(asset.CuratedLists), func(id string) bool { return id == AllListID })
}

func isStaticList(id string) bool {
	return id != AllListID && slices.Contains(asset.CuratedLists, id)
}

// defaultListText gives the name and description of a list no document
// describes.
func defaultListText(id string) (name, description string) {
	switch id {
	case AllListID:
		return "All", "Every curated asset, in list order."
	case "majors":
		return "Majors", "Major crypto assets on Solana."
	case "lsts":
		return "Liquid staking", "Liquid staking tokens on Solana."
	case "currencies":
		return "Currencies", "Fiat-backed stablecoins on Solana."
	case "rwas":
		return "Treasuries & RWAs", "Tokenized treasuries, funds and other real-world assets."
	case "etfs":
		return "ETFs", "Tokenized ETFs and index trackers."
	case "metals":
		return "Metals", "Tokenized precious and industrial metals."
	case "stocks":
		return "Stocks", "Tokenized equities."
	}
	return id, ""
}

// curatedIndex is the curated part of a Snapshot.
type curatedIndex struct {
	lists    []CuratedList       // asset.CuratedLists order, "all" first
	byID     map[string]int      // list id -> index in lists
	assetIDs map[string][]string // list id -> distinct asset ids in list order
	rank     map[string]int      // mint -> curated mint rank
}

// buildCurated resolves the merged lists against the snapshot's mint index,
// derives "all" and the curated mint rank.
//
// Every member's AssetID is set to the asset its mint resolves to; a mint no
// asset lists becomes a singleton id (reported). "all" is the union of the
// static lists in order, deduplicated by asset: the first member of each
// asset is kept. The curated mint rank of a mint is its position of first
// appearance when walking the static lists in order.
func buildCurated(merged map[string]*CuratedList, s *Snapshot, r *Report) curatedIndex {
	ci := curatedIndex{byID: map[string]int{}, assetIDs: map[string][]string{}, rank: map[string]int{}}
	static := staticListIDs()
	lists := make([]CuratedList, 0, len(static)+1)
	name, desc := defaultListText(AllListID)
	lists = append(lists, CuratedList{ID: AllListID, Name: name, Description: desc, Members: []CuratedMember{}})
	for _, id := range static {
		l := CuratedList{ID: id, Members: []CuratedMember{}}
		if m, ok := merged[id]; ok {
			l = cloneList(m)
		}
		if l.Name == "" || l.Description == "" {
			dn, dd := defaultListText(id)
			l.Name = cmpOr(l.Name, dn)
			l.Description = cmpOr(l.Description, dd)
		}
		for i := range l.Members {
			mem := &l.Members[i]
			mem.Rank = i
			resolved := SingletonAssetID(mem.Mint)
			if e, ok := s.mint(mem.Mint); ok {
				resolved = s.assets[e.asset].AssetID
			} else {
				r.add(Issue{Kind: IssueCuratedUnknownMint, ListID: id, Mint: mem.Mint, Detail: "no asset lists the mint; it is served as " + resolved})
			}
			if mem.AssetID != "" && mem.AssetID != resolved {
				if _, exists := s.assetIndex(mem.AssetID); exists {
					r.add(Issue{Kind: IssueCuratedAssetMismatch, ListID: id, Mint: mem.Mint, AssetID: resolved, Candidates: []string{mem.AssetID, resolved}})
				}
			}
			mem.AssetID = resolved
			if _, ok := ci.rank[mem.Mint]; !ok {
				ci.rank[mem.Mint] = len(ci.rank)
			}
		}
		lists = append(lists, l)
	}
	seen := map[string]bool{}
	for _, l := range lists[1:] {
		for _, mem := range l.Members {
			if seen[mem.AssetID] {
				continue
			}
			seen[mem.AssetID] = true
			mem.Rank = len(lists[0].Members)
			lists[0].Members = append(lists[0].Members, mem)
		}
	}
	for i, l := range lists {
		ci.byID[l.ID] = i
		ids := make([]string, 0, len(l.Members))
		have := map[string]bool{}
		for _, mem := range l.Members {
			if !have[mem.AssetID] {
				have[mem.AssetID] = true
				ids = append(ids, mem.AssetID)
			}
		}
		ci.assetIDs[l.ID] = ids
	}
	ci.lists = lists
	return ci
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
