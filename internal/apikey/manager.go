package apikey

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Store is what key management needs from a storage engine. Methods return
// errors wrapping storage.ErrNotFound for unknown ids.
type Store interface {
	Lister
	// CreateKey inserts k under the project named project, creating the
	// project on first use, and returns k with ProjectID filled.
	CreateKey(ctx context.Context, project string, k Key) (Key, error)
	// GetKey returns one key by id.
	GetKey(ctx context.Context, id string) (Key, error)
	// RevokeKey marks a key revoked at the given time (idempotent).
	RevokeKey(ctx context.Context, id string, at time.Time) error
	// RotateKey revokes key old and inserts next (same project) in one
	// transaction.
	RotateKey(ctx context.Context, old string, next Key, at time.Time) error
	// SetKeyLimits replaces a key's limit overrides.
	SetKeyLimits(ctx context.Context, id string, l Limits) error
	// SetKeyScopes replaces a key's scopes.
	SetKeyScopes(ctx context.Context, id string, scopes []string) error
	// SetKeyName replaces a key's display name.
	SetKeyName(ctx context.Context, id, name string) error
}

// Manager creates, rotates and revokes keys.
type Manager struct {
	Store Store
	Now   func() time.Time
}

// ErrProjectName is returned for an empty or over-long project name.
var ErrProjectName = errors.New("project name must be 1..64 printable characters")

// ErrKeyName is returned for a key name over 64 characters or with
// control characters.
var ErrKeyName = errors.New("key name must be at most 64 printable characters")

// CleanName trims a key's display name and checks it (ErrKeyName); "" is
// allowed (no name).
func CleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > 64 || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", ErrKeyName
	}
	return name, nil
}

// Create makes a new key for project with scopes and returns its plaintext.
func (m Manager) Create(ctx context.Context, project string, scopes []string) (string, Key, error) {
	return m.CreateNamed(ctx, project, "", scopes)
}

// CreateNamed is Create with a display name for the key (CleanName).
func (m Manager) CreateNamed(ctx context.Context, project, name string, scopes []string) (string, Key, error) {
	project = strings.TrimSpace(project)
	if project == "" || len(project) > 64 || strings.ContainsAny(project, "\t\r\n") {
		return "", Key{}, ErrProjectName
	}
	name, err := CleanName(name)
	if err != nil {
		return "", Key{}, err
	}
	plain, hash, err := Generate()
	if err != nil {
		return "", Key{}, err
	}
	k := Key{ID: NewID("key_"), Name: name, Hash: hash, Scopes: scopes, CreatedAt: m.Now().UTC().Truncate(time.Millisecond)}
	k, err = m.Store.CreateKey(ctx, project, k)
	if err != nil {
		return "", Key{}, fmt.Errorf("create key: %w", err)
	}
	return plain, k, nil
}

// Regenerate revokes key id and issues a replacement with the same project,
// scopes and limits. The old plaintext stops working at once.
func (m Manager) Regenerate(ctx context.Context, id string) (string, Key, error) {
	old, err := m.Store.GetKey(ctx, id)
	if err != nil {
		return "", Key{}, fmt.Errorf("regenerate %s: %w", id, err)
	}
	if !old.Active() {
		return "", Key{}, fmt.Errorf("regenerate %s: key is revoked", id)
	}
	plain, hash, err := Generate()
	if err != nil {
		return "", Key{}, err
	}
	now := m.Now().UTC().Truncate(time.Millisecond)
	next := Key{ID: NewID("key_"), Name: old.Name, ProjectID: old.ProjectID, Project: old.Project, Hash: hash, Scopes: old.Scopes, Limits: old.Limits, CreatedAt: now}
	if err := m.Store.RotateKey(ctx, id, next, now); err != nil {
		return "", Key{}, fmt.Errorf("regenerate %s: %w", id, err)
	}
	return plain, next, nil
}

// Revoke revokes key id.
func (m Manager) Revoke(ctx context.Context, id string) error {
	if err := m.Store.RevokeKey(ctx, id, m.Now().UTC()); err != nil {
		return fmt.Errorf("revoke %s: %w", id, err)
	}
	return nil
}

// ErrNoScopes is returned when a key would be left without any scope.
var ErrNoScopes = errors.New("a key needs at least one scope")

// SetScopes replaces the scopes of active key id. Every scope must be known
// (AllScopes) and at least one is required; the key index picks the change
// up on its next reload, like a revocation.
func (m Manager) SetScopes(ctx context.Context, id string, scopes []string) (Key, error) {
	if len(scopes) == 0 {
		return Key{}, ErrNoScopes
	}
	clean := make([]string, 0, len(scopes))
	for _, s := range scopes {
		if !slices.Contains(AllScopes[:], s) {
			return Key{}, fmt.Errorf("unknown scope %q (allowed: %s)", s, strings.Join(AllScopes[:], ", "))
		}
		if !slices.Contains(clean, s) {
			clean = append(clean, s)
		}
	}
	k, err := m.Store.GetKey(ctx, id)
	if err != nil {
		return Key{}, fmt.Errorf("set scopes of %s: %w", id, err)
	}
	if !k.Active() {
		return Key{}, fmt.Errorf("set scopes of %s: key is revoked", id)
	}
	if err := m.Store.SetKeyScopes(ctx, id, clean); err != nil {
		return Key{}, fmt.Errorf("set scopes of %s: %w", id, err)
	}
	k.Scopes = clean
	return k, nil
}

// Rename sets the display name of key id (CleanName; "" removes it).
func (m Manager) Rename(ctx context.Context, id, name string) (Key, error) {
	name, err := CleanName(name)
	if err != nil {
		return Key{}, err
	}
	if err := m.Store.SetKeyName(ctx, id, name); err != nil {
		return Key{}, fmt.Errorf("rename %s: %w", id, err)
	}
	k, err := m.Store.GetKey(ctx, id)
	if err != nil {
		return Key{}, fmt.Errorf("rename %s: %w", id, err)
	}
	return k, nil
}
