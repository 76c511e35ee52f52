package yellowstone

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mr-tron/base58"

	"github.com/assetd/assetd/internal/yellowstone/geyserpb"
)

// The stream carries transactions as protobuf (solana-storage's
// Transaction + TransactionStatusMeta). They are converted into the JSON
// that getTransaction returns with encoding "json" (the bare result
// object), so one decoder (swapdecode.DecodeTransaction) serves the RPC
// source and this one: the JSON path is the decoder's only input format,
// and a converted transaction can be checked field by field against a
// recorded getTransaction response of the same signature (convert_test.go).
//
// Differences from a node's answer, none of which the decoder reads:
//   - meta.err / meta.status.Err: the protobuf carries the error as the
//     node's bincode bytes; they are rendered as {"bincode": "<base64>"}
//     rather than decoded into the RPC's enum JSON (a failed transaction
//     is recognised by err != null, which holds).
//   - meta.rewards is always [] (transaction-level rewards are empty in
//     practice and carry nothing for trades).

// rpcTx is the getTransaction "json" encoding result, in the node's key
// order.
type rpcTx struct {
	Slot        uint64     `json:"slot"`
	BlockTime   *int64     `json:"blockTime"`
	Version     any        `json:"version"`
	Transaction rpcTxInner `json:"transaction"`
	Meta        *rpcMeta   `json:"meta"`
}

type rpcTxInner struct {
	Signatures []string   `json:"signatures"`
	Message    rpcMessage `json:"message"`
}

type rpcMessage struct {
	Header              rpcHeader        `json:"header"`
	AccountKeys         []string         `json:"accountKeys"`
	RecentBlockhash     string           `json:"recentBlockhash"`
	Instructions        []rpcInstruction `json:"instructions"`
	AddressTableLookups *[]rpcLookup     `json:"addressTableLookups,omitempty"` // v0 only
}

type rpcHeader struct {
	NumRequiredSignatures       uint32 `json:"numRequiredSignatures"`
	NumReadonlySignedAccounts   uint32 `json:"numReadonlySignedAccounts"`
	NumReadonlyUnsignedAccounts uint32 `json:"numReadonlyUnsignedAccounts"`
}

type rpcInstruction struct {
	ProgramIDIndex uint32  `json:"programIdIndex"`
	Accounts       []int   `json:"accounts"`
	Data           string  `json:"data"`
	StackHeight    *uint32 `json:"stackHeight"`
}

type rpcLookup struct {
	AccountKey      string `json:"accountKey"`
	WritableIndexes []int  `json:"writableIndexes"`
	ReadonlyIndexes []int  `json:"readonlyIndexes"`
}

type rpcMeta struct {
	Err                  any                `json:"err"`
	Status               map[string]any     `json:"status"`
	Fee                  uint64             `json:"fee"`
	PreBalances          []uint64           `json:"preBalances"`
	PostBalances         []uint64           `json:"postBalances"`
	InnerInstructions    []rpcInner         `json:"innerInstructions"`
	LogMessages          []string           `json:"logMessages"`
	PreTokenBalances     []rpcTokenBalance  `json:"preTokenBalances"`
	PostTokenBalances    []rpcTokenBalance  `json:"postTokenBalances"`
	Rewards              []any              `json:"rewards"`
	LoadedAddresses      rpcLoadedAddresses `json:"loadedAddresses"`
	ReturnData           *rpcReturnData     `json:"returnData,omitempty"`
	ComputeUnitsConsumed *uint64            `json:"computeUnitsConsumed,omitempty"`
}

type rpcInner struct {
	Index        uint32           `json:"index"`
	Instructions []rpcInstruction `json:"instructions"`
}

type rpcTokenBalance struct {
	AccountIndex  uint32           `json:"accountIndex"`
	Mint          string           `json:"mint"`
	Owner         string           `json:"owner,omitempty"`
	ProgramID     string           `json:"programId,omitempty"`
	UITokenAmount rpcUITokenAmount `json:"uiTokenAmount"`
}

type rpcUITokenAmount struct {
	Amount         string   `json:"amount"`
	Decimals       uint32   `json:"decimals"`
	UIAmount       *float64 `json:"uiAmount"`
	UIAmountString string   `json:"uiAmountString"`
}

type rpcLoadedAddresses struct {
	Readonly []string `json:"readonly"`
	Writable []string `json:"writable"`
}

type rpcReturnData struct {
	ProgramID string    `json:"programId"`
	Data      [2]string `json:"data"`
}

// errNoTransaction: an update without the transaction or its meta.
var errNoTransaction = errors.New("yellowstone: transaction update without transaction or meta")

// TransactionJSON renders one streamed transaction as the result object of
// getTransaction with encoding "json" at slot, with blockTime when known
// (the stream sends it in the slot's block meta, not with the
// transaction).
func TransactionJSON(info *geyserpb.SubscribeUpdateTransactionInfo, slot uint64, blockTime *int64) ([]byte, error) {
	if info == nil || info.GetTransaction() == nil || info.GetTransaction().GetMessage() == nil || info.GetMeta() == nil {
		return nil, errNoTransaction
	}
	tx := info.GetTransaction()
	msg := tx.GetMessage()
	meta := info.GetMeta()

	out := rpcTx{Slot: slot, BlockTime: blockTime, Version: "legacy"}
	if msg.GetVersioned() {
		out.Version = 0
	}
	out.Transaction.Signatures = keys(tx.GetSignatures())
	h := msg.GetHeader()
	out.Transaction.Message = rpcMessage{
		Header: rpcHeader{
			NumRequiredSignatures:       h.GetNumRequiredSignatures(),
			NumReadonlySignedAccounts:   h.GetNumReadonlySignedAccounts(),
			NumReadonlyUnsignedAccounts: h.GetNumReadonlyUnsignedAccounts(),
		},
		AccountKeys:     keys(msg.GetAccountKeys()),
		RecentBlockhash: base58.Encode(msg.GetRecentBlockhash()),
		Instructions:    make([]rpcInstruction, 0, len(msg.GetInstructions())),
	}
	for _, ix := range msg.GetInstructions() {
		out.Transaction.Message.Instructions = append(out.Transaction.Message.Instructions, rpcInstruction{
			ProgramIDIndex: ix.GetProgramIdIndex(),
			Accounts:       indexes(ix.GetAccounts()),
			Data:           base58.Encode(ix.GetData()),
		})
	}
	if msg.GetVersioned() {
		lookups := make([]rpcLookup, 0, len(msg.GetAddressTableLookups()))
		for _, l := range msg.GetAddressTableLookups() {
			lookups = append(lookups, rpcLookup{
				AccountKey:      base58.Encode(l.GetAccountKey()),
				WritableIndexes: indexes(l.GetWritableIndexes()),
				ReadonlyIndexes: indexes(l.GetReadonlyIndexes()),
			})
		}
		out.Transaction.Message.AddressTableLookups = &lookups
	}

	m := &rpcMeta{
		Status:            map[string]any{"Ok": nil},
		Fee:               meta.GetFee(),
		PreBalances:       nonNil(meta.GetPreBalances()),
		PostBalances:      nonNil(meta.GetPostBalances()),
		PreTokenBalances:  tokenBalances(meta.GetPreTokenBalances()),
		PostTokenBalances: tokenBalances(meta.GetPostTokenBalances()),
		Rewards:           []any{},
		LoadedAddresses: rpcLoadedAddresses{
			Readonly: keys(meta.GetLoadedReadonlyAddresses()),
			Writable: keys(meta.GetLoadedWritableAddresses()),
		},
		ComputeUnitsConsumed: meta.ComputeUnitsConsumed,
	}
	if e := meta.GetErr(); e != nil {
		m.Err = map[string]string{"bincode": base64.StdEncoding.EncodeToString(e.GetErr())}
		m.Status = map[string]any{"Err": m.Err}
	}
	if !meta.GetInnerInstructionsNone() {
		m.InnerInstructions = make([]rpcInner, 0, len(meta.GetInnerInstructions()))
		for _, in := range meta.GetInnerInstructions() {
			r := rpcInner{Index: in.GetIndex(), Instructions: make([]rpcInstruction, 0, len(in.GetInstructions()))}
			for _, ix := range in.GetInstructions() {
				r.Instructions = append(r.Instructions, rpcInstruction{
					ProgramIDIndex: ix.GetProgramIdIndex(),
					Accounts:       indexes(ix.GetAccounts()),
					Data:           base58.Encode(ix.GetData()),
					StackHeight:    ix.StackHeight,
				})
			}
			m.InnerInstructions = append(m.InnerInstructions, r)
		}
	}
	if !meta.GetLogMessagesNone() {
		m.LogMessages = nonNil(meta.GetLogMessages())
	}
	if rd := meta.GetReturnData(); rd != nil && !meta.GetReturnDataNone() {
		m.ReturnData = &rpcReturnData{
			ProgramID: base58.Encode(rd.GetProgramId()),
			Data:      [2]string{base64.StdEncoding.EncodeToString(rd.GetData()), "base64"},
		}
	}
	out.Meta = m
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("yellowstone: render transaction: %w", err)
	}
	return b, nil
}

func keys(bs [][]byte) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = base58.Encode(b)
	}
	return out
}

func indexes(b []byte) []int {
	out := make([]int, len(b))
	for i, v := range b {
		out[i] = int(v)
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func tokenBalances(in []*geyserpb.TokenBalance) []rpcTokenBalance {
	out := make([]rpcTokenBalance, 0, len(in))
	for _, tb := range in {
		ui := tb.GetUiTokenAmount()
		r := rpcTokenBalance{
			AccountIndex: tb.GetAccountIndex(),
			Mint:         tb.GetMint(),
			Owner:        tb.GetOwner(),
			ProgramID:    tb.GetProgramId(),
			UITokenAmount: rpcUITokenAmount{
				Amount:         ui.GetAmount(),
				Decimals:       ui.GetDecimals(),
				UIAmountString: ui.GetUiAmountString(),
			},
		}
		// The node sends uiAmount null for a zero amount.
		if ui.GetAmount() != "0" {
			v := ui.GetUiAmount()
			r.UITokenAmount.UIAmount = &v
		}
		out = append(out, r)
	}
	return out
}

// signature returns the base58 signature of a streamed transaction.
func signature(info *geyserpb.SubscribeUpdateTransactionInfo) string {
	if s := info.GetSignature(); len(s) > 0 {
		return base58.Encode(s)
	}
	if sigs := info.GetTransaction().GetSignatures(); len(sigs) > 0 {
		return base58.Encode(sigs[0])
	}
	return ""
}
