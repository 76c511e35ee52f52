package registry

import (
	"fmt"
	"sort"
	"strings"
)

// Issue kinds. Issues describe repairs and findings that did not fail a load;
// docs/registry.md explains each one.
const (
	// Build.
	IssueAliasCollision         = "alias_collision"          // two assets claim one alias key
	IssueDuplicateMint          = "duplicate_mint"           // two assets list one mint
	IssueMintHomeIgnored        = "mint_home_ignored"        // a mintHomes entry names an asset that does not list the mint
	IssueAssetFolded            = "asset_folded"             // an asset lost all its variants to their homes and became aliases
	IssueAssetReplaced          = "asset_replaced"           // an overlay replaced an asset with the same id
	IssueSupplementalSkipped    = "supplemental_skipped"     // a supplemental asset's id is already taken
	IssueSupplementalMintKnown  = "supplemental_mint_known"  // a supplemental variant's mint is already listed (tally only)
	IssueLSTIndexKnownMint      = "lst_index_known_mint"     // an LST index mint is already a registry variant (tally only)
	IssueLSTIndexWithoutSolana  = "lst_index_without_solana" // LST index entries but no "solana" asset
	IssueCuratedUnknownMint     = "curated_unknown_mint"     // a curated member resolves to a singleton
	IssueCuratedAssetMismatch   = "curated_asset_mismatch"   // a member's assetId hint disagrees with its mint
	IssueCuratedDuplicateMember = "curated_duplicate_member" // merged lists listed a mint twice (tally only)

	// Import parsers.
	IssueKindMapped         = "kind_mapped"            // a variant kind outside the spec enum was mapped
	IssueTierNormalised     = "tier_normalised"        // a legacy tier ("experimental") became tier3 (tally only)
	IssueAliasMintDropped   = "alias_mint_dropped"     // an alias that is an address was dropped (tally only)
	IssueAliasRedundant     = "alias_redundant"        // an alias repeating the id or a variant id was dropped (tally only)
	IssueIssuerLabelDropped = "issuer_label_dropped"   // an issuer label shared by several assets was dropped as alias
	IssueStockTickerDerived = "stock_ticker_derived"   // an equity's symbol was taken as its stock ticker (tally only)
	IssuePreIPOLinked       = "pre_ipo_linked"         // a pre-IPO listing was attached to its asset (tally only)
	IssuePreIPOUnmatched    = "pre_ipo_unmatched"      // a pre-IPO listing names an unknown asset
	IssueInvalidMintSkipped = "invalid_mint_skipped"   // an entry with a malformed address was skipped
	IssueDuplicateMintSkip  = "duplicate_mint_skipped" // a repeated address in one import was skipped (tally only)
	IssueNoCoinIDSkipped    = "no_coin_id_skipped"     // a token-list entry without coin id was skipped (tally only)
	IssueOtherChainSkipped  = "other_chain_skipped"    // a token-list entry for another chain was skipped (tally only)
	IssueInvalidSlugSkipped = "invalid_slug_skipped"   // no valid slug could be derived (tally only)
	IssueReservePoolSkipped = "reserve_pool_skipped"   // the LST index's SOL reserve entry (wSOL) was skipped
	IssueFieldDropped       = "field_dropped"          // an invalid optional field (URL, text) was dropped (tally only)
	IssueCuratedMemberDrop  = "curated_member_dropped" // a curated member with a malformed mint was dropped
)

// Issue is one finding of a parser or of Build.
type Issue struct {
	Kind string `json:"kind"`
	// Key is the alias, label or other string the issue is about.
	Key       string `json:"key,omitempty"`
	AssetID   string `json:"assetId,omitempty"`
	VariantID string `json:"variantId,omitempty"`
	Mint      string `json:"mint,omitempty"`
	ListID    string `json:"listId,omitempty"`
	// Candidates are the competing asset ids, in a stable order.
	Candidates []string `json:"candidates,omitempty"`
	Detail     string   `json:"detail,omitempty"`
}

// String renders the issue on one line for logs.
func (i Issue) String() string {
	var b strings.Builder
	b.WriteString(i.Kind)
	for _, f := range [...]struct{ name, v string }{
		{"key", i.Key}, {"asset", i.AssetID}, {"variant", i.VariantID}, {"mint", i.Mint}, {"list", i.ListID},
	} {
		if f.v != "" {
			fmt.Fprintf(&b, " %s=%q", f.name, f.v)
		}
	}
	if len(i.Candidates) > 0 {
		fmt.Fprintf(&b, " candidates=%v", i.Candidates)
	}
	if i.Detail != "" {
		b.WriteString(": ")
		b.WriteString(i.Detail)
	}
	return b.String()
}

// Report collects what a parser or Build repaired or noticed. Issues lists
// findings one by one; Counts tallies every kind, including the frequent
// ones that are only counted.
type Report struct {
	// Format names the parsed input format (Format* constants); empty for
	// Build reports.
	Format string         `json:"format,omitempty"`
	Issues []Issue        `json:"issues,omitempty"`
	Counts map[string]int `json:"counts,omitempty"`
}

func newReport(format string) *Report {
	return &Report{Format: format, Counts: map[string]int{}}
}

// add records one issue and counts it.
func (r *Report) add(i Issue) {
	r.Issues = append(r.Issues, i)
	r.Counts[i.Kind]++
}

// tally counts n occurrences of kind without listing them.
func (r *Report) tally(kind string, n int) {
	if n > 0 {
		r.Counts[kind] += n
	}
}

// Count returns how many times kind occurred.
func (r *Report) Count(kind string) int {
	if r == nil {
		return 0
	}
	return r.Counts[kind]
}

// Filter returns the listed issues of the given kind.
func (r *Report) Filter(kind string) []Issue {
	if r == nil {
		return nil
	}
	var out []Issue
	for _, i := range r.Issues {
		if i.Kind == kind {
			out = append(out, i)
		}
	}
	return out
}

// Summary renders the counts as "kind=n" pairs in kind order, for logs.
func (r *Report) Summary() string {
	if r == nil || len(r.Counts) == 0 {
		return "no issues"
	}
	kinds := make([]string, 0, len(r.Counts))
	for k := range r.Counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s=%d", k, r.Counts[k])
	}
	return strings.Join(parts, " ")
}
