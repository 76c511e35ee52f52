// Package sqlite is the embedded storage engine: one SQLite file through
// the pure-Go modernc.org/sqlite driver, in WAL mode with a busy timeout,
// foreign keys on and a single writer connection (writes are serialised in
// process; other processes wait on the busy timeout).
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/assetd/assetd/internal/storage"

	"modernc.org/sqlite" // also registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrationsFS embed.FS

// FileName is the database file inside the data directory.
const FileName = "assetd.db"

// Store is the SQLite engine. It is safe for concurrent use.
type Store struct {
	w    *sql.DB // single writer connection, BEGIN IMMEDIATE
	r    *sql.DB // reader pool
	path string
	// onCommit, when set (OnCommit, before use), hears the change topics
	// of every committed write transaction.
	onCommit storage.CommitHook
	// bumped is the topics of the write transaction in progress (there
	// is one at a time: a single writer connection).
	mu     sync.Mutex
	bumped []string
	full   storage.FullWatch
}

// OnCommit has fn called after every committed transaction that bumped
// change topics, with those topics. Set it before the store is used.
func (s *Store) OnCommit(fn storage.CommitHook) { s.onCommit = fn }

// Open opens (creating if needed) the database in dataDir. It does not
// migrate; call Migrate.
func Open(ctx context.Context, dataDir string) (*Store, error) {
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: create data dir: %w", err)
	}
	p := filepath.Join(dataDir, FileName)
	// busy_timeout must come before journal_mode so that switching to WAL
	// waits instead of failing when another process holds the file.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	wq := url.Values{}
	for k, v := range q {
		wq[k] = v
	}
	wq.Set("_txlock", "immediate")
	w, err := sql.Open("sqlite", "file:"+p+"?"+wq.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", p, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r, err := sql.Open("sqlite", "file:"+p+"?"+q.Encode())
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", p, err)
	}
	r.SetMaxOpenConns(8)
	s := &Store{w: w, r: r, path: p}
	if err := w.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlite: %s: %w", p, err)
	}
	return s, nil
}

// Path is the database file path.
func (s *Store) Path() string { return s.path }

// Engine names the engine for logs and health.
func (s *Store) Engine() string { return "sqlite" }

// Close closes both pools.
func (s *Store) Close() error {
	return errors.Join(s.w.Close(), s.r.Close())
}

// Migrate applies pending migrations. Each runs in its own IMMEDIATE
// transaction that first re-reads the applied set, so several processes
// starting at once apply each step exactly once.
func (s *Store) Migrate(ctx context.Context) (applied int, err error) {
	migs, err := storage.ReadMigrations(migrationsFS, "migrations")
	if err != nil {
		return 0, err
	}
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`); err != nil {
		return 0, fmt.Errorf("sqlite: migrate: %w", err)
	}
	for _, m := range migs {
		ok, err := s.applyOne(ctx, m)
		if err != nil {
			return applied, fmt.Errorf("sqlite: migration %s: %w", m.Name, err)
		}
		if ok {
			applied++
		}
	}
	if err := s.compressRegistryBodies(ctx); err != nil {
		return applied, fmt.Errorf("sqlite: migrate: compress registry documents: %w", err)
	}
	return applied, nil
}

func (s *Store) applyOne(ctx context.Context, m storage.Migration) (bool, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
		m.Version, m.Name, time.Now().UnixMilli()); err != nil {
		return false, err
	}
	return true, tx.Commit()
}

// OnFull has fn called when writes start failing because the database
// or its disk is full, and when a write succeeds again (storage.FullWatch:
// once per change, not per failed write).
func (s *Store) OnFull(fn func(full bool, cause error)) { s.full.OnChange(fn) }

// sqliteFull is SQLite's result code for "database or disk is full".
const sqliteFull = 13

// isFull reports whether err means the database or its disk is full:
// SQLITE_FULL (extended codes included) or ENOSPC.
func isFull(err error) bool {
	if se, ok := errors.AsType[*sqlite.Error](err); ok && se.Code()&0xff == sqliteFull {
		return true
	}
	return errors.Is(err, syscall.ENOSPC)
}

// withTx runs fn in a write transaction. A failure for want of space
// wraps storage.ErrFull (see OnFull).
func (s *Store) withTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return s.full.Observe(s.tx(ctx, fn), isFull)
}

func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = fn(tx)
	// Taken while this transaction still holds the one writer connection:
	// after Commit the next transaction may already be bumping.
	topics := s.takeBumped()
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if len(topics) > 0 && s.onCommit != nil {
		s.onCommit(topics)
	}
	return nil
}

// takeBumped returns and clears the topics of the current transaction.
func (s *Store) takeBumped() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.bumped
	s.bumped = nil
	return t
}

// bump increments the change version of topic inside tx (the writer's
// transaction) and records it for the commit hook.
func (s *Store) bump(ctx context.Context, tx *sql.Tx, topic string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO change_versions(topic, version) VALUES (?, 1)
		ON CONFLICT(topic) DO UPDATE SET version = change_versions.version + 1`, topic)
	if err == nil {
		s.mu.Lock()
		s.bumped = storage.AddTopic(s.bumped, topic)
		s.mu.Unlock()
	}
	return err
}

// Versions implements watch.VersionSource.
func (s *Store) Versions(ctx context.Context) (map[string]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT topic, version FROM change_versions`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: versions: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: versions: %w", err)
	}
	return out, nil
}
