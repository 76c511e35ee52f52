package registry_test

import (
	"encoding/json"
	"testing"

	"github.com/assetd/assetd/internal/registry"
	"github.com/assetd/assetd/internal/registry/registrytest"
)

// BenchmarkLoad150k parses and builds a 150,000-asset registry document
// over the seed, as a server's start-up does with a stored import (issue
// 17).
func BenchmarkLoad150k(b *testing.B) {
	data, err := json.Marshal(registrytest.Document(150_000))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		seed, err := registry.Seed()
		if err != nil {
			b.Fatal(err)
		}
		doc, err := registry.ParseDocumentBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := registry.BuildParsed(seed, doc); err != nil {
			b.Fatal(err)
		}
	}
}
