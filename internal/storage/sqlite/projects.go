package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenlist"
)

// PutProjectMember implements project.Store.
func (s *Store) PutProjectMember(ctx context.Context, name, userID, role string, at time.Time) (project.Member, error) {
	m := project.Member{Project: name, UserID: userID, Role: role, AddedAt: at.UTC().Truncate(time.Millisecond)}
	err := s.withTx(ctx, func(tx *sql.Tx) error {
		id, err := ensureProject(ctx, tx, name, at)
		if err != nil {
			return err
		}
		m.ProjectID = id
		_, err = tx.ExecContext(ctx, `INSERT INTO project_members(project_id, user_id, role, added_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(project_id, user_id) DO UPDATE SET role = excluded.role`, id, userID, role, storage.Ms(m.AddedAt))
		if err != nil {
			return err
		}
		var added int64
		if err := tx.QueryRowContext(ctx, `SELECT added_at FROM project_members WHERE project_id = ? AND user_id = ?`, id, userID).Scan(&added); err != nil {
			return err
		}
		m.AddedAt = storage.FromMs(added)
		return nil
	})
	if err != nil {
		return project.Member{}, fmt.Errorf("sqlite: put project member: %w", err)
	}
	return m, nil
}

const memberSelect = `SELECT p.id, p.name, m.user_id, m.role, m.added_at FROM project_members m JOIN projects p ON p.id = m.project_id`

// ProjectMembers implements project.Store.
func (s *Store) ProjectMembers(ctx context.Context, name string) ([]project.Member, error) {
	var id string
	err := s.r.QueryRowContext(ctx, `SELECT id FROM projects WHERE name = ?`, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: project %q: %w", name, storage.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: project members: %w", err)
	}
	return s.members(ctx, memberSelect+` WHERE m.project_id = ? ORDER BY m.user_id`, id)
}

// UserProjects implements project.Store.
func (s *Store) UserProjects(ctx context.Context, userID string) ([]project.Member, error) {
	return s.members(ctx, memberSelect+` WHERE m.user_id = ? ORDER BY p.name`, userID)
}

func (s *Store) members(ctx context.Context, q string, arg string) ([]project.Member, error) {
	rows, err := s.r.QueryContext(ctx, q, arg)
	if err != nil {
		return nil, fmt.Errorf("sqlite: project members: %w", err)
	}
	defer rows.Close()
	out := []project.Member{}
	for rows.Next() {
		var m project.Member
		var added int64
		if err := rows.Scan(&m.ProjectID, &m.Project, &m.UserID, &m.Role, &added); err != nil {
			return nil, fmt.Errorf("sqlite: project members: %w", err)
		}
		m.AddedAt = storage.FromMs(added)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: project members: %w", err)
	}
	return out, nil
}

// ExportState implements tokenlist.Store.
func (s *Store) ExportState(ctx context.Context, key string) (tokenlist.State, error) {
	st := tokenlist.State{Key: key}
	var body string
	var updated int64
	err := s.r.QueryRowContext(ctx, `SELECT major, minor, patch, tokens, updated_at FROM token_list_exports WHERE list_key = ?`, key).
		Scan(&st.Version.Major, &st.Version.Minor, &st.Version.Patch, &body, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("sqlite: export state %s: %w", key, storage.ErrNotFound)
	}
	if err == nil {
		err = json.Unmarshal([]byte(body), &st.Tokens)
	}
	if err != nil {
		return st, fmt.Errorf("sqlite: export state %s: %w", key, err)
	}
	st.UpdatedAt = storage.FromMs(updated)
	return st, nil
}

// SaveExportState implements tokenlist.Store.
func (s *Store) SaveExportState(ctx context.Context, st tokenlist.State, prev *tokenlist.Version) error {
	body, err := json.Marshal(st.Tokens)
	if err != nil {
		return fmt.Errorf("sqlite: save export state %s: %w", st.Key, err)
	}
	var res sql.Result
	if prev == nil {
		res, err = s.w.ExecContext(ctx, `INSERT INTO token_list_exports(list_key, major, minor, patch, tokens, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(list_key) DO NOTHING`,
			st.Key, st.Version.Major, st.Version.Minor, st.Version.Patch, string(body), storage.Ms(st.UpdatedAt))
	} else {
		res, err = s.w.ExecContext(ctx, `UPDATE token_list_exports SET major = ?, minor = ?, patch = ?, tokens = ?, updated_at = ?
			WHERE list_key = ? AND major = ? AND minor = ? AND patch = ?`,
			st.Version.Major, st.Version.Minor, st.Version.Patch, string(body), storage.Ms(st.UpdatedAt),
			st.Key, prev.Major, prev.Minor, prev.Patch)
	}
	if err != nil {
		return fmt.Errorf("sqlite: save export state %s: %w", st.Key, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("sqlite: save export state %s: %w", st.Key, storage.ErrConflict)
	}
	return nil
}
