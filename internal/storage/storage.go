// Package storage holds what the storage engines (sqlite, postgres) share:
// the error contract of every store method and the change-topic names used
// by the cross-process change poller.
package storage

import "errors"

// Errors every store method may return (wrapped; test with errors.Is).
var (
	// ErrNotFound: the addressed row does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a uniqueness rule would be broken.
	ErrConflict = errors.New("conflict")
)

// Change topics. A store bumps a topic's version in the same transaction as
// the write, so a poller on any process sees the change.
const (
	TopicKeys       = "keys"
	TopicRegistry   = "registry"
	TopicAdvisories = "advisories"
	TopicLists      = "lists"
)
