// Package storage is the vocabulary the storage engines (sqlite, postgres)
// share with the packages that use them: the error contract of every store
// method, the change-topic names used by the cross-process change poller,
// the row types of the store's interfaces, the migration reader and the
// engines' domain-free row helpers. It imports no domain package, so any
// domain package may depend on it; the codecs of domain rows live in
// internal/storage/codec.
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
	TopicTokens     = "tokens"
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
