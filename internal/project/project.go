// Package project holds project membership: which users (identity-provider
// or local-session user ids) belong to a project, and with which role. The
// dashboard reads it to decide whose keys and lists a signed-in user sees.
package project

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Roles, most powerful first.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Roles lists every role.
var Roles = []string{RoleOwner, RoleAdmin, RoleMember}

// ValidRole reports whether r is a role.
func ValidRole(r string) bool { return r == RoleOwner || r == RoleAdmin || r == RoleMember }

// CanManage reports whether role may change keys (create, regenerate,
// revoke, scopes, limits): owners and admins.
func CanManage(role string) bool { return role == RoleOwner || role == RoleAdmin }

// Member is one user of a project.
type Member struct {
	ProjectID string
	Project   string // project name
	UserID    string
	Role      string
	AddedAt   time.Time
}

// Store persists memberships. Both engines implement it.
type Store interface {
	// PutProjectMember adds or re-roles userID in the project named
	// project, creating the project on first use, and returns the row.
	PutProjectMember(ctx context.Context, project, userID, role string, at time.Time) (Member, error)
	// ProjectMembers lists the members of the project named project,
	// by user id (storage.ErrNotFound for an unknown project).
	ProjectMembers(ctx context.Context, project string) ([]Member, error)
	// UserProjects lists the projects userID belongs to, by project name.
	UserProjects(ctx context.Context, userID string) ([]Member, error)
}

// ErrInput is wrapped by Check's errors.
var ErrInput = errors.New("invalid project member")

// Check validates the arguments of a membership write.
func Check(project, userID, role string) error {
	if p := strings.TrimSpace(project); p == "" || len(p) > 64 {
		return fmt.Errorf("%w: project name must be 1..64 characters", ErrInput)
	}
	if u := strings.TrimSpace(userID); u == "" || len(u) > 256 {
		return fmt.Errorf("%w: user id must be 1..256 characters", ErrInput)
	}
	if !ValidRole(role) {
		return fmt.Errorf("%w: role must be one of %s", ErrInput, strings.Join(Roles, ", "))
	}
	return nil
}
