package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/lists"
	"github.com/assetd/assetd/internal/storage"
)

// Community lists. Every write runs in one IMMEDIATE transaction on the
// single writer connection, so writes to a list are serialised; slug
// uniqueness is the primary key of token_list_slugs (live slugs and rename
// holds) and the unique slug column of token_lists; ranks are unique per
// list by index and shift through negative values.

const listColumns = `id, slug, owner_project_id, name, status, member_count, created_at, updated_at`

const memberColumns = `mint, rank, note, added_at, symbol, name, decimals, logo_uri, verified`

// insertChunk is the number of member rows per INSERT (10 parameters each,
// well below SQLite's variable limit).
const insertChunk = 400

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

func isUnique(err error) bool { return err != nil && strings.Contains(err.Error(), "UNIQUE") }

// slugTaken maps a unique violation on a slug to slug_conflict.
func slugTaken(err error, slug string) error {
	if isUnique(err) {
		return lists.SlugConflict(slug)
	}
	return err
}

// freeSlug releases the holds on slug that do not stand in owner's way:
// expired ones and owner's own (the owner reclaims its held slug).
func freeSlug(ctx context.Context, tx *sql.Tx, slug, owner string, now int64) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM token_list_slugs
		WHERE slug = ? AND held_until IS NOT NULL AND (held_until <= ? OR owner_project_id = ?)`, slug, now, owner)
	return err
}

// lockList reads the list for a write by project. The transaction holds
// the database's write lock already.
func lockList(ctx context.Context, tx *sql.Tx, slug, project string) (lists.List, error) {
	l, err := scanList(tx.QueryRowContext(ctx, `SELECT `+listColumns+` FROM token_lists WHERE slug = ?`, slug))
	if errors.Is(err, sql.ErrNoRows) {
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
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		if p.MaxLists > 0 {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM token_lists WHERE owner_project_id = ?`, p.Owner).Scan(&n); err != nil {
				return err
			}
			if n >= p.MaxLists {
				return lists.ProjectListsLimit(p.MaxLists)
			}
		}
		if err := freeSlug(ctx, tx, p.Slug, p.Owner, now); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO token_lists(`+listColumns+`) VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
			l.ID, l.Slug, l.Owner, l.Name, l.Status, now, now); err != nil {
			return slugTaken(err, p.Slug)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO token_list_slugs(slug, list_id, owner_project_id) VALUES (?, ?, ?)`,
			l.Slug, l.ID, l.Owner); err != nil {
			return slugTaken(err, p.Slug)
		}
		return s.bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.List{}, fmt.Errorf("sqlite: create list %q: %w", p.Slug, err)
	}
	return l, nil
}

// GetList implements lists.Store.
func (s *Store) GetList(ctx context.Context, slug string) (lists.List, error) {
	l, err := scanList(s.r.QueryRowContext(ctx, `SELECT `+listColumns+` FROM token_lists WHERE slug = ?`, slug))
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrNotFound
	}
	if err != nil {
		return lists.List{}, fmt.Errorf("sqlite: list %q: %w", slug, err)
	}
	return l, nil
}

// ListLists implements lists.Store.
func (s *Store) ListLists(ctx context.Context, q lists.Query) (lists.Page, error) {
	var where []string
	var args []any
	if q.Owner != "" {
		where = append(where, `owner_project_id = ?`)
		args = append(args, q.Owner)
	}
	if len(q.Statuses) > 0 {
		where = append(where, `status IN (`+placeholders(len(q.Statuses))+`)`)
		for _, st := range q.Statuses {
			args = append(args, st)
		}
	}
	cond := ""
	if len(where) > 0 {
		cond = ` WHERE ` + strings.Join(where, ` AND `)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	var page lists.Page
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM token_lists`+cond, args...).Scan(&page.Total); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+listColumns+` FROM token_lists`+cond+
			` ORDER BY created_at, id LIMIT ? OFFSET ?`, append(args, limit, max(q.Offset, 0))...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			l, err := scanList(rows)
			if err != nil {
				return err
			}
			page.Lists = append(page.Lists, l)
		}
		return rows.Err()
	})
	if err != nil {
		return lists.Page{}, fmt.Errorf("sqlite: list lists: %w", err)
	}
	return page, nil
}

// UpdateList implements lists.Store.
func (s *Store) UpdateList(ctx context.Context, p lists.UpdateParams) (lists.List, error) {
	var l lists.List
	err := s.withTx(ctx, func(tx *sql.Tx) error {
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
			if err := s.renameSlug(ctx, tx, l, *p.NewSlug, now, p.HoldFor); err != nil {
				return err
			}
			l.Slug, changed = *p.NewSlug, true
		}
		if !changed {
			return nil
		}
		l.UpdatedAt = now
		if _, err := tx.ExecContext(ctx, `UPDATE token_lists SET slug = ?, name = ?, status = ?, updated_at = ? WHERE id = ?`,
			l.Slug, l.Name, l.Status, l.UpdatedAt, l.ID); err != nil {
			return slugTaken(err, l.Slug)
		}
		return s.bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.List{}, fmt.Errorf("sqlite: update list %q: %w", p.Slug, err)
	}
	return l, nil
}

// renameSlug moves l to slug next: the old slug becomes a hold for the
// owner until now+hold (or is freed when hold <= 0).
func (s *Store) renameSlug(ctx context.Context, tx *sql.Tx, l lists.List, next string, now int64, hold time.Duration) error {
	if err := freeSlug(ctx, tx, next, l.Owner, now); err != nil {
		return err
	}
	var err error
	if hold > 0 {
		_, err = tx.ExecContext(ctx, `UPDATE token_list_slugs SET held_until = ? WHERE slug = ?`, now+hold.Milliseconds(), l.Slug)
	} else {
		_, err = tx.ExecContext(ctx, `DELETE FROM token_list_slugs WHERE slug = ?`, l.Slug)
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO token_list_slugs(slug, list_id, owner_project_id) VALUES (?, ?, ?)`, next, l.ID, l.Owner)
	return slugTaken(err, next)
}

// DeleteList implements lists.Store.
func (s *Store) DeleteList(ctx context.Context, project, slug string) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		l, err := lockList(ctx, tx, slug, project)
		if err != nil {
			return err
		}
		// Members, the live slug and the holds go by ON DELETE CASCADE.
		if _, err := tx.ExecContext(ctx, `DELETE FROM token_lists WHERE id = ?`, l.ID); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete list %q: %w", slug, err)
	}
	return nil
}

// Members implements lists.Store.
func (s *Store) Members(ctx context.Context, slug string, offset, limit int) (lists.List, []lists.Member, error) {
	var l lists.List
	var out []lists.Member
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		var err error
		l, err = scanList(tx.QueryRowContext(ctx, `SELECT `+listColumns+` FROM token_lists WHERE slug = ?`, slug))
		if errors.Is(err, sql.ErrNoRows) {
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
		rows, err := tx.QueryContext(ctx, `SELECT `+memberColumns+` FROM token_list_members
			WHERE list_id = ? AND rank > ? AND rank <= ? ORDER BY rank`, l.ID, max(offset, 0), hi)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			m, err := scanMember(rows)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return lists.List{}, nil, fmt.Errorf("sqlite: members of %q: %w", slug, err)
	}
	return l, out, nil
}

// PutMember implements lists.Store.
func (s *Store) PutMember(ctx context.Context, p lists.PutMemberParams) (lists.Member, bool, error) {
	var m lists.Member
	added := false
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		l, err := lockList(ctx, tx, p.Slug, p.Project)
		if err != nil {
			return err
		}
		now := storage.Ms(p.Now)
		n := l.MemberCount
		m, err = scanMember(tx.QueryRowContext(ctx, `SELECT `+memberColumns+` FROM token_list_members
			WHERE list_id = ? AND mint = ?`, l.ID, p.Mint))
		switch {
		case errors.Is(err, sql.ErrNoRows):
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
			if _, err := tx.ExecContext(ctx, `UPDATE token_list_members SET note = ?, symbol = ?, name = ?, decimals = ?,
				logo_uri = ?, verified = ? WHERE list_id = ? AND mint = ?`, m.Note, m.Snapshot.Symbol, m.Snapshot.Name,
				m.Snapshot.Decimals, m.Snapshot.LogoURI, m.Snapshot.Verified, l.ID, m.Mint); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE token_lists SET member_count = ?, updated_at = ? WHERE id = ?`, n, now, l.ID); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.Member{}, false, fmt.Errorf("sqlite: put member %s of %q: %w", p.Mint, p.Slug, err)
	}
	return m, added, nil
}

// DeleteMember implements lists.Store.
func (s *Store) DeleteMember(ctx context.Context, project, slug, mint string, now time.Time) error {
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		l, err := lockList(ctx, tx, slug, project)
		if err != nil {
			return err
		}
		var rank int
		err = tx.QueryRowContext(ctx, `DELETE FROM token_list_members WHERE list_id = ? AND mint = ? RETURNING rank`, l.ID, mint).Scan(&rank)
		if errors.Is(err, sql.ErrNoRows) {
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
		if _, err := tx.ExecContext(ctx, `UPDATE token_lists SET member_count = member_count - 1, updated_at = ? WHERE id = ?`,
			storage.Ms(now), l.ID); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete member %s of %q: %w", mint, slug, err)
	}
	return nil
}

// AddMembers implements lists.Store.
func (s *Store) AddMembers(ctx context.Context, p lists.AddMembersParams) (lists.AddResult, error) {
	var res lists.AddResult
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		res = lists.AddResult{}
		l, err := lockList(ctx, tx, p.Slug, p.Project)
		if err != nil {
			return err
		}
		present, err := existingMints(ctx, tx, l.ID, p.Members)
		if err != nil {
			return err
		}
		now := storage.Ms(p.Now)
		res.Added, res.Present, res.Failed = lists.PlanAdd(p.Members, present, l.MemberCount, p.MaxMembers, now)
		if len(res.Added) == 0 {
			return nil
		}
		if err := insertMembers(ctx, tx, l.ID, res.Added); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE token_lists SET member_count = ?, updated_at = ? WHERE id = ?`,
			l.MemberCount+len(res.Added), now, l.ID); err != nil {
			return err
		}
		return s.bump(ctx, tx, storage.TopicLists)
	})
	if err != nil {
		return lists.AddResult{}, fmt.Errorf("sqlite: add %d members to %q: %w", len(p.Members), p.Slug, err)
	}
	return res, nil
}

// ListsContaining implements lists.Store.
func (s *Store) ListsContaining(ctx context.Context, mints []string, statuses []string) (map[string][]string, error) {
	out := map[string][]string{}
	for start := 0; start < len(mints); start += insertChunk {
		chunk := mints[start:min(start+insertChunk, len(mints))]
		q := `SELECT m.mint, l.slug FROM token_list_members m JOIN token_lists l ON l.id = m.list_id
			WHERE m.mint IN (` + placeholders(len(chunk)) + `)`
		args := make([]any, 0, len(chunk)+len(statuses))
		for _, m := range chunk {
			args = append(args, m)
		}
		if len(statuses) > 0 {
			q += ` AND l.status IN (` + placeholders(len(statuses)) + `)`
			for _, st := range statuses {
				args = append(args, st)
			}
		}
		rows, err := s.r.QueryContext(ctx, q+` ORDER BY m.mint, l.slug`, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: lists containing: %w", err)
		}
		for rows.Next() {
			var mint, slug string
			if err := rows.Scan(&mint, &slug); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: lists containing: %w", err)
			}
			out[mint] = append(out[mint], slug)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("sqlite: lists containing: %w", err)
		}
	}
	return out, nil
}

// existingMints returns which of ms are members of list id already.
func existingMints(ctx context.Context, tx *sql.Tx, id string, ms []lists.NewMember) (map[string]bool, error) {
	present := map[string]bool{}
	for start := 0; start < len(ms); start += insertChunk {
		chunk := ms[start:min(start+insertChunk, len(ms))]
		args := make([]any, 0, len(chunk)+1)
		args = append(args, id)
		for _, m := range chunk {
			args = append(args, m.Mint)
		}
		rows, err := tx.QueryContext(ctx, `SELECT mint FROM token_list_members WHERE list_id = ? AND mint IN (`+
			placeholders(len(chunk))+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var m string
			if err := rows.Scan(&m); err != nil {
				rows.Close()
				return nil, err
			}
			present[m] = true
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
	}
	return present, nil
}

// insertMembers inserts ms into list id, insertChunk rows per statement.
func insertMembers(ctx context.Context, tx *sql.Tx, id string, ms []lists.Member) error {
	for start := 0; start < len(ms); start += insertChunk {
		chunk := ms[start:min(start+insertChunk, len(ms))]
		var b strings.Builder
		b.WriteString(`INSERT INTO token_list_members(list_id, ` + memberColumns + `) VALUES `)
		args := make([]any, 0, len(chunk)*10)
		for i, m := range chunk {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
			args = append(args, id, m.Mint, m.Rank, m.Note, m.AddedAt, m.Snapshot.Symbol, m.Snapshot.Name,
				m.Snapshot.Decimals, m.Snapshot.LogoURI, m.Snapshot.Verified)
		}
		if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
			return err
		}
	}
	return nil
}

// shiftRanks adds delta to the ranks from..to of list id. The unique rank
// index is checked row by row, so the ranks pass through negative values.
func shiftRanks(ctx context.Context, tx *sql.Tx, id string, from, to, delta int) error {
	if _, err := tx.ExecContext(ctx, `UPDATE token_list_members SET rank = -(rank + ?)
		WHERE list_id = ? AND rank >= ? AND rank <= ?`, delta, id, from, to); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `UPDATE token_list_members SET rank = -rank WHERE list_id = ? AND rank < 0`, id)
	return err
}

// moveMember moves mint from rank from to rank to, shifting the members in
// between by one.
func moveMember(ctx context.Context, tx *sql.Tx, id, mint string, from, to int) error {
	if from == to {
		return nil
	}
	// Park the member at 0, which no other member uses.
	if _, err := tx.ExecContext(ctx, `UPDATE token_list_members SET rank = 0 WHERE list_id = ? AND mint = ?`, id, mint); err != nil {
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
	_, err = tx.ExecContext(ctx, `UPDATE token_list_members SET rank = ? WHERE list_id = ? AND mint = ?`, to, id, mint)
	return err
}

// readTx runs fn in a read transaction on the reader pool, so its queries
// see one snapshot.
func (s *Store) readTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

func placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}
