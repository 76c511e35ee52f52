package swapdecode

import (
	"encoding/json"
	"fmt"

	"github.com/assetd/assetd/internal/jsonscan"
)

// DecodeResponse decodes a recorded getTransaction or getBlock response
// in any of the shapes recordings come in: the JSON-RPC envelope
// ({"jsonrpc","result","id"}), the bare result, or a one-element array
// holding either. A getBlock result (it has "transactions") decodes
// every transaction at the block's slot (its parentSlot + 1 is not the
// slot; recorded blocks carry it only in the envelope's request, so the
// transactions get slot 0 unless the result names one).
func DecodeResponse(raw []byte) ([]Tx, error) {
	body, err := unwrap(raw)
	if err != nil {
		return nil, err
	}
	var d Decoder
	if isBlock(body) {
		return d.DecodeBlock(body, 0)
	}
	tx, err := d.DecodeTransaction(body)
	if err != nil {
		return nil, err
	}
	return []Tx{tx}, nil
}

// unwrap strips a one-element array and a JSON-RPC envelope.
func unwrap(raw []byte) ([]byte, error) {
	s := jsonscan.Scanner{B: raw}
	if s.Peek() == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return nil, fmt.Errorf("swapdecode: %w", err)
		}
		if len(arr) != 1 {
			return nil, fmt.Errorf("swapdecode: array of %d elements, want one result", len(arr))
		}
		raw = arr[0]
	}
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("swapdecode: %w", err)
	}
	if env.JSONRPC == "" {
		return raw, nil
	}
	if env.Error != nil {
		return nil, fmt.Errorf("swapdecode: JSON-RPC error %d: %s", env.Error.Code, env.Error.Message)
	}
	if len(env.Result) == 0 || string(env.Result) == "null" {
		return nil, fmt.Errorf("swapdecode: JSON-RPC result is null (transaction or block not available)")
	}
	return env.Result, nil
}

// isBlock reports whether body is a getBlock result (a top-level
// "transactions" member).
func isBlock(body []byte) bool {
	var probe struct {
		Transactions json.RawMessage `json:"transactions"`
	}
	return json.Unmarshal(body, &probe) == nil && len(probe.Transactions) > 0
}
