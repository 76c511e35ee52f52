package yellowstone

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mr-tron/base58"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/assetd/assetd/internal/yellowstone/geyserpb"
)

// The recorded data of shared/data/solana-tx (see its README); tests skip
// when it is absent.
const dataDir = "../../../shared/data/solana-tx"

// recordedTx is one recorded getTransaction result, encoding json.
type recordedTx struct {
	name      string
	raw       []byte // the bare result object
	slot      uint64
	blockTime int64
	signature string
}

// recordedJSONTxs loads every json-encoded recorded transaction:
// 0xjeffro_tx-parser (one-element arrays) and qvecs_soltxs *_rpc.json
// (JSON-RPC envelopes). Signatures appearing twice are kept once.
func recordedJSONTxs(t testing.TB) []recordedTx {
	t.Helper()
	var files []string
	a, _ := filepath.Glob(filepath.Join(dataDir, "0xjeffro_tx-parser", "data", "*.json"))
	b, _ := filepath.Glob(filepath.Join(dataDir, "qvecs_soltxs", "data", "*_rpc.json"))
	files = append(append(files, a...), b...)
	if len(files) == 0 {
		t.Skip("shared/data/solana-tx not present")
	}
	seen := map[string]bool{}
	var out []recordedTx
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		raw := bareResult(t, f, body)
		var head struct {
			Slot        uint64 `json:"slot"`
			BlockTime   int64  `json:"blockTime"`
			Transaction struct {
				Signatures []string `json:"signatures"`
			} `json:"transaction"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sig := head.Transaction.Signatures[0]
		if seen[sig] {
			continue
		}
		seen[sig] = true
		out = append(out, recordedTx{name: filepath.Base(f), raw: raw, slot: head.Slot, blockTime: head.BlockTime, signature: sig})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func bareResult(t testing.TB, name string, body []byte) []byte {
	t.Helper()
	trimmed := strings.TrimSpace(string(body))
	switch {
	case strings.HasPrefix(trimmed, "["):
		var arr []json.RawMessage
		if err := json.Unmarshal(body, &arr); err != nil || len(arr) != 1 {
			t.Fatalf("%s: want a one-element array: %v", name, err)
		}
		return arr[0]
	default:
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if env.Result != nil {
			return env.Result
		}
		return body
	}
}

// protoFromRPC builds the streamed form of a recorded json-encoded
// getTransaction result: what a Yellowstone server sends for the same
// transaction (test-only inverse of TransactionJSON).
func protoFromRPC(t testing.TB, raw []byte) *geyserpb.SubscribeUpdateTransactionInfo {
	t.Helper()
	var r struct {
		Version     any `json:"version"`
		Transaction struct {
			Signatures []string `json:"signatures"`
			Message    struct {
				Header              rpcHeader        `json:"header"`
				AccountKeys         []string         `json:"accountKeys"`
				RecentBlockhash     string           `json:"recentBlockhash"`
				Instructions        []rpcInstruction `json:"instructions"`
				AddressTableLookups []rpcLookup      `json:"addressTableLookups"`
			} `json:"message"`
		} `json:"transaction"`
		Meta struct {
			Err                  json.RawMessage    `json:"err"`
			Fee                  uint64             `json:"fee"`
			PreBalances          []uint64           `json:"preBalances"`
			PostBalances         []uint64           `json:"postBalances"`
			InnerInstructions    *[]rpcInner        `json:"innerInstructions"`
			LogMessages          *[]string          `json:"logMessages"`
			PreTokenBalances     []rpcTokenBalance  `json:"preTokenBalances"`
			PostTokenBalances    []rpcTokenBalance  `json:"postTokenBalances"`
			LoadedAddresses      rpcLoadedAddresses `json:"loadedAddresses"`
			ComputeUnitsConsumed *uint64            `json:"computeUnitsConsumed"`
			ReturnData           *rpcReturnData     `json:"returnData"`
		} `json:"meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	dec := func(s string) []byte {
		if s == "" {
			return nil
		}
		b, err := base58.Decode(s)
		if err != nil {
			t.Fatalf("base58 %q: %v", s, err)
		}
		return b
	}
	decAll := func(ss []string) [][]byte {
		out := make([][]byte, len(ss))
		for i, s := range ss {
			out[i] = dec(s)
		}
		return out
	}
	idx := func(in []int) []byte {
		out := make([]byte, len(in))
		for i, v := range in {
			out[i] = byte(v)
		}
		return out
	}
	m := r.Transaction.Message
	msg := &geyserpb.Message{
		Header: &geyserpb.MessageHeader{
			NumRequiredSignatures:       m.Header.NumRequiredSignatures,
			NumReadonlySignedAccounts:   m.Header.NumReadonlySignedAccounts,
			NumReadonlyUnsignedAccounts: m.Header.NumReadonlyUnsignedAccounts,
		},
		AccountKeys:     decAll(m.AccountKeys),
		RecentBlockhash: dec(m.RecentBlockhash),
		Versioned:       r.Version != "legacy",
	}
	for _, ix := range m.Instructions {
		msg.Instructions = append(msg.Instructions, &geyserpb.CompiledInstruction{ProgramIdIndex: ix.ProgramIDIndex, Accounts: idx(ix.Accounts), Data: dec(ix.Data)})
	}
	for _, l := range m.AddressTableLookups {
		msg.AddressTableLookups = append(msg.AddressTableLookups, &geyserpb.MessageAddressTableLookup{AccountKey: dec(l.AccountKey), WritableIndexes: idx(l.WritableIndexes), ReadonlyIndexes: idx(l.ReadonlyIndexes)})
	}
	meta := &geyserpb.TransactionStatusMeta{
		Fee:                     r.Meta.Fee,
		PreBalances:             r.Meta.PreBalances,
		PostBalances:            r.Meta.PostBalances,
		LoadedWritableAddresses: decAll(r.Meta.LoadedAddresses.Writable),
		LoadedReadonlyAddresses: decAll(r.Meta.LoadedAddresses.Readonly),
		ComputeUnitsConsumed:    r.Meta.ComputeUnitsConsumed,
		ReturnDataNone:          r.Meta.ReturnData == nil,
	}
	if rd := r.Meta.ReturnData; rd != nil {
		data, err := base64.StdEncoding.DecodeString(rd.Data[0])
		if err != nil || rd.Data[1] != "base64" {
			t.Fatalf("returnData %v: %v", rd.Data, err)
		}
		meta.ReturnData = &geyserpb.ReturnData{ProgramId: dec(rd.ProgramID), Data: data}
	}
	if len(r.Meta.Err) > 0 && string(r.Meta.Err) != "null" {
		meta.Err = &geyserpb.TransactionError{Err: r.Meta.Err}
	}
	if r.Meta.InnerInstructions == nil {
		meta.InnerInstructionsNone = true
	} else {
		for _, in := range *r.Meta.InnerInstructions {
			pi := &geyserpb.InnerInstructions{Index: in.Index}
			for _, ix := range in.Instructions {
				pi.Instructions = append(pi.Instructions, &geyserpb.InnerInstruction{ProgramIdIndex: ix.ProgramIDIndex, Accounts: idx(ix.Accounts), Data: dec(ix.Data), StackHeight: ix.StackHeight})
			}
			meta.InnerInstructions = append(meta.InnerInstructions, pi)
		}
	}
	if r.Meta.LogMessages == nil {
		meta.LogMessagesNone = true
	} else {
		meta.LogMessages = *r.Meta.LogMessages
	}
	tb := func(in []rpcTokenBalance) []*geyserpb.TokenBalance {
		var out []*geyserpb.TokenBalance
		for _, b := range in {
			ui := &geyserpb.UiTokenAmount{Amount: b.UITokenAmount.Amount, Decimals: b.UITokenAmount.Decimals, UiAmountString: b.UITokenAmount.UIAmountString}
			if b.UITokenAmount.UIAmount != nil {
				ui.UiAmount = *b.UITokenAmount.UIAmount
			}
			out = append(out, &geyserpb.TokenBalance{AccountIndex: b.AccountIndex, Mint: b.Mint, Owner: b.Owner, ProgramId: b.ProgramID, UiTokenAmount: ui})
		}
		return out
	}
	meta.PreTokenBalances = tb(r.Meta.PreTokenBalances)
	meta.PostTokenBalances = tb(r.Meta.PostTokenBalances)
	sigs := decAll(r.Transaction.Signatures)
	return &geyserpb.SubscribeUpdateTransactionInfo{
		Signature:   sigs[0],
		Transaction: &geyserpb.Transaction{Signatures: sigs, Message: msg},
		Meta:        meta,
	}
}

// geyserJSONUpdate reads a qvecs_soltxs *_geyser.json file (a
// SubscribeUpdate rendered as JSON with byte fields as base58 strings or
// lists of small integers) into the protobuf message: byte fields are
// rewritten to protojson's base64, then protojson decodes it.
func geyserJSONUpdate(t *testing.T, path string) *geyserpb.SubscribeUpdate {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("recorded geyser JSON not present: %v", err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	bytesFields := map[string]bool{
		"signature": true, "signatures": true, "accountKeys": true, "recentBlockhash": true, "data": true,
		"accountKey": true, "loadedWritableAddresses": true, "loadedReadonlyAddresses": true,
		"accounts": true, "writableIndexes": true, "readonlyIndexes": true, "programId": false,
	}
	var walk func(key string, v any) any
	walk = func(key string, v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(k, e)
			}
			return x
		case []any:
			if bytesFields[key] && (key == "accounts" || key == "writableIndexes" || key == "readonlyIndexes") {
				b := make([]byte, len(x))
				for i, n := range x {
					b[i] = byte(n.(float64))
				}
				return base64.StdEncoding.EncodeToString(b)
			}
			for i, e := range x {
				x[i] = walk(key, e)
			}
			return x
		case string:
			if bytesFields[key] {
				b, err := base58.Decode(x)
				if err != nil {
					t.Fatalf("%s: base58 %q: %v", key, x, err)
				}
				return base64.StdEncoding.EncodeToString(b)
			}
			return x
		}
		return v
	}
	out, err := json.Marshal(walk("", v))
	if err != nil {
		t.Fatal(err)
	}
	u := &geyserpb.SubscribeUpdate{}
	if err := protojson.Unmarshal(out, u); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return u
}

// recordedStream reads the recorded Yellowstone stream
// (rpcpool_yellowstone-vixen/sample.bin: 4-byte big-endian length +
// SubscribeUpdate, repeated).
func recordedStream(t *testing.T) []*geyserpb.SubscribeUpdate {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "rpcpool_yellowstone-vixen", "sample.bin"))
	if err != nil {
		t.Skipf("recorded Yellowstone stream not present: %v", err)
	}
	var out []*geyserpb.SubscribeUpdate
	for len(b) > 0 {
		if len(b) < 4 {
			t.Fatalf("truncated frame header")
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(len(b)-4) < uint64(n) {
			t.Fatalf("truncated frame of %d bytes", n)
		}
		u := &geyserpb.SubscribeUpdate{}
		if err := proto.Unmarshal(b[4:4+n], u); err != nil {
			t.Fatalf("frame %d: %v", len(out), err)
		}
		out = append(out, u)
		b = b[4+n:]
	}
	return out
}
