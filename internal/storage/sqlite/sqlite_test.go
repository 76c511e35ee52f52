package sqlite_test

import (
	"context"
	"testing"

	"github.com/assetd/assetd/internal/storage/sqlite"
	"github.com/assetd/assetd/internal/storage/storetest"
)

func open(t *testing.T, dir string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{Fresh: func(t *testing.T) (storetest.Store, func() storetest.Store) {
		dir := t.TempDir()
		s := open(t, dir)
		if _, err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s, func() storetest.Store { return open(t, dir) }
	}})
}
