package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresSchema names a fresh PostgreSQL schema for one test and drops it
// (CASCADE) when the test ends. The drop is registered first, so it runs
// after every store the test opened on the schema has been closed.
func PostgresSchema(t testing.TB, url string) string {
	t.Helper()
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema := "assetd_test_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return schema
}
