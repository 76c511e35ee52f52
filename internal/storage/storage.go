// Package storage is the vocabulary the storage engines (sqlite, postgres)
// share with the packages that use them: the error contract of every store
// method, the change-topic names used by the cross-process change poller,
// the row types of the store's interfaces, the migration reader and the
// engines' domain-free row helpers. It imports no domain package, so any
// domain package may depend on it; the codecs of domain rows live in
// internal/storage/codec.
package storage

import (
	"errors"
	"fmt"
	"sync"
)

// Errors every store method may return (wrapped; test with errors.Is).
var (
	// ErrNotFound: the addressed row does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a uniqueness rule would be broken.
	ErrConflict = errors.New("conflict")
	// ErrFull: the store has no space left for a write (a full disk:
	// SQLite's SQLITE_FULL or ENOSPC, PostgreSQL's disk_full). Writes fail
	// until an operator frees space; reads go on.
	ErrFull = errors.New("store full: no space left for writes")
)

// FullWatch tracks whether a store's writes fail for want of space and
// reports each change of that state once, not each failed write: a full
// disk under load fails hundreds of writes a second. The zero value is
// ready (not full, nobody told).
type FullWatch struct {
	mu       sync.Mutex
	full     bool
	onChange func(full bool, cause error)
}

// OnChange has fn called when writes start failing for want of space
// (full, with the first such error) and when a write succeeds again (not
// full, nil). Calls come in the order of the changes, under the watch's
// lock: fn must be quick (a log line) and must not use the watch. Set it
// before the store is used.
func (w *FullWatch) OnChange(fn func(full bool, cause error)) {
	w.mu.Lock()
	w.onChange = fn
	w.mu.Unlock()
}

// Full reports whether the last write outcome seen was a full store.
func (w *FullWatch) Full() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.full
}

// Observe takes the outcome of one write transaction; isFull says whether
// an engine error means no space. It returns err, wrapped with ErrFull
// when isFull(err). A success ends the full state; other errors leave
// the state as it is.
func (w *FullWatch) Observe(err error, isFull func(error) bool) error {
	full := err != nil && isFull(err)
	if err != nil && !full {
		return err
	}
	w.mu.Lock()
	if w.full != full {
		w.full = full
		if w.onChange != nil {
			w.onChange(full, err)
		}
	}
	w.mu.Unlock()
	if full && !errors.Is(err, ErrFull) {
		return fmt.Errorf("%w: %w", ErrFull, err)
	}
	return err
}

// Change topics. A store bumps a topic's version in the same transaction as
// the write, so a poller on any process sees the change.
const (
	TopicKeys       = "keys"
	TopicRegistry   = "registry"
	TopicAdvisories = "advisories"
	TopicLists      = "lists"
	TopicTokens     = "tokens"
	// TopicMintFacts: the on-chain facts of mints (internal/onchain).
	TopicMintFacts = "mintfacts"
)

// RegistryDocument is one imported registry data set, stored as the
// normalised registry.Document JSON. Documents overlay the embedded seed in
// import order (Seq ascending).
type RegistryDocument struct {
	Seq        int64
	Source     string // a name for the data set; re-importing a source replaces it
	Format     string
	Body       []byte
	Hash       string // hex SHA-256 of Body
	ImportedAt int64  // unix ms
}

// CommitHook is called after a transaction that bumped change topics has
// committed, with those topics (each once, in bump order). It runs on the
// writer's goroutine and must not block: the change bus publishes the
// topics to other replicas (internal/natsbus).
type CommitHook func(topics []string)

// AddTopic appends topic to topics unless it is there already.
func AddTopic(topics []string, topic string) []string {
	for _, t := range topics {
		if t == topic {
			return topics
		}
	}
	return append(topics, topic)
}
