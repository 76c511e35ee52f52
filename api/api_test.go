package api

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestContractValidates(t *testing.T) {
	c := New()
	doc, err := c.Doc()
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	js, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	// The JSON rendering is itself a valid document describing the same paths.
	doc2, js2, err := Load(js)
	if err != nil {
		t.Fatalf("the served JSON does not load back: %v", err)
	}
	if !bytes.Equal(js, js2) {
		t.Error("the JSON rendering is not stable across a round trip")
	}
	if got, want := doc2.Paths.Len(), doc.Paths.Len(); got != want {
		t.Errorf("paths after round trip = %d, want %d", got, want)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil || m["openapi"] != "3.1.0" {
		t.Errorf("JSON openapi field = %v (%v)", m["openapi"], err)
	}
}
