package sqlite_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/apikey"
)

// TestExecutionScopeMigration: keys that existed before the
// execution_scope migration get execution:read when it runs, once; keys
// that already hold it are left alone.
func TestExecutionScopeMigration(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir)
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for id, scopes := range map[string][]string{
		"key_old":  {apikey.ScopeAssetsRead},
		"key_two":  {apikey.ScopeAssetsRead, apikey.ScopeRiskRead},
		"key_done": {apikey.ScopeExecutionRead, apikey.ScopeAssetsRead},
	} {
		k := apikey.Key{ID: id, Hash: apikey.Hash(id), Scopes: scopes, CreatedAt: time.Unix(0, 0)}
		if _, err := s.CreateKey(ctx, "p", k); err != nil {
			t.Fatal(err)
		}
	}
	// Pretend the keys predate the migration: forget it, then migrate.
	db, err := sql.Open("sqlite", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.ExecContext(ctx, `DELETE FROM schema_migrations WHERE name LIKE '%execution_scope%'`)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("forget migration: %v (%d rows)", err, n)
	}
	if n, err := s.Migrate(ctx); err != nil || n != 1 {
		t.Fatalf("re-migrate: %d, %v", n, err)
	}
	keys, err := s.ListKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"key_old":  {apikey.ScopeAssetsRead, apikey.ScopeExecutionRead},
		"key_two":  {apikey.ScopeAssetsRead, apikey.ScopeRiskRead, apikey.ScopeExecutionRead},
		"key_done": {apikey.ScopeExecutionRead, apikey.ScopeAssetsRead},
	}
	for _, k := range keys {
		if !slices.Equal(k.Scopes, want[k.ID]) {
			t.Errorf("%s: scopes %v, want %v", k.ID, k.Scopes, want[k.ID])
		}
	}
}
