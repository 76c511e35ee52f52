package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/project"
	"github.com/assetd/assetd/internal/storage"
	"github.com/assetd/assetd/internal/tokenlist"
	"github.com/google/go-cmp/cmp"
)

func testProjectMembers(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	at := time.UnixMilli(1_700_000_000_000).UTC()
	if _, err := s.ProjectMembers(ctx, "nope"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("members of unknown project: err = %v, want ErrNotFound", err)
	}
	m, err := s.PutProjectMember(ctx, "acme", "user-1", project.RoleOwner, at)
	if err != nil {
		t.Fatal(err)
	}
	if m.ProjectID == "" || m.Project != "acme" || m.Role != project.RoleOwner || !m.AddedAt.Equal(at) {
		t.Fatalf("put = %+v", m)
	}
	// The project is the one keys use.
	k, err := s.CreateKey(ctx, "acme", newKey("key_proj", hash(42), "assets:read"))
	if err != nil {
		t.Fatal(err)
	}
	if k.ProjectID != m.ProjectID {
		t.Fatalf("key project %s, member project %s", k.ProjectID, m.ProjectID)
	}
	// Re-role keeps added_at.
	if _, err := s.PutProjectMember(ctx, "acme", "user-1", project.RoleAdmin, at.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutProjectMember(ctx, "acme", "user-2", project.RoleMember, at); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutProjectMember(ctx, "beta", "user-1", project.RoleMember, at); err != nil {
		t.Fatal(err)
	}
	got, err := s.ProjectMembers(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	want := []project.Member{
		{ProjectID: m.ProjectID, Project: "acme", UserID: "user-1", Role: project.RoleAdmin, AddedAt: at},
		{ProjectID: m.ProjectID, Project: "acme", UserID: "user-2", Role: project.RoleMember, AddedAt: at},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("members (-want +got):\n%s", d)
	}
	ups, err := s.UserProjects(ctx, "user-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(ups) != 2 || ups[0].Project != "acme" || ups[1].Project != "beta" || ups[1].Role != project.RoleMember {
		t.Fatalf("user projects = %+v", ups)
	}
	if ups, err := s.UserProjects(ctx, "nobody"); err != nil || len(ups) != 0 {
		t.Fatalf("user projects of nobody = %+v, %v", ups, err)
	}
}

func testExportState(t *testing.T, h Harness) {
	s, _ := h.Fresh(t)
	ctx := context.Background()
	at := time.UnixMilli(1_700_000_000_000).UTC()
	if _, err := s.ExportState(ctx, "list:x"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	st := tokenlist.State{Key: "list:x", Version: tokenlist.Initial, UpdatedAt: at,
		Tokens: []tokenlist.Token{{ChainID: 101, Address: "So11111111111111111111111111111111111111112", Symbol: "SOL", Name: "Wrapped SOL", Decimals: 9, Tags: []string{"verified"}}}}
	if err := s.SaveExportState(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveExportState(ctx, st, nil); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("second insert: err = %v, want ErrConflict", err)
	}
	got, err := s.ExportState(ctx, "list:x")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st, got); d != "" {
		t.Fatalf("state (-want +got):\n%s", d)
	}
	next := st
	next.Version = tokenlist.Version{Major: 1, Patch: 1}
	stale := tokenlist.Version{Major: 7}
	if err := s.SaveExportState(ctx, next, &stale); !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("stale update: err = %v, want ErrConflict", err)
	}
	if err := s.SaveExportState(ctx, next, &st.Version); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ExportState(ctx, "list:x"); got.Version != next.Version {
		t.Fatalf("version = %+v, want %+v", got.Version, next.Version)
	}
}
