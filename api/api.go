// Package api holds assetd's HTTP contract: the hand-written OpenAPI 3.1
// document (openapi.yaml), embedded in the binary and served as JSON at
// GET /openapi.json. The test suite validates every response against it
// (internal/contracttest), so the document and the handlers cannot drift
// apart silently.
package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

//go:embed openapi.yaml
var document []byte

// YAML is the contract as written.
func YAML() []byte { return document }

// Contract is the parsed contract and its JSON rendering, built once.
type Contract struct {
	once sync.Once
	doc  *openapi3.T
	json []byte
	err  error
}

// New returns a contract that parses the embedded document on first use.
func New() *Contract { return &Contract{} }

func (c *Contract) load() {
	c.once.Do(func() {
		c.doc, c.json, c.err = Load(document)
	})
}

// JSON is the contract as JSON, converted on first use and cached.
func (c *Contract) JSON() ([]byte, error) {
	c.load()
	return c.json, c.err
}

// Doc is the parsed contract (shared: callers must not modify it).
func (c *Contract) Doc() (*openapi3.T, error) {
	c.load()
	return c.doc, c.err
}

// Load parses an OpenAPI document, validates it and renders it as JSON.
func Load(yaml []byte) (*openapi3.T, []byte, error) {
	doc, err := openapi3.NewLoader().LoadFromData(yaml)
	if err != nil {
		return nil, nil, fmt.Errorf("parse openapi document: %w", err)
	}
	if err := doc.Validate(openapi3.NewLoader().Context); err != nil {
		return nil, nil, fmt.Errorf("validate openapi document: %w", err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("render openapi document as JSON: %w", err)
	}
	return doc, js, nil
}
