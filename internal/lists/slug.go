package lists

import (
	"regexp"

	"github.com/assetd/assetd/internal/asset"
)

// slugRE is the spec's slug rule.
var slugRE = regexp.MustCompile(`^[a-z][a-z0-9-]{2,62}$`)

// reservedWords are slugs no community list may take besides the curated
// list ids: path words of the /v2/lists routes.
var reservedWords = []string{"all", "lists", "curated", "tokens", "search-tokens"}

// Reserved reports whether slug is a curated list id or a reserved word.
func Reserved(slug string) bool {
	for _, w := range asset.CuratedLists {
		if slug == w {
			return true
		}
	}
	for _, w := range reservedWords {
		if slug == w {
			return true
		}
	}
	return false
}

// ValidSlug reports whether slug matches the slug rule (reserved words
// included).
func ValidSlug(slug string) bool { return slugRE.MatchString(slug) }

// CheckSlug returns a *RuleError with code invalid_slug or reserved_slug,
// or nil when slug may name a community list. It does not look for taken
// slugs; the store does that atomically.
func CheckSlug(slug string) error {
	if !ValidSlug(slug) {
		return ruleErr(CodeInvalidSlug, "slug must match ^[a-z][a-z0-9-]{2,62}$")
	}
	if Reserved(slug) {
		return ruleErr(CodeReservedSlug, "slug %q is reserved", slug)
	}
	return nil
}
