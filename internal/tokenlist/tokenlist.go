// Package tokenlist exports a list in the tokenlists.org format (the JSON
// schema of @uniswap/token-lists) and keeps its semantic version: every
// export is compared with the last persisted one and the version is bumped
// by the schema's rules (a token removed → major, a token added → minor,
// any other change → patch), then persisted, so the version only moves
// when the list's content does and every replica agrees on it.
package tokenlist

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assetd/assetd/internal/storage"
)

// ChainID is the chain id wallets use for Solana mainnet in token lists.
const ChainID = 101

// Schema limits of @uniswap/token-lists.
const (
	maxListName = 30
	maxName     = 60
	maxSymbol   = 20
)

// Version is the list's semantic version.
type Version struct {
	Major int64 `json:"major"`
	Minor int64 `json:"minor"`
	Patch int64 `json:"patch"`
}

// Initial is the version of a list's first export.
var Initial = Version{Major: 1}

// Token is one tokenInfo of the schema.
type Token struct {
	ChainID  int      `json:"chainId"`
	Address  string   `json:"address"`
	Symbol   string   `json:"symbol"`
	Name     string   `json:"name"`
	Decimals int      `json:"decimals"`
	LogoURI  string   `json:"logoURI,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

// TagDef defines a tag at the list level.
type TagDef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Tags every export may use.
const (
	TagVerified    = "verified"
	TagCaution     = "caution"
	TagCompromised = "compromised"
)

var tagDefs = map[string]TagDef{
	TagVerified:    {"Verified", "An active registry variant exists for the mint"},
	TagCaution:     {"Caution", "The mint has a caution advisory"},
	TagCompromised: {"Compromised", "The mint has a compromised advisory"},
}

// List is the exported document.
type List struct {
	Name      string            `json:"name"`
	Timestamp string            `json:"timestamp"`
	Version   Version           `json:"version"`
	Tokens    []Token           `json:"tokens"`
	Tags      map[string]TagDef `json:"tags,omitempty"`
	// Omitted lists the members left out of Tokens and why (an extension
	// field: the schema allows extra top-level members).
	Omitted []Omitted `json:"x-omitted,omitempty"`
}

// Entry is a list member as the list read shows it.
type Entry struct {
	Mint     string
	Symbol   *string
	Name     *string
	Decimals *int
	LogoURI  *string
	Verified bool
	Advisory string // "" or the advisory status (blocked members are not passed)
}

// Omitted is a member an export leaves out, and why; the document lists
// them in its `x-omitted` extension, so no member is dropped silently.
type Omitted struct {
	Address string `json:"address"`
	Symbol  string `json:"symbol,omitempty"`
	Reason  string `json:"reason"`
}

// Reasons of Omitted.
const (
	// ReasonDecimalsUnknown: no source (registry, token index, metadata
	// provider) knows the mint's decimals, which the schema requires.
	ReasonDecimalsUnknown = "decimals_unknown"
	// ReasonDecimalsInvalid: the known decimals are outside 0..255.
	ReasonDecimalsInvalid = "decimals_out_of_range"
)

// ErrEmpty: no member of the list can be exported, and the schema needs
// at least one token.
var ErrEmpty = errors.New("no member of the list can be exported: the token-list schema needs at least one token")

// Tokens converts entries, in rank order, to schema tokens, and reports
// the entries it leaves out: those without known decimals (the schema
// requires decimals) or with decimals outside 0..255.
func Tokens(entries []Entry) ([]Token, []Omitted) {
	out := make([]Token, 0, len(entries))
	var omitted []Omitted
	for _, e := range entries {
		if e.Decimals == nil || *e.Decimals < 0 || *e.Decimals > 255 {
			o := Omitted{Address: e.Mint, Reason: ReasonDecimalsUnknown}
			if e.Decimals != nil {
				o.Reason = ReasonDecimalsInvalid
			}
			if e.Symbol != nil {
				o.Symbol = clip(strings.Join(strings.Fields(*e.Symbol), ""), maxSymbol)
			}
			omitted = append(omitted, o)
			continue
		}
		t := Token{ChainID: ChainID, Address: e.Mint, Decimals: *e.Decimals}
		if e.Symbol != nil {
			t.Symbol = clip(strings.Join(strings.Fields(*e.Symbol), ""), maxSymbol)
		}
		if e.Name != nil {
			t.Name = clip(strings.Join(strings.Fields(*e.Name), " "), maxName)
		}
		if e.LogoURI != nil {
			if u, err := url.Parse(*e.LogoURI); err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "" || u.Path != "") {
				t.LogoURI = *e.LogoURI
			}
		}
		if e.Verified {
			t.Tags = append(t.Tags, TagVerified)
		}
		switch e.Advisory {
		case TagCaution, TagCompromised:
			t.Tags = append(t.Tags, e.Advisory)
		}
		out = append(out, t)
	}
	return out, omitted
}

// ListName maps a list name onto the schema's name rule (1..30 of
// [A-Za-z0-9_ ]): other characters become spaces, runs collapse.
func ListName(name string) string {
	s := strings.Map(func(r rune) rune {
		if r == '_' || r == ' ' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return ' '
	}, name)
	s = strings.TrimSpace(clip(strings.Join(strings.Fields(s), " "), maxListName))
	if s == "" {
		return "assetd list"
	}
	return s
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Next returns the version after prev for a change from old to cur, and
// whether anything changed.
func Next(prev Version, old, cur []Token) (Version, bool) {
	had := make(map[string]bool, len(old))
	for _, t := range old {
		had[t.Address] = true
	}
	has := make(map[string]bool, len(cur))
	added := false
	for _, t := range cur {
		has[t.Address] = true
		if !had[t.Address] {
			added = true
		}
	}
	for a := range had {
		if !has[a] {
			return Version{Major: prev.Major + 1}, true
		}
	}
	if added {
		return Version{Major: prev.Major, Minor: prev.Minor + 1}, true
	}
	if !slices.EqualFunc(old, cur, equalToken) {
		return Version{Major: prev.Major, Minor: prev.Minor, Patch: prev.Patch + 1}, true
	}
	return prev, false
}

func equalToken(a, b Token) bool {
	return a.ChainID == b.ChainID && a.Address == b.Address && a.Symbol == b.Symbol && a.Name == b.Name &&
		a.Decimals == b.Decimals && a.LogoURI == b.LogoURI && slices.Equal(a.Tags, b.Tags)
}

// State is the persisted last export of one list.
type State struct {
	Key       string // "list:<id>" or "curated:<slug>"
	Version   Version
	Tokens    []Token
	UpdatedAt time.Time
}

// Store persists export states.
type Store interface {
	// ExportState returns the state of key (storage.ErrNotFound when the
	// list was never exported).
	ExportState(ctx context.Context, key string) (State, error)
	// SaveExportState stores s if the stored version is still prev (nil:
	// no row yet), and wraps storage.ErrConflict when another writer won.
	SaveExportState(ctx context.Context, s State, prev *Version) error
}

// Exporter builds exports and keeps their versions.
type Exporter struct {
	Store Store
	Now   func() time.Time
}

// CommunityKey and CuratedKey name the state of a list.
func CommunityKey(listID string) string { return "list:" + listID }

// CuratedKey names the state of a curated list.
func CuratedKey(slug string) string { return "curated:" + slug }

// Export returns the list document for tokens (omitted: the members
// Tokens left out, listed in its x-omitted), bumping and persisting the
// version when tokens differ from the last export. With no token it
// returns ErrEmpty and persists nothing: the schema needs one.
func (e Exporter) Export(ctx context.Context, key, name string, tokens []Token, omitted []Omitted) (List, error) {
	if len(tokens) == 0 {
		return List{}, ErrEmpty
	}
	l, err := e.export(ctx, key, name, tokens)
	l.Omitted = omitted
	return l, err
}

func (e Exporter) export(ctx context.Context, key, name string, tokens []Token) (List, error) {
	for attempt := 0; ; attempt++ {
		st, err := e.Store.ExportState(ctx, key)
		var prev *Version
		switch {
		case err == nil:
			prev = &st.Version
		case errors.Is(err, storage.ErrNotFound):
		default:
			return List{}, fmt.Errorf("export %s: %w", key, err)
		}
		next := State{Key: key, Version: Initial, Tokens: tokens, UpdatedAt: e.Now().UTC().Truncate(time.Millisecond)}
		changed := true
		if prev != nil {
			next.Version, changed = Next(st.Version, st.Tokens, tokens)
		}
		if !changed {
			return doc(name, st), nil
		}
		err = e.Store.SaveExportState(ctx, next, prev)
		if err == nil {
			return doc(name, next), nil
		}
		if !errors.Is(err, storage.ErrConflict) || attempt >= 4 {
			return List{}, fmt.Errorf("export %s: %w", key, err)
		}
	}
}

func doc(name string, st State) List {
	l := List{Name: ListName(name), Timestamp: st.UpdatedAt.UTC().Format(time.RFC3339Nano), Version: st.Version, Tokens: st.Tokens}
	if l.Tokens == nil {
		l.Tokens = []Token{}
	}
	for _, t := range l.Tokens {
		for _, tag := range t.Tags {
			if l.Tags == nil {
				l.Tags = map[string]TagDef{}
			}
			l.Tags[tag] = tagDefs[tag]
		}
	}
	return l
}
