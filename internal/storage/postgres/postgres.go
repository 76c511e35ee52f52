// Package postgres is the PostgreSQL storage engine, for deployments that
// run several replicas against one database. It uses pgx's native API and a
// pgxpool connection pool, and keeps exactly the semantics of the SQLite
// engine (checked by storetest): times as unix milliseconds, scope sets as
// comma-joined text, a change_versions row bumped in the same transaction
// as every key write.
//
// A store may be confined to one schema (OpenSchema): every pooled
// connection then starts with search_path set to it, so tables are created
// and found there. Tests use this to isolate themselves in one database.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/assetd/assetd/internal/storage"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationsFS embed.FS

// PostgreSQL error codes the engine reacts to.
const (
	codeUniqueViolation = "23505"
	codeDuplicateSchema = "42P06"
	codeDiskFull        = "53100"
)

// migrateLockClass is the first half of the two-part advisory lock key taken
// while migrating; the second half is hashtext(current schema), so stores on
// different schemas of one database migrate independently.
const migrateLockClass int32 = 0x61737364 // "assd"

// Store is the PostgreSQL engine. It is safe for concurrent use.
type Store struct {
	pool   *pgxpool.Pool
	schema string // "" when the connection string's search_path applies
	// onCommit, when set (OnCommit, before use), hears the change topics
	// of every committed write transaction.
	onCommit storage.CommitHook
	full     storage.FullWatch
}

// OnCommit has fn called after every committed transaction that bumped
// change topics, with those topics. Set it before the store is used.
func (s *Store) OnCommit(fn storage.CommitHook) { s.onCommit = fn }

// OnFull has fn called when writes start failing because the server's
// disk is full (disk_full), and when a write succeeds again
// (storage.FullWatch: once per change, not per failed write).
func (s *Store) OnFull(fn func(full bool, cause error)) { s.full.OnChange(fn) }

// isDiskFull reports whether err is PostgreSQL's disk_full.
func isDiskFull(err error) bool {
	pe, ok := errors.AsType[*pgconn.PgError](err)
	return ok && pe.Code == codeDiskFull
}

// Open connects to databaseURL (a postgres:// URL or key=value DSN; pool
// settings such as pool_max_conns may be given in it). It does not migrate;
// call Migrate.
func Open(ctx context.Context, databaseURL string) (*Store, error) {
	return OpenSchema(ctx, databaseURL, "")
}

// OpenSchema is Open confined to schema: the schema is created if missing
// and every pooled connection uses it as its search_path. An empty schema
// means the connection string's own search_path (normally "$user", public).
func OpenSchema(ctx context.Context, databaseURL, schema string) (*Store, error) {
	if len(schema) > 63 || strings.ContainsRune(schema, 0) {
		return nil, fmt.Errorf("postgres: invalid schema name %q (at most 63 bytes, no NUL)", schema)
	}
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// Not wrapped: pgx redacts the password from the quoted URL only
		// on a best-effort basis.
		return nil, errors.New("postgres: invalid database URL")
	}
	configure(cfg)
	quoted := ""
	if schema != "" {
		quoted = pgx.Identifier{schema}.Sanitize()
		cfg.ConnConfig.RuntimeParams["search_path"] = quoted
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	s := &Store{pool: pool, schema: schema}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if schema != "" {
		if err := s.createSchema(ctx, quoted); err != nil {
			pool.Close()
			return nil, fmt.Errorf("postgres: create schema %s: %w", quoted, err)
		}
	}
	return s, nil
}

// configure applies defaults for settings the connection string left
// unset. pgxpool's own defaults (MaxConns = max(4, NumCPU), MinConns = 0,
// one hour lifetime, 30 minutes idle, health check every minute) suit a
// service replica; spread reconnects so replicas do not cycle in step.
func configure(cfg *pgxpool.Config) {
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if cfg.MaxConnLifetimeJitter == 0 {
		cfg.MaxConnLifetimeJitter = cfg.MaxConnLifetime / 10
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "assetd"
	}
}

// createSchema creates the store's schema if missing. It looks first, so a
// role without CREATE on the database can use a schema made for it. Two
// stores creating the same new schema at once can race inside PostgreSQL's
// catalog even with IF NOT EXISTS; the loser's unique violation is success.
func (s *Store) createSchema(ctx context.Context, quoted string) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`,
		s.schema).Scan(&exists); err != nil || exists {
		return err
	}
	_, err := s.pool.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+quoted)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == codeUniqueViolation || pe.Code == codeDuplicateSchema) {
		return nil
	}
	return err
}

// Engine names the engine for logs and health.
func (s *Store) Engine() string { return "postgres" }

// Schema is the schema given to OpenSchema ("" for Open).
func (s *Store) Schema() string { return s.schema }

// Ping checks that the database answers, for readiness probes.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Close closes the pool, waiting for acquired connections to be released.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// Migrate applies pending migrations and returns how many it applied. It
// holds a session advisory lock (per schema) on one dedicated connection
// for the whole run, so replicas starting at once queue up and each step is
// applied exactly once; every step runs in its own transaction together
// with its schema_migrations row.
func (s *Store) Migrate(ctx context.Context) (applied int, err error) {
	migs, err := storage.ReadMigrations(migrationsFS, "migrations")
	if err != nil {
		return 0, fmt.Errorf("postgres: migrate: %w", err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Release()
	const lockKey = `$1::int4, hashtext(coalesce(current_schema(), current_setting('search_path')))`
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+lockKey+`)`, migrateLockClass); err != nil {
		return 0, fmt.Errorf("postgres: migrate: take lock: %w", err)
	}
	defer func() {
		// Unlock even when ctx is done; if that fails the session still
		// holds the lock, so close the connection rather than pool it.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, uerr := conn.Exec(uctx, `SELECT pg_advisory_unlock(`+lockKey+`)`, migrateLockClass); uerr != nil {
			_ = conn.Conn().Close(uctx)
			if err == nil {
				err = fmt.Errorf("postgres: migrate: release lock: %w", uerr)
			}
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return 0, fmt.Errorf("postgres: migrate: %w", err)
	}
	for _, m := range migs {
		ok, err := applyOne(ctx, conn, m)
		if err != nil {
			return applied, fmt.Errorf("postgres: migration %s: %w", m.Name, err)
		}
		if ok {
			applied++
		}
	}
	return applied, nil
}

func applyOne(ctx context.Context, conn *pgxpool.Conn, m storage.Migration) (ok bool, err error) {
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var done bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`,
			m.Version).Scan(&done); err != nil {
			return err
		}
		if done {
			return nil
		}
		// No arguments: pgx sends it over the simple protocol, which
		// accepts the several statements of a migration file.
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES ($1, $2, $3)`,
			m.Version, m.Name, time.Now().UnixMilli()); err != nil {
			return err
		}
		ok = true
		return nil
	})
	return ok && err == nil, err
}

// withTx runs fn in a transaction, committed if fn returns nil; the
// topics fn bumped go to the commit hook after the commit.
// A failure for want of space wraps storage.ErrFull (see OnFull).
func (s *Store) withTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return s.full.Observe(s.tx(ctx, fn), isDiskFull)
}

func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	if s.onCommit == nil {
		return pgx.BeginFunc(ctx, s.pool, fn)
	}
	var topics []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		ct := &changeTx{Tx: tx}
		err := fn(ct)
		topics = ct.topics
		return err
	})
	if err == nil && len(topics) > 0 {
		s.onCommit(topics)
	}
	return err
}

// changeTx is a transaction that records the change topics bumped in it.
type changeTx struct {
	pgx.Tx
	topics []string
}

// bump increments the change version of topic inside tx.
func bump(ctx context.Context, tx pgx.Tx, topic string) error {
	_, err := tx.Exec(ctx, `INSERT INTO change_versions(topic, version) VALUES ($1, 1)
		ON CONFLICT (topic) DO UPDATE SET version = change_versions.version + 1`, topic)
	if ct, ok := tx.(*changeTx); ok && err == nil {
		ct.topics = storage.AddTopic(ct.topics, topic)
	}
	return err
}

// Versions implements watch.VersionSource.
func (s *Store) Versions(ctx context.Context) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT topic, version FROM change_versions`)
	if err != nil {
		return nil, fmt.Errorf("postgres: versions: %w", err)
	}
	defer rows.Close()
	out, err := storage.ScanCounts(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: versions: %w", err)
	}
	return out, nil
}

// isUniqueViolation reports whether err is a PostgreSQL unique violation.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == codeUniqueViolation
}
