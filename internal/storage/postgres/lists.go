package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
	"github.com/jackc/pgx/v5"
)

// Community lists. Writes to one list are serialised by SELECT ... FOR
// UPDATE on its token_lists row, which every member write takes first;
// creates take a transaction advisory lock per owning project, so the
// per-project cap counts committed rows only. Slug uniqueness is the primary
// key of token_list_slugs (live slugs and rename holds) and the unique slug
// column of token_lists: of concurrent creates of one slug the first insert
// wins and the others fail on the index once it commits. Every claim of a
// slug (create, rename onto it) first takes a transaction advisory lock on
// the slug, so claims of one slug queue instead of deadlocking, and list
// creates and updates rerun on a serialization failure or deadlock
// (withRetryTx): the loser fails with slug_conflict. Ranks are unique per
// list by index and shift through negative values.

const listColumns = `id, slug, owner_project_id, name, status, member_count, created_at, updated_at`

const memberColumns = `mint, rank, note, added_at, symbol, name, decimals, logo_uri, verified`

func scanList(sc interface{ Scan(...any) error }) (lists.List, error) {
	var l lists.List
	err := sc.Scan(&l.ID, &l.Slug, &l.Owner, &l.Name, &l.Status, &l.MemberCount, &l.CreatedAt, &l.UpdatedAt)
	return l, err
}

func scanMember(sc interface{ Scan(...any) error }) (lists.Member, error) {
	var m lists.Member
	err := sc.Scan(&m.Mint, &m.Rank, &m.Note, &m.AddedAt, &m.Snapshot.Symbol, &m.Snapshot.Name,
		&m.Snapshot.Decimals, &m.Snapshot.LogoURI, &m.Snapshot.Verified)
	return m, err
}

// slugTaken maps a unique violation on a slug to slug_conflict.
func slugTaken(err error, slug string) error {
	if isUniqueViolation(err) {
		return lists.SlugConflict(slug)
	}
	return err
}

// freeSlug releases the holds on slug that do not stand in owner's way:
// expired ones and owner's own (the owner reclaims its held slug).
func freeSlug(ctx context.Context, tx pgx.Tx, slug, owner string, now int64) error {
	_, err := tx.Exec(ctx, `DELETE FROM token_list_slugs
		WHERE slug = $1 AND held_until IS NOT NULL AND (held_until <= $2 OR owner_project_id = $3)`, slug, now, owner)
	return err
}

// lockList locks the list row for a write by project.
func lockList(ctx context.Context, tx pgx.Tx, slug, project string) (lists.List, error) {
	l, err := scanList(tx.QueryRow(ctx, `SELECT `+listColumns+` FROM token_lists WHERE slug = $1 FOR UPDATE`, slug))
	if errors.Is(err, pgx.ErrNoRows) {
		return l, storage.ErrNotFound
	}
	if err != nil {
		return l, err
	}
	if l.Owner != project {
		return l, lists.ErrForbidden
	}
	return l, nil
}

// CreateList implements lists.Store.
func (s *Store) CreateList(ctx context.Context, p lists.CreateParams) (lists.List, error) {
	now := storage.Ms(p.Now)
	l := lists.List{ID: p.ID, Slug: p.Slug, Name: p.Name, Status: p.Status, Owner: p.Owner, CreatedAt: now, UpdatedAt: now}
	err := s.withRetryTx(ctx, func(tx pgx.Tx) error {
		if p.MaxLists > 0 {
			// One create per project at a time, so the count is exact.
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('assetd.lists.project.' || $1))`, p.Owner); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM token_lists WHERE owner_project_id = $1`, p.Owner).Scan(&n); err != nil {
				return err
			}
			if n >= p.MaxLists {
				return lists.ProjectListsLimit(p.MaxLists)
			}
		}
		if err := lockSlug(ctx, tx, p.Slug); err != nil {
			return err
		}
		if err := freeSlug(ctx, tx, p.Slug, p.Owner, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO token_lists(`+listColumns+`) VALUES ($1, $2, $3, $4, $5, 0, $6, $7)`,
			l.ID, l.Slug, l.Owner, l.Name, l.Status, now, now); err != nil {
			return slugTaken(err, p.Slug)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO token_list_slugs(slug, list_id, owner_project_id) VALUES ($1, $2, $3)`,
			l.Slug, l.ID, l.Owner); err != nil {
			return slugTaken(err, p.Slug)
		}
		return bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.List{}, fmt.Errorf("postgres: create list %q: %w", p.Slug, err)
	}
	return l, nil
}

// GetList implements lists.Store.
func (s *Store) GetList(ctx context.Context, slug string) (lists.List, error) {
	l, err := scanList(s.pool.QueryRow(ctx, `SELECT `+listColumns+` FROM token_lists WHERE slug = $1`, slug))
	if errors.Is(err, pgx.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.List{}, fmt.Errorf("postgres: list %q: %w", slug, err)
	}
	return l, nil
}

// ListLists implements lists.Store.
func (s *Store) ListLists(ctx context.Context, q lists.Query) (lists.Page, error) {
	var where []string
	var args []any
	if q.Owner != "" {
		args = append(args, q.Owner)
		where = append(where, `owner_project_id = $`+strconv.Itoa(len(args)))
	}
	if len(q.Statuses) > 0 {
		args = append(args, q.Statuses)
		where = append(where, `status = ANY($`+strconv.Itoa(len(args))+`)`)
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	var limit *int // NULL: no limit
	if q.Limit > 0 {
		limit = &q.Limit
	}
	n := len(args)
	var page lists.Page
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM token_lists`+cond, args...).Scan(&page.Total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+listColumns+` FROM token_lists`+cond+` ORDER BY created_at, id LIMIT $`+
			strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), append(args, limit, max(q.Offset, 0))...)
		if err != nil {
			return err
		}
		page.Lists, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (lists.List, error) { return scanList(r) })
		if len(page.Lists) == 0 {
			page.Lists = nil // as the SQLite engine
		}
		return err
	})
	if err != nil {
		return lists.Page{}, fmt.Errorf("postgres: list lists: %w", err)
	}
	return page, nil
}

// UpdateList implements lists.Store.
func (s *Store) UpdateList(ctx context.Context, p lists.UpdateParams) (lists.List, error) {
	var l lists.List
	err := s.withRetryTx(ctx, func(tx pgx.Tx) error {
		var err error
		if l, err = lockList(ctx, tx, p.Slug, p.Project); err != nil {
			return err
		}
		now := storage.Ms(p.Now)
		changed := false
		if p.Name != nil && *p.Name != l.Name {
			l.Name, changed = *p.Name, true
		}
		if p.Status != nil && *p.Status != l.Status {
			l.Status, changed = *p.Status, true
		}
		if p.NewSlug != nil && *p.NewSlug != l.Slug {
			if err := renameSlug(ctx, tx, l, *p.NewSlug, now, p.HoldFor); err != nil {
				return err
			}
			l.Slug, changed = *p.NewSlug, true
		}
		if !changed {
			return nil
		}
		l.UpdatedAt = now
		if _, err := tx.Exec(ctx, `UPDATE token_lists SET slug = $1, name = $2, status = $3, updated_at = $4 WHERE id = $5`,
			l.Slug, l.Name, l.Status, l.UpdatedAt, l.ID); err != nil {
			return slugTaken(err, l.Slug)
		}
		return bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.List{}, fmt.Errorf("postgres: update list %q: %w", p.Slug, err)
	}
	return l, nil
}

// renameSlug moves l to slug next: the old slug becomes a hold for the
// owner until now+hold (or is freed when hold <= 0).
func renameSlug(ctx context.Context, tx pgx.Tx, l lists.List, next string, now int64, hold time.Duration) error {
	if err := lockSlug(ctx, tx, next); err != nil {
		return err
	}
	if err := freeSlug(ctx, tx, next, l.Owner, now); err != nil {
		return err
	}
	var err error
	if hold > 0 {
		_, err = tx.Exec(ctx, `UPDATE token_list_slugs SET held_until = $1 WHERE slug = $2`, now+hold.Milliseconds(), l.Slug)
	} else {
		_, err = tx.Exec(ctx, `DELETE FROM token_list_slugs WHERE slug = $1`, l.Slug)
	}
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO token_list_slugs(slug, list_id, owner_project_id) VALUES ($1, $2, $3)`, next, l.ID, l.Owner)
	return slugTaken(err, next)
}

// DeleteList implements lists.Store.
func (s *Store) DeleteList(ctx context.Context, project, slug string) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		l, err := lockList(ctx, tx, slug, project)
		if err != nil {
			return err
		}
		// Members, the live slug and the holds go by ON DELETE CASCADE.
		if _, err := tx.Exec(ctx, `DELETE FROM token_lists WHERE id = $1`, l.ID); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return fmt.Errorf("postgres: delete list %q: %w", slug, err)
	}
	return nil
}

// Members implements lists.Store.
func (s *Store) Members(ctx context.Context, slug string, offset, limit int) (lists.List, []lists.Member, error) {
	var l lists.List
	var out []lists.Member
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		var err error
		l, err = scanList(tx.QueryRow(ctx, `SELECT `+listColumns+` FROM token_lists WHERE slug = $1`, slug))
		if errors.Is(err, pgx.ErrNoRows) {
			return storage.ErrNotFound
		}
		if err != nil {
			return err
		}
		// Ranks are dense, so a page is a rank range.
		hi := l.MemberCount
		if limit > 0 {
			hi = min(hi, max(offset, 0)+limit)
		}
		rows, err := tx.Query(ctx, `SELECT `+memberColumns+` FROM token_list_members
			WHERE list_id = $1 AND rank > $2 AND rank <= $3 ORDER BY rank`, l.ID, max(offset, 0), hi)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (lists.Member, error) { return scanMember(r) })
		return err
	})
	if err != nil {
		return lists.List{}, nil, fmt.Errorf("postgres: members of %q: %w", slug, err)
	}
	if len(out) == 0 {
		out = nil
	}
	return l, out, nil
}

// PutMember implements lists.Store.
func (s *Store) PutMember(ctx context.Context, p lists.PutMemberParams) (lists.Member, bool, error) {
	var m lists.Member
	added := false
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		l, err := lockList(ctx, tx, p.Slug, p.Project)
		if err != nil {
			return err
		}
		now := storage.Ms(p.Now)
		n := l.MemberCount
		m, err = scanMember(tx.QueryRow(ctx, `SELECT `+memberColumns+` FROM token_list_members
			WHERE list_id = $1 AND mint = $2`, l.ID, p.Mint))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			if m, err = lists.PlanPut(nil, n, p, now); err != nil {
				return err
			}
			if m.Rank <= n {
				if err := shiftRanks(ctx, tx, l.ID, m.Rank, n, +1); err != nil {
					return err
				}
			}
			if err := insertMembers(ctx, tx, l.ID, []lists.Member{m}); err != nil {
				return err
			}
			n++
			added = true
		case err != nil:
			return err
		default:
			from := m.Rank
			m, _ = lists.PlanPut(&m, n, p, now) // an existing member never fails
			if err := moveMember(ctx, tx, l.ID, m.Mint, from, m.Rank); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE token_list_members SET note = $1, symbol = $2, name = $3, decimals = $4,
				logo_uri = $5, verified = $6 WHERE list_id = $7 AND mint = $8`, m.Note, m.Snapshot.Symbol, m.Snapshot.Name,
				m.Snapshot.Decimals, m.Snapshot.LogoURI, m.Snapshot.Verified, l.ID, m.Mint); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE token_lists SET member_count = $1, updated_at = $2 WHERE id = $3`, n, now, l.ID); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.Member{}, false, fmt.Errorf("postgres: put member %s of %q: %w", p.Mint, p.Slug, err)
	}
	return m, added, nil
}

// DeleteMember implements lists.Store.
func (s *Store) DeleteMember(ctx context.Context, project, slug, mint string, now time.Time) error {
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		l, err := lockList(ctx, tx, slug, project)
		if err != nil {
			return err
		}
		var rank int
		err = tx.QueryRow(ctx, `DELETE FROM token_list_members WHERE list_id = $1 AND mint = $2 RETURNING rank`, l.ID, mint).Scan(&rank)
		if errors.Is(err, pgx.ErrNoRows) {
			return storage.ErrNotFound
		}
		if err != nil {
			return err
		}
		if rank < l.MemberCount {
			if err := shiftRanks(ctx, tx, l.ID, rank+1, l.MemberCount, -1); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE token_lists SET member_count = member_count - 1, updated_at = $1 WHERE id = $2`,
			storage.Ms(now), l.ID); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return fmt.Errorf("postgres: delete member %s of %q: %w", mint, slug, err)
	}
	return nil
}

// AddMembers implements lists.Store.
func (s *Store) AddMembers(ctx context.Context, p lists.AddMembersParams) (lists.AddResult, error) {
	var res lists.AddResult
	err := s.withTx(ctx, func(tx pgx.Tx) error {
		res = lists.AddResult{}
		l, err := lockList(ctx, tx, p.Slug, p.Project)
		if err != nil {
			return err
		}
		mints := make([]string, len(p.Members))
		for i, m := range p.Members {
			mints[i] = m.Mint
		}
		rows, err := tx.Query(ctx, `SELECT mint FROM token_list_members WHERE list_id = $1 AND mint = ANY($2)`, l.ID, mints)
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		present := make(map[string]bool, len(found))
		for _, m := range found {
			present[m] = true
		}
		now := storage.Ms(p.Now)
		res.Added, res.Present, res.Failed = lists.PlanAdd(p.Members, present, l.MemberCount, p.MaxMembers, now)
		if len(res.Added) == 0 {
			return nil
		}
		if err := insertMembers(ctx, tx, l.ID, res.Added); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE token_lists SET member_count = $1, updated_at = $2 WHERE id = $3`,
			l.MemberCount+len(res.Added), now, l.ID); err != nil {
			return err
		}
		return bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.AddResult{}, fmt.Errorf("postgres: add %d members to %q: %w", len(p.Members), p.Slug, err)
	}
	return res, nil
}

// ListsContaining implements lists.Store.
func (s *Store) ListsContaining(ctx context.Context, mints []string, statuses []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(mints) == 0 {
		return out, nil
	}
	var st []string // nil: every status
	if len(statuses) > 0 {
		st = statuses
	}
	rows, err := s.pool.Query(ctx, `SELECT m.mint, l.slug FROM token_list_members m JOIN token_lists l ON l.id = m.list_id
		WHERE m.mint = ANY($1) AND ($2::text[] IS NULL OR l.status = ANY($2)) ORDER BY m.mint, l.slug`, mints, st)
	if err != nil {
		return nil, fmt.Errorf("postgres: lists containing: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var mint, slug string
		if err := rows.Scan(&mint, &slug); err != nil {
			return nil, fmt.Errorf("postgres: lists containing: %w", err)
		}
		out[mint] = append(out[mint], slug)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: lists containing: %w", err)
	}
	return out, nil
}

// insertMembers inserts ms into list id in one statement over arrays.
func insertMembers(ctx context.Context, tx pgx.Tx, id string, ms []lists.Member) error {
	n := len(ms)
	var (
		mints    = make([]string, n)
		ranks    = make([]int32, n)
		notes    = make([]string, n)
		added    = make([]int64, n)
		symbols  = make([]*string, n)
		names    = make([]*string, n)
		decimals = make([]*int32, n)
		logos    = make([]*string, n)
		verified = make([]bool, n)
	)
	for i, m := range ms {
		mints[i], ranks[i], notes[i], added[i] = m.Mint, int32(m.Rank), m.Note, m.AddedAt
		symbols[i], names[i], logos[i], verified[i] = m.Snapshot.Symbol, m.Snapshot.Name, m.Snapshot.LogoURI, m.Snapshot.Verified
		if d := m.Snapshot.Decimals; d != nil {
			v := int32(*d)
			decimals[i] = &v
		}
	}
	_, err := tx.Exec(ctx, `INSERT INTO token_list_members(list_id, `+memberColumns+`)
		SELECT $1, t.mint, t.rank, t.note, t.added_at, t.symbol, t.name, t.decimals, t.logo_uri, t.verified
		FROM unnest($2::text[], $3::int[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::int[], $9::text[], $10::bool[])
			AS t(mint, rank, note, added_at, symbol, name, decimals, logo_uri, verified)`,
		id, mints, ranks, notes, added, symbols, names, decimals, logos, verified)
	return err
}

// shiftRanks adds delta to the ranks from..to of list id. The unique rank
// index is checked row by row, so the ranks pass through negative values.
func shiftRanks(ctx context.Context, tx pgx.Tx, id string, from, to, delta int) error {
	if _, err := tx.Exec(ctx, `UPDATE token_list_members SET rank = -(rank + $1)
		WHERE list_id = $2 AND rank >= $3 AND rank <= $4`, delta, id, from, to); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE token_list_members SET rank = -rank WHERE list_id = $1 AND rank < 0`, id)
	return err
}

// moveMember moves mint from rank from to rank to, shifting the members in
// between by one.
func moveMember(ctx context.Context, tx pgx.Tx, id, mint string, from, to int) error {
	if from == to {
		return nil
	}
	// Park the member at 0, which no other member uses.
	if _, err := tx.Exec(ctx, `UPDATE token_list_members SET rank = 0 WHERE list_id = $1 AND mint = $2`, id, mint); err != nil {
		return err
	}
	var err error
	if to < from {
		err = shiftRanks(ctx, tx, id, to, from-1, +1)
	} else {
		err = shiftRanks(ctx, tx, id, from+1, to, -1)
	}
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `UPDATE token_list_members SET rank = $1 WHERE list_id = $2 AND mint = $3`, to, id, mint)
	return err
}

// readTx runs fn in a read-only REPEATABLE READ transaction, so its
// queries see one snapshot.
func (s *Store) readTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
}
