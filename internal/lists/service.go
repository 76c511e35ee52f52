package lists

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/assetd/assetd/internal/metadata"
	"github.com/assetd/assetd/internal/storage"
)

// Service is the list operations the HTTP layer calls: it validates input,
// applies the limits and the clock, and leaves the atomic rules to the
// Store. Project arguments are the caller's project id (from its API key).
type Service struct {
	store  Store
	limits Limits
	now    func() time.Time
}

// New returns a Service over store. Zero limits take their defaults;
// negative ones are an error.
func New(store Store, limits Limits, now func() time.Time) (*Service, error) {
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, limits: limits.WithDefaults(), now: now}, nil
}

// Limits returns the limits in force.
func (s *Service) Limits() Limits { return s.limits }

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// CreateInput is the body of a create.
type CreateInput struct {
	Slug   string
	Name   string
	Status string // "" for DefaultCreateStatus
}

// Create makes a list owned by project.
func (s *Service) Create(ctx context.Context, project string, in CreateInput) (List, error) {
	if project == "" {
		return List{}, ErrForbidden
	}
	if err := CheckSlug(in.Slug); err != nil {
		return List{}, err
	}
	name, err := s.checkName(in.Name)
	if err != nil {
		return List{}, err
	}
	status := in.Status
	if status == "" {
		status = DefaultCreateStatus
	}
	if !slices.Contains(CreateStatuses, status) {
		return List{}, ruleErr(CodeInvalidStatus, "status must be one of %s", strings.Join(CreateStatuses, ", "))
	}
	return s.store.CreateList(ctx, CreateParams{
		ID: newID("lst_"), Slug: in.Slug, Name: name, Status: status, Owner: project,
		Now: s.clock(), MaxLists: s.limits.ListsPerProject,
	})
}

// Get returns the list whose live slug is slug, whatever its status; the
// caller decides visibility (List.Readable).
func (s *Service) Get(ctx context.Context, slug string) (List, error) {
	if err := lookupSlug(slug); err != nil {
		return List{}, err
	}
	return s.store.GetList(ctx, slug)
}

// Catalog returns one page of published lists, oldest first.
func (s *Service) Catalog(ctx context.Context, offset, limit int) (Page, error) {
	return s.store.ListLists(ctx, Query{Statuses: []string{StatusPublished}, Offset: max(offset, 0), Limit: limit})
}

// ProjectLists returns every list project owns, oldest first.
func (s *Service) ProjectLists(ctx context.Context, project string) ([]List, error) {
	if project == "" {
		return nil, nil
	}
	p, err := s.store.ListLists(ctx, Query{Owner: project})
	return p.Lists, err
}

// Patch is the body of an update; nil fields are left alone.
type Patch struct {
	Name   *string
	Slug   *string // rename
	Status *string
}

// Update changes a list project owns.
func (s *Service) Update(ctx context.Context, project, slug string, p Patch) (List, error) {
	if err := s.writable(project, slug); err != nil {
		return List{}, err
	}
	up := UpdateParams{Project: project, Slug: slug, Now: s.clock(), HoldFor: s.limits.SlugHold}
	if p.Name != nil {
		name, err := s.checkName(*p.Name)
		if err != nil {
			return List{}, err
		}
		up.Name = &name
	}
	if p.Status != nil {
		if !ValidStatus(*p.Status) {
			return List{}, ruleErr(CodeInvalidStatus, "status must be one of %s", strings.Join(Statuses, ", "))
		}
		up.Status = p.Status
	}
	if p.Slug != nil && *p.Slug != slug {
		if err := CheckSlug(*p.Slug); err != nil {
			return List{}, err
		}
		up.NewSlug = p.Slug
	}
	return s.store.UpdateList(ctx, up)
}

// Delete removes a list project owns, with its members, and frees its slug.
func (s *Service) Delete(ctx context.Context, project, slug string) error {
	if err := s.writable(project, slug); err != nil {
		return err
	}
	return s.store.DeleteList(ctx, project, slug)
}

// Members returns a list and one page of its members by rank.
func (s *Service) Members(ctx context.Context, slug string, offset, limit int) (List, []Member, error) {
	if err := lookupSlug(slug); err != nil {
		return List{}, nil, err
	}
	return s.store.Members(ctx, slug, max(offset, 0), limit)
}

// MemberInput is the body of a member put (the snapshot is the resolved
// metadata of the mint).
type MemberInput struct {
	Rank     *int    // nil appends a new member, keeps an existing one in place
	Note     *string // nil keeps; "" clears
	Snapshot *Snapshot
}

// PutMember adds mint to a list project owns, or updates it, and reports
// whether it was added.
func (s *Service) PutMember(ctx context.Context, project, slug, mint string, in MemberInput) (Member, bool, error) {
	if err := s.writable(project, slug); err != nil {
		return Member{}, false, err
	}
	if !validMint(mint) {
		return Member{}, false, ruleErr(CodeInvalidMint, "mint is not a token address")
	}
	if in.Rank != nil && *in.Rank < 1 {
		return Member{}, false, ruleErr(CodeInvalidRank, "rank must be 1 or more")
	}
	if in.Note != nil {
		if err := s.checkNote(*in.Note); err != nil {
			return Member{}, false, err
		}
	}
	var snap *Snapshot
	if in.Snapshot != nil {
		c := in.Snapshot.Clean() // hostile metadata never reaches the store
		snap = &c
	}
	return s.store.PutMember(ctx, PutMemberParams{
		Project: project, Slug: slug, Mint: mint, Rank: in.Rank, Note: in.Note, Snapshot: snap,
		Now: s.clock(), MaxMembers: s.limits.MembersPerList,
	})
}

// DeleteMember removes mint from a list project owns (storage.ErrNotFound
// when it is not a member).
func (s *Service) DeleteMember(ctx context.Context, project, slug, mint string) error {
	if err := s.writable(project, slug); err != nil {
		return err
	}
	if !validMint(mint) {
		return fmt.Errorf("member %q: %w", mint, storage.ErrNotFound)
	}
	return s.store.DeleteMember(ctx, project, slug, mint, s.clock())
}

// AddMembers appends resolved mints to a list project owns. Repeated
// mints count once (the first wins); more than Limits.BatchSize distinct
// mints fail the whole call with batch_too_large and apply nothing.
func (s *Service) AddMembers(ctx context.Context, project, slug string, members []NewMember) (AddResult, error) {
	if err := s.writable(project, slug); err != nil {
		return AddResult{}, err
	}
	var failed []Failure
	seen := make(map[string]bool, len(members))
	distinct := make([]NewMember, 0, len(members))
	for _, m := range members {
		if seen[m.Mint] {
			continue
		}
		seen[m.Mint] = true
		if !validMint(m.Mint) {
			failed = append(failed, Failure{Mint: m.Mint, Code: CodeInvalidMint})
			continue
		}
		m.Snapshot = m.Snapshot.Clean() // one hostile snapshot must not fail the batch
		distinct = append(distinct, m)
	}
	if len(distinct)+len(failed) > s.limits.BatchSize {
		return AddResult{}, ruleErr(CodeBatchTooLarge, "at most %d mints per call", s.limits.BatchSize)
	}
	res, err := s.store.AddMembers(ctx, AddMembersParams{
		Project: project, Slug: slug, Members: distinct, Now: s.clock(), MaxMembers: s.limits.MembersPerList,
	})
	if err != nil {
		return AddResult{}, err
	}
	res.Failed = append(failed, res.Failed...)
	return res, nil
}

// ListsContaining returns, per mint, the slugs of published lists that
// contain it (for inLists annotations).
func (s *Service) ListsContaining(ctx context.Context, mints []string) (map[string][]string, error) {
	return s.store.ListsContaining(ctx, mints, []string{StatusPublished})
}

// writable checks the caller and the slug before a write: no list can have
// a slug that breaks the rule or is reserved.
func (s *Service) writable(project, slug string) error {
	if project == "" {
		return ErrForbidden
	}
	return lookupSlug(slug)
}

func lookupSlug(slug string) error {
	if !ValidSlug(slug) || Reserved(slug) {
		return fmt.Errorf("list %q: %w", slug, storage.ErrNotFound)
	}
	return nil
}

func (s *Service) checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	n := utf8.RuneCountInString(name)
	// metadata.Unsafe: control, bidi (U+202E and the rest), zero-width and
	// noncharacters, the set the token metadata sanitizer removes.
	if n == 0 || n > s.limits.NameLen || !utf8.ValidString(name) || strings.IndexFunc(name, metadata.Unsafe) >= 0 {
		return "", ruleErr(CodeInvalidName, "name must be 1 to %d characters without control, bidi or invisible characters", s.limits.NameLen)
	}
	return name, nil
}

func (s *Service) checkNote(note string) error {
	if utf8.RuneCountInString(note) > s.limits.NoteLen || !utf8.ValidString(note) || strings.ContainsRune(note, 0) {
		return ruleErr(CodeInvalidNote, "note must be at most %d characters", s.limits.NoteLen)
	}
	return nil
}

// validMint is the domain's sanity check; the HTTP layer checks the
// base58 form before resolving the mint.
func validMint(m string) bool {
	return m != "" && len(m) <= 64 && strings.IndexFunc(m, func(r rune) bool {
		return r > unicode.MaxASCII || unicode.IsSpace(r) || unicode.IsControl(r)
	}) < 0
}

func newID(prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return prefix + hex.EncodeToString(b[:])
}
