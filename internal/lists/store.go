package lists

import (
	"context"
	"time"
)

// Store is what lists need from a storage engine. Every write runs in one
// transaction that also bumps the storage.TopicLists change version (only
// when something changed), so a failed call applies nothing. Writes to one
// list are serialised (SQLite's single writer; PostgreSQL locks the list
// row), so ranks stay dense and unique under concurrency.
//
// Errors (wrapped; test with errors.Is / errors.As): storage.ErrNotFound
// when no list has the slug (a renamed-away slug included), ErrForbidden when
// the list belongs to a project other than the caller's, *RuleError for the
// rules checked inside the transaction.
type Store interface {
	// CreateList inserts a list. Errors: slug_conflict when the slug is a
	// live slug or is held by another project's rename (an expired hold,
	// or one of the same owner, is released and the slug reclaimed);
	// project_lists_limit when p.Owner already owns p.MaxLists lists.
	CreateList(ctx context.Context, p CreateParams) (List, error)
	// GetList returns the list whose live slug is slug, whatever its status.
	GetList(ctx context.Context, slug string) (List, error)
	// ListLists returns one page of lists ordered by creation (oldest
	// first, then id) and the number of lists matching q.
	ListLists(ctx context.Context, q Query) (Page, error)
	// UpdateList changes name, status and/or slug of a list the caller
	// owns. A rename holds the previous slug for the owner until
	// p.Now+p.HoldFor. Errors: slug_conflict for a taken target slug.
	UpdateList(ctx context.Context, p UpdateParams) (List, error)
	// DeleteList removes a list the caller owns with its members; its
	// slug and the slugs its renames hold are free at once.
	DeleteList(ctx context.Context, project, slug string) error

	// Members returns the list and its members ordered by rank, from one
	// consistent read; limit <= 0 means all from offset.
	Members(ctx context.Context, slug string, offset, limit int) (List, []Member, error)
	// PutMember adds mint or updates it (note, snapshot, rank) and reports
	// whether it was added. Errors: list_full when adding beyond
	// p.MaxMembers.
	PutMember(ctx context.Context, p PutMemberParams) (Member, bool, error)
	// DeleteMember removes mint; the ranks after it close up. Errors:
	// storage.ErrNotFound when mint is not a member.
	DeleteMember(ctx context.Context, project, slug, mint string, now time.Time) error
	// AddMembers appends the new mints in order; mints already in the list
	// are reported Present and left alone; mints beyond p.MaxMembers fail
	// with list_full. A mint repeated in the call counts as Present.
	AddMembers(ctx context.Context, p AddMembersParams) (AddResult, error)
	// ListsContaining returns, per mint, the slugs (ascending) of the
	// lists with one of statuses (all statuses when empty) that contain it.
	// Mints in no such list are absent from the map.
	ListsContaining(ctx context.Context, mints []string, statuses []string) (map[string][]string, error)
}

// CreateParams is a list to insert. The Service fills it.
type CreateParams struct {
	ID       string
	Slug     string
	Name     string
	Status   string
	Owner    string // project id of the caller
	Now      time.Time
	MaxLists int // the owner's cap, counted inside the transaction; <= 0: none
}

// UpdateParams is a change to a list. Nil fields are left alone.
type UpdateParams struct {
	Project string // the caller's project; must own the list
	Slug    string // the list's current slug
	Name    *string
	NewSlug *string
	Status  *string
	Now     time.Time
	HoldFor time.Duration // how long a renamed-away slug stays held for the owner; <= 0: not held
}

// PutMemberParams adds or updates one member.
type PutMemberParams struct {
	Project string
	Slug    string
	Mint    string
	// Rank, when given, is the wanted position: a new member is inserted
	// there (clamped to n+1), an existing one moves there (clamped to n);
	// the others shift so ranks stay 1..n. Nil appends a new member and
	// leaves an existing one in place.
	Rank       *int
	Note       *string   // nil keeps the note (none for a new member); "" clears it
	Snapshot   *Snapshot // nil keeps the snapshot (empty for a new member)
	Now        time.Time // AddedAt of a new member; the list's UpdatedAt
	MaxMembers int       // <= 0: no cap
}

// NewMember is one mint of a bulk add with its metadata snapshot.
type NewMember struct {
	Mint     string
	Snapshot Snapshot
}

// AddMembersParams is a bulk add.
type AddMembersParams struct {
	Project    string
	Slug       string
	Members    []NewMember
	Now        time.Time
	MaxMembers int // <= 0: no cap
}

// AddResult reports a bulk add mint by mint, each list in input order.
type AddResult struct {
	Added   []Member  // appended, with their ranks
	Present []string  // already members, unchanged
	Failed  []Failure // not added
}

// Failure is one mint a bulk add did not add; Code is a rule code such as
// list_full (the HTTP layer adds invalid_mint and unknown_mint).
type Failure struct {
	Mint string
	Code string
}

// Query selects lists for ListLists.
type Query struct {
	Owner    string   // project id; "" for every owner
	Statuses []string // empty for every status
	Offset   int
	Limit    int // <= 0: no limit
}

// Page is one page of lists and the total matching the query.
type Page struct {
	Lists []List
	Total int
}
