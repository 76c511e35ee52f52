// Package lists holds the domain of community token lists (v2) and of mint
// advisories: the value types, the limits, the slug rule and the typed rule
// errors whose codes the HTTP layer puts in details.code.
//
// The split of work: Service checks everything that needs no database
// (slug syntax and reserved words, statuses, name and note sizes, batch
// size, de-duplication) and passes the caller's project, the clock and the
// limits to the Store. The Store enforces, inside one transaction, what needs
// atomicity: ownership, slug uniqueness across live slugs and rename holds,
// the per-project and per-list caps and dense member ranks.
package lists

import (
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/metadata"
)

// List statuses (spec "List status").
const (
	StatusDraft     = "draft"     // not in the catalog; reading by slug gives 404
	StatusUnlisted  = "unlisted"  // hidden from the catalog and inLists; readable by slug
	StatusPublished = "published" // in the catalog; readable by anyone
	StatusArchived  = "archived"  // reversible hide; reading by slug gives 404
)

// Statuses lists every list status in spec order.
var Statuses = []string{StatusDraft, StatusUnlisted, StatusPublished, StatusArchived}

// CreateStatuses are the statuses a list may be created with.
var CreateStatuses = []string{StatusDraft, StatusUnlisted, StatusPublished}

// DefaultCreateStatus is the status of a list created without one.
const DefaultCreateStatus = StatusPublished

// ValidStatus reports whether s is one of the four list statuses.
func ValidStatus(s string) bool {
	switch s {
	case StatusDraft, StatusUnlisted, StatusPublished, StatusArchived:
		return true
	}
	return false
}

// List is one community list. Times are unix milliseconds.
type List struct {
	ID          string
	Slug        string
	Name        string
	Status      string
	Owner       string // id of the owning project
	MemberCount int    // stored members, advisory-blocked ones included
	CreatedAt   int64
	UpdatedAt   int64 // last change of the list or its members
}

// Readable reports whether anyone may read the list by its slug
// (published or unlisted).
func (l List) Readable() bool { return l.Status == StatusPublished || l.Status == StatusUnlisted }

// Listed reports whether the list appears in the catalog and in inLists
// annotations (published only).
func (l List) Listed() bool { return l.Status == StatusPublished }

// Snapshot is the token metadata stored with a member when it was put, so
// a list can be served when the mint's sources are unavailable.
type Snapshot struct {
	Symbol   *string
	Name     *string
	Decimals *int
	LogoURI  *string
	Verified bool // an active registry variant existed for the mint
}

// Member is one token of a list. Ranks of a list are always 1..n.
type Member struct {
	Mint     string
	Rank     int
	Note     string // "" when none
	AddedAt  int64  // unix ms
	Snapshot Snapshot
}

// Limits are the tunable caps (spec "Limits"; "The list caps are tunable on
// the server"). Zero fields take the default.
type Limits struct {
	ListsPerProject int           // lists a project may own (any status); 100
	MembersPerList  int           // members of one list; 5,000
	BatchSize       int           // distinct mints per bulk add; 250
	SlugHold        time.Duration // how long a renamed-away slug stays held for its owner; 30 days
	NameLen         int           // characters of a list name; 80
	NoteLen         int           // characters of a member note; 500
}

// Defaults of Limits.
const (
	DefaultListsPerProject = 100
	DefaultMembersPerList  = 5000
	DefaultBatchSize       = 250
	DefaultSlugHold        = 30 * 24 * time.Hour
	DefaultNameLen         = 80
	DefaultNoteLen         = 500
)

// DefaultLimits returns the spec's limits.
func DefaultLimits() Limits {
	return Limits{
		ListsPerProject: DefaultListsPerProject,
		MembersPerList:  DefaultMembersPerList,
		BatchSize:       DefaultBatchSize,
		SlugHold:        DefaultSlugHold,
		NameLen:         DefaultNameLen,
		NoteLen:         DefaultNoteLen,
	}
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.ListsPerProject == 0 {
		l.ListsPerProject = d.ListsPerProject
	}
	if l.MembersPerList == 0 {
		l.MembersPerList = d.MembersPerList
	}
	if l.BatchSize == 0 {
		l.BatchSize = d.BatchSize
	}
	if l.SlugHold == 0 {
		l.SlugHold = d.SlugHold
	}
	if l.NameLen == 0 {
		l.NameLen = d.NameLen
	}
	if l.NoteLen == 0 {
		l.NoteLen = d.NoteLen
	}
	return l
}

// Validate rejects negative limits.
func (l Limits) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"lists per project", int64(l.ListsPerProject)},
		{"members per list", int64(l.MembersPerList)},
		{"batch size", int64(l.BatchSize)},
		{"slug hold", int64(l.SlugHold)},
		{"name length", int64(l.NameLen)},
		{"note length", int64(l.NoteLen)},
	} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("lists: %s limit must not be negative, got %d", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// Clean returns the snapshot with its metadata validated (control and
// bidi characters removed, length caps, http(s) logo URIs only; see
// internal/metadata). Empty fields become nil.
func (s Snapshot) Clean() Snapshot {
	m := metadata.Clean(metadata.Token{Symbol: deref(s.Symbol), Name: deref(s.Name), LogoURI: deref(s.LogoURI), Decimals: s.Decimals})
	return Snapshot{Symbol: nonEmpty(m.Symbol), Name: nonEmpty(m.Name), LogoURI: nonEmpty(m.LogoURI), Decimals: m.Decimals, Verified: s.Verified}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
