package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ParseDocument reads a registry document in our own format (the seed
// format, docs/registry.md) and validates it. Unknown fields are rejected so
// that typos do not silently drop data.
func ParseDocument(r io.Reader) (Document, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Document{}, fmt.Errorf("registry: read document: %w", err)
	}
	return parseDocument(data)
}

// ParseDocumentBytes is ParseDocument of a document already in memory
// (no copy of it is made). The Document's strings do not share data's
// memory.
func ParseDocumentBytes(data []byte) (Document, error) { return parseDocument(data) }

func parseDocument(data []byte) (Document, error) {
	doc, ok := fastDecode(data)
	if !ok {
		doc = Document{}
		if err := decodeStrict(data, &doc); err != nil {
			return Document{}, fmt.Errorf("registry: decode document: %w", err)
		}
	}
	if err := Validate(doc); err != nil {
		return Document{}, fmt.Errorf("registry: %w", err)
	}
	return doc, nil
}

// decodeStrict decodes exactly one JSON value, rejecting unknown fields and
// trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
