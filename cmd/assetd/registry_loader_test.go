package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/assetd/assetd/internal/storage"
)

// loaderStore is a registry store with a change version and call counts.
type loaderStore struct {
	docs        []storage.RegistryDocument
	version     int64
	versionsErr error
	lists       int
}

func (s *loaderStore) PutRegistryDocument(context.Context, storage.RegistryDocument) (bool, error) {
	return false, errors.New("not used")
}
func (s *loaderStore) DeleteRegistryDocument(context.Context, string) error {
	return errors.New("not used")
}
func (s *loaderStore) ListRegistryDocuments(context.Context) ([]storage.RegistryDocument, error) {
	s.lists++
	out := make([]storage.RegistryDocument, len(s.docs))
	copy(out, s.docs) // the loader may clear bodies it decoded
	return out, nil
}
func (s *loaderStore) Versions(context.Context) (map[string]int64, error) {
	if s.versionsErr != nil {
		return nil, s.versionsErr
	}
	return map[string]int64{storage.TopicRegistry: s.version, storage.TopicKeys: 99}, nil
}

// loaderDoc is a stored one-asset registry document.
func loaderDoc(name string) storage.RegistryDocument {
	body := fmt.Sprintf(`{"assets":[{"assetId":"syn-000001","name":%q,"symbol":"SYN000001","category":"crypto",`+
		`"variants":[{"variantId":"syn-000001:native","mint":"113er4GLruBrK7XoerB2YLe3SkaLc9KbFdGPrkFpump","kind":"native"}]}]}`, name)
	return storage.RegistryDocument{Source: "synthetic", Format: "registry", Body: []byte(body)}
}

func TestRegistryLoaderSkipsUnchanged(t *testing.T) {
	type step struct {
		name        string
		change      func(s *loaderStore)
		wantErr     error // errRegistryUnchanged, or nil for a new snapshot
		wantName    string
		wantListing bool // the documents were read
	}
	bump := func(s *loaderStore) { s.version++ }
	tests := []struct {
		name      string
		versioned bool
		steps     []step
	}{
		{"versioned", true, []step{
			{"first load", nil, nil, "Synthetic asset 1", true},
			{"same version: documents not read", nil, errRegistryUnchanged, "", false},
			{"bumped, same documents", bump, errRegistryUnchanged, "", true},
			{"same version again", nil, errRegistryUnchanged, "", false},
			{"bumped, new document", func(s *loaderStore) {
				s.version++
				s.docs = []storage.RegistryDocument{loaderDoc("Synthetic asset one")}
			},
				nil, "Synthetic asset one", true},
			{"versions fail: documents read", func(s *loaderStore) { s.versionsErr = errors.New("down") }, errRegistryUnchanged, "", true},
			{"versions back, same version: read once more", func(s *loaderStore) { s.versionsErr = nil }, errRegistryUnchanged, "", true},
			{"then skipped", nil, errRegistryUnchanged, "", false},
		}},
		{"without versions", false, []step{
			{"first load", nil, nil, "Synthetic asset 1", true},
			{"same documents", nil, errRegistryUnchanged, "", true},
			{"new document", func(s *loaderStore) { s.docs = []storage.RegistryDocument{loaderDoc("Synthetic asset one")} },
				nil, "Synthetic asset one", true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &loaderStore{docs: []storage.RegistryDocument{loaderDoc("Synthetic asset 1")}, version: 3}
			l := &registryLoader{st: st}
			if tt.versioned {
				l.versions = st
			}
			for _, s := range tt.steps {
				if s.change != nil {
					s.change(st)
				}
				before := st.lists
				snap, _, err := l.load(context.Background())
				if !errors.Is(err, s.wantErr) || (err == nil) != (s.wantErr == nil) {
					t.Fatalf("%s: err %v, want %v", s.name, err, s.wantErr)
				}
				if read := st.lists > before; read != s.wantListing {
					t.Errorf("%s: documents read %v, want %v", s.name, read, s.wantListing)
				}
				if s.wantName != "" {
					a, ok := snap.Asset("syn-000001")
					if !ok || a.Name != s.wantName {
						t.Fatalf("%s: asset %+v, want name %q", s.name, a, s.wantName)
					}
				}
				if st.docs[0].Body == nil {
					t.Fatalf("%s: the store's document was changed", s.name)
				}
			}
		})
	}
}
