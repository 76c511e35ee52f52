package news

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/assetd/assetd/internal/registry"
)

// Tagger tags items with the external coin ids of the registry assets
// they mention. It is immutable; build a new one when the registry
// changes.
type Tagger struct {
	coins  []coinTerms
	coinID map[string]bool
}

type coinTerms struct {
	id string
	// symbol matches case-sensitively as written ("LINK", not "link") and
	// as a cashtag in any case; a symbol of ShortTermMax characters or
	// fewer only as a cashtag.
	symbol      string
	symbolLower string
	symbolShort bool
	// words (name and aliases, lower-cased) match case-insensitively with
	// word boundaries, or only as cashtags when short.
	words []Term
}

// NewTagger compiles the terms of every asset that has an external coin
// id: its symbol, name and aliases.
func NewTagger(assets []registry.Asset) *Tagger {
	t := &Tagger{coinID: make(map[string]bool)}
	for _, a := range assets {
		if a.CoinID == "" {
			continue
		}
		t.coinID[a.CoinID] = true
		c := coinTerms{id: a.CoinID}
		if s := strings.TrimSpace(a.Symbol); s != "" {
			c.symbol, c.symbolLower = s, strings.ToLower(s)
			c.symbolShort = utf8.RuneCountInString(s) <= ShortTermMax || !hasLetter(s)
		}
		raw := append([]string{a.Name}, a.Aliases...)
		c.words = CompileTerms(raw)
		t.coins = append(t.coins, c)
	}
	slices.SortFunc(t.coins, func(a, b coinTerms) int { return strings.Compare(a.id, b.id) })
	return t
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// KnownCoin reports whether id is the external coin id of a registry
// asset (the feed's test for an active coin_id).
func (t *Tagger) KnownCoin(id string) bool { return t != nil && t.coinID[id] }

// Tag returns the sorted coin ids whose terms occur in the title or the
// summary (nil when none).
func (t *Tagger) Tag(title, summary string) []string {
	if t == nil || len(t.coins) == 0 {
		return nil
	}
	text := title + "\n" + summary
	lower := strings.ToLower(text)
	var out []string
	for i := range t.coins {
		if t.coins[i].matches(text, lower) {
			out = append(out, t.coins[i].id)
		}
	}
	return out
}

func (c *coinTerms) matches(text, lower string) bool {
	if c.symbol != "" {
		if containsCashtag(lower, c.symbolLower) || (!c.symbolShort && containsWord(text, c.symbol)) {
			return true
		}
	}
	for _, w := range c.words {
		if w.Matches(lower) {
			return true
		}
	}
	return false
}
