package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ErrUnknownFormat is returned by DetectAndParse for input it cannot
// classify.
var ErrUnknownFormat = errors.New("unrecognised registry data format")

// referenceOnlyKeys are top-level keys only the reference registry export
// carries next to "assets".
func referenceOnlyKeys() []string {
	return []string{"aliasIndex", "mintHomeOverrides", "registryIssues", "preStocks", "tokenVariantGroups", "tokenWrapperGroups", "enums"}
}

// DetectAndParse sniffs the format of r and parses it with the matching
// parser; the Report's Format says which one ran:
//
//   - an object with "sanctum_lst_list", or an array whose first element
//     has "pool" or "token_program": ParseSanctumLSTList;
//   - an object with "tokens": ParseTokenList;
//   - an object with "assets" and a reference-only key (aliasIndex,
//     mintHomeOverrides, registryIssues, preStocks, ...):
//     ParseReferenceRegistry;
//   - any other object with "assets": ParseDocument (our format).
func DetectAndParse(r io.Reader) (Document, *Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Document{}, nil, fmt.Errorf("registry: read input: %w", err)
	}
	format, err := detectFormat(data)
	if err != nil {
		return Document{}, nil, err
	}
	switch format {
	case FormatSanctum:
		return parseSanctum(data)
	case FormatTokenList:
		return ParseTokenList(bytes.NewReader(data))
	case FormatReference:
		return ParseReferenceRegistry(bytes.NewReader(data))
	}
	doc, err := parseDocument(data)
	if err != nil {
		return Document{}, nil, err
	}
	return doc, newReport(FormatDocument), nil
}

func detectFormat(data []byte) (string, error) {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return "", fmt.Errorf("registry: %w: empty input", ErrUnknownFormat)
	}
	if t[0] == '[' {
		var first []map[string]json.RawMessage
		if err := json.Unmarshal(t, &first); err != nil {
			return "", fmt.Errorf("registry: %w: %v", ErrUnknownFormat, err)
		}
		if len(first) > 0 {
			_, pool := first[0]["pool"]
			_, program := first[0]["token_program"]
			if pool || program {
				return FormatSanctum, nil
			}
		}
		return "", fmt.Errorf("registry: %w: a JSON array that is not an LST index", ErrUnknownFormat)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(t, &top); err != nil {
		return "", fmt.Errorf("registry: %w: %v", ErrUnknownFormat, err)
	}
	has := func(k string) bool { _, ok := top[k]; return ok }
	switch {
	case has("sanctum_lst_list"):
		return FormatSanctum, nil
	case has("tokens"):
		return FormatTokenList, nil
	case has("assets"):
		for _, k := range referenceOnlyKeys() {
			if has(k) {
				return FormatReference, nil
			}
		}
		return FormatDocument, nil
	}
	return "", fmt.Errorf("registry: %w: no assets, tokens or sanctum_lst_list key", ErrUnknownFormat)
}
