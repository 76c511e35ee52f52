// Package yellowstone is the Yellowstone gRPC (Geyser) trade source: it
// subscribes to confirmed transactions of the DEX programs and to slot
// updates and block metadata, converts each transaction to the JSON of
// getTransaction (convert.go) for the decoder, and hands the decoded
// transactions and trades of every confirmed slot, in slot order, to a
// Sink. Slots the stream missed (dropped by the server, or lost over a
// disconnect) are detected from the parent links of block metadata and
// filled through a BlockFetcher (getBlock) when one is set, else reported
// to the Sink as gaps.
package yellowstone

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mr-tron/base58"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ctxwait"
	"github.com/assetd/assetd/internal/swapdecode"
	"github.com/assetd/assetd/internal/yellowstone/geyserpb"
)

// BlockFetcher fetches one block as the getBlock result (transactionDetails
// full, maxSupportedTransactionVersion 0). It returns an error wrapping
// ErrSlotSkipped for a slot that has no block (RPC errors -32007/-32009).
type BlockFetcher interface {
	GetBlock(ctx context.Context, slot int64) (json.RawMessage, error)
}

// ErrPendingFull ends a session holding more than MaxPendingSlots
// incomplete slots.
var ErrPendingFull = errors.New("yellowstone: too many incomplete slots")

// ErrSlotSkipped is what a BlockFetcher returns (wrapped) for a slot
// without a block; such a slot is not a gap.
var ErrSlotSkipped = errors.New("yellowstone: slot skipped")

// Batch is one confirmed slot's decoded DEX transactions.
type Batch struct {
	Slot      int64
	BlockTime int64
	// Source is "stream" (from the subscription) or "getBlock" (a missed
	// slot filled through the BlockFetcher; then Txs are every transaction
	// of the block).
	Source string
	// Late is set for a batch of transactions that arrived for a slot
	// after it was handed over; the sink dedupes them on (signature, leg).
	Late   bool
	Txs    []swapdecode.Tx
	Trades []analytics.Trade
	// Undecodable counts the slot's transactions the decoder rejected.
	Undecodable int
}

// Gap is a range of slots whose transactions the source could not get
// (no BlockFetcher, a range longer than MaxFillSlots, or the fetch
// failed); the sink records it for the RPC source to backfill.
type Gap struct {
	FromSlot, ToSlot int64
	Err              error
}

// Sink receives the source's output. Slot is called once per confirmed
// slot in increasing slot order (Late batches excepted); the source
// advances past a slot only when Slot returned nil, so a sink error makes
// the source reconnect and deliver the slot again. Gap is called, in slot
// order with the batches, for ranges it could not fill.
type Sink interface {
	Slot(ctx context.Context, b Batch) error
	Gap(ctx context.Context, g Gap) error
}

// Config configures a Source.
type Config struct {
	// Token is sent as the x-token metadata of the subscription.
	Token string
	// Programs are the account_include program ids (default DEXPrograms).
	Programs []string
	// FromSlot resumes at that slot (the stored cursor + 1): it is sent as
	// from_slot and slots from it on that the stream does not replay are
	// filled. 0 starts at the live tip.
	FromSlot int64
	// Fetcher fills missed slots; nil reports them as gaps.
	Fetcher BlockFetcher
	// MaxFillSlots bounds a range filled inline through the Fetcher
	// (default 1000); longer ranges are reported as one gap.
	MaxFillSlots int64
	// MaxPendingSlots bounds the slots held while waiting for their
	// confirmation and block metadata (default 512, about 3 minutes of
	// slots; a confirmed slot normally completes within a few). Past it
	// the session ends and the source resubscribes from the last
	// handed-over slot + 1: the memory stays bounded and nothing is lost.
	MaxPendingSlots int
	// DecodeTransaction and DecodeBlock default to swapdecode's.
	DecodeTransaction func(raw []byte) (swapdecode.Tx, error)
	DecodeBlock       func(raw []byte, slot int64) ([]swapdecode.Tx, error)
	// Trades turns a decoded transaction into trade events (default
	// swapdecode.Trades over Stable, default swapdecode.DefaultStableMints).
	Trades func(tx swapdecode.Tx) []analytics.Trade
	Stable map[string]bool
	// Backoff is the wait before reconnect attempt n (1-based; default
	// exponential from 500 ms to 30 s with full jitter); Sleep waits
	// (default a timer); tests replace both.
	Backoff func(attempt int) time.Duration
	Sleep   func(ctx context.Context, d time.Duration) error
	Logger  *slog.Logger
	// OnSessionEnd, when set, is told why each subscription ended before
	// the source reconnects (the operator's status shows it).
	OnSessionEnd func(err error)
}

// Source follows a Yellowstone gRPC endpoint.
type Source struct {
	cfg    Config
	client geyserpb.GeyserClient
	sink   Sink
	log    *slog.Logger

	programs map[string]bool
	// programKeys maps the raw 32 bytes of each program id to its base58
	// form: counting a streamed transaction's programs compares bytes
	// instead of base58-encoding every invoked key.
	programKeys map[[32]byte]string

	// Owned by the Run goroutine.
	lastDone   int64 // highest slot handed over or filled; 0: none yet
	pending    map[int64]*slotBuf
	noFromSlot bool // the next attempt omits from_slot (the server refused it)
	pingID     int32
	// recent holds the signatures of the last recentSlots slots handed
	// over from the stream, to tell a straggler from a replayed duplicate.
	recent map[int64]*recentSlot

	mu    sync.Mutex
	stats Stats
}

type slotBuf struct {
	txs       []*geyserpb.SubscribeUpdateTransactionInfo
	sigs      map[string]bool
	meta      *geyserpb.SubscribeUpdateBlockMeta
	confirmed bool
}

// Stats are the source's counters since start.
type Stats struct {
	Connects, Reconnects uint64
	PingsAnswered, Pongs uint64
	SlotsStreamed        uint64 // slots handed over from the stream
	SlotsFilled          uint64 // missed slots filled through the fetcher
	SlotsSkipped         uint64 // missed-range slots the fetcher said were skipped
	GapsReported         uint64
	TxSeen, TxFailed     uint64
	TxDuplicate, TxLate  uint64
	TxUndecodable        uint64
	Trades               uint64
	LastSlot             int64
	TxByProgram          map[string]uint64 // streamed transactions invoking each DEX program
	LastError            string
	LastErrorAt          time.Time
	FromSlotRejected     uint64
}

// New returns a Source reading through client (geyserpb.NewGeyserClient of
// a connection from Dial).
func New(client geyserpb.GeyserClient, sink Sink, cfg Config) *Source {
	if len(cfg.Programs) == 0 {
		cfg.Programs = DEXPrograms
	}
	if cfg.MaxFillSlots <= 0 {
		cfg.MaxFillSlots = 1000
	}
	if cfg.MaxPendingSlots <= 0 {
		cfg.MaxPendingSlots = 512
	}
	if cfg.DecodeTransaction == nil {
		cfg.DecodeTransaction = swapdecode.DecodeTransaction
	}
	if cfg.DecodeBlock == nil {
		cfg.DecodeBlock = swapdecode.DecodeBlock
	}
	if cfg.Stable == nil {
		cfg.Stable = swapdecode.DefaultStableMints()
	}
	if cfg.Trades == nil {
		stable := cfg.Stable
		cfg.Trades = func(tx swapdecode.Tx) []analytics.Trade { return swapdecode.Trades(tx, stable) }
	}
	if cfg.Backoff == nil {
		cfg.Backoff = Backoff
	}
	if cfg.Sleep == nil {
		cfg.Sleep = ctxwait.Sleep
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Source{cfg: cfg, client: client, sink: sink, log: cfg.Logger, programs: map[string]bool{}, recent: map[int64]*recentSlot{}}
	s.programKeys = make(map[[32]byte]string, len(cfg.Programs))
	for _, p := range cfg.Programs {
		s.programs[p] = true
		if b, err := base58.Decode(p); err == nil && len(b) == 32 {
			s.programKeys[[32]byte(b)] = p
		}
	}
	if cfg.FromSlot > 0 {
		s.lastDone = cfg.FromSlot - 1
	}
	s.stats.TxByProgram = map[string]uint64{}
	return s
}

// Backoff is the default reconnect wait: exponential from 500 ms, capped
// at 30 s, with full jitter.
func Backoff(attempt int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < attempt && d < 30*time.Second; i++ {
		d *= 2
	}
	d = min(d, 30*time.Second)
	return d/2 + rand.N(d/2+1)
}

// Stats returns a copy of the counters.
func (s *Source) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.TxByProgram = make(map[string]uint64, len(s.stats.TxByProgram))
	for k, v := range s.stats.TxByProgram {
		st.TxByProgram[k] = v
	}
	return st
}

func (s *Source) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

// Run follows the stream until ctx ends, reconnecting after every error
// with Backoff; it returns ctx's error.
func (s *Source) Run(ctx context.Context) error {
	attempt := 0
	for {
		progressed, err := s.session(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if progressed {
			attempt = 0
		}
		attempt++
		s.count(func(st *Stats) {
			st.Reconnects++
			st.LastError, st.LastErrorAt = err.Error(), time.Now()
		})
		s.log.Warn("yellowstone stream ended; reconnecting", "err", err, "attempt", attempt, "lastSlot", s.lastDone)
		if s.cfg.OnSessionEnd != nil {
			s.cfg.OnSessionEnd(err)
		}
		if err := s.cfg.Sleep(ctx, s.cfg.Backoff(attempt)); err != nil {
			return err
		}
	}
}

// request is the subscription: confirmed DEX transactions (votes
// excluded, failed included so they are counted), confirmed slot
// statuses and block metadata (block time, parent slot).
func (s *Source) request(fromSlot int64) *geyserpb.SubscribeRequest {
	commitment := geyserpb.CommitmentLevel_CONFIRMED
	req := &geyserpb.SubscribeRequest{
		Transactions: map[string]*geyserpb.SubscribeRequestFilterTransactions{
			"assetd_dex": {Vote: new(false), Failed: new(true), AccountInclude: s.cfg.Programs},
		},
		Slots:      map[string]*geyserpb.SubscribeRequestFilterSlots{"assetd_slots": {FilterByCommitment: new(true)}},
		BlocksMeta: map[string]*geyserpb.SubscribeRequestFilterBlocksMeta{"assetd_meta": {}},
		Commitment: &commitment,
	}
	if fromSlot > 0 {
		u := uint64(fromSlot)
		req.FromSlot = &u
	}
	return req
}

// session runs one subscription; progressed reports whether it handed
// over anything (so the backoff starts over).
func (s *Source) session(ctx context.Context) (progressed bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The token goes on the subscription only, not on the sink's and the
	// fetcher's calls.
	streamCtx := ctx
	if s.cfg.Token != "" {
		streamCtx = metadata.AppendToOutgoingContext(ctx, "x-token", s.cfg.Token)
	}
	s.pending = map[int64]*slotBuf{}
	from := int64(0)
	if s.lastDone > 0 && !s.noFromSlot {
		from = s.lastDone + 1
	}
	s.noFromSlot = false
	stream, err := s.client.Subscribe(streamCtx)
	if err != nil {
		return false, fmt.Errorf("yellowstone: subscribe: %w", err)
	}
	if err := stream.Send(s.request(from)); err != nil {
		return false, fmt.Errorf("yellowstone: send subscription: %w", err)
	}
	s.count(func(st *Stats) { st.Connects++ })
	start := s.lastDone
	received := false
	for {
		u, err := stream.Recv()
		if err != nil {
			if from > 0 && !received {
				// A server without from_slot support, or whose replay
				// buffer does not reach back that far, refuses the
				// request: retry live and fill the missed slots.
				if c := status.Code(err); c == codes.InvalidArgument || c == codes.Unimplemented || c == codes.OutOfRange || c == codes.FailedPrecondition {
					s.noFromSlot = true
					s.count(func(st *Stats) { st.FromSlotRejected++ })
				}
			}
			return s.lastDone != start, fmt.Errorf("yellowstone: receive: %w", err)
		}
		received = true
		if err := s.handle(ctx, stream, u); err != nil {
			return s.lastDone != start, err
		}
		if len(s.pending) > s.cfg.MaxPendingSlots {
			return s.lastDone != start, fmt.Errorf("%w: %d slots waiting for confirmation and block metadata (last handed over: %d)", ErrPendingFull, len(s.pending), s.lastDone)
		}
	}
}

type sender interface {
	Send(*geyserpb.SubscribeRequest) error
}

func (s *Source) handle(ctx context.Context, stream sender, u *geyserpb.SubscribeUpdate) error {
	switch v := u.GetUpdateOneof().(type) {
	case *geyserpb.SubscribeUpdate_Ping:
		// Yellowstone's keepalive: answer with a ping request, which the
		// server acknowledges with a pong (load balancers in front of it
		// close streams that only ever receive).
		s.pingID++
		if err := stream.Send(&geyserpb.SubscribeRequest{Ping: &geyserpb.SubscribeRequestPing{Id: s.pingID}}); err != nil {
			return fmt.Errorf("yellowstone: answer ping: %w", err)
		}
		s.count(func(st *Stats) { st.PingsAnswered++ })
	case *geyserpb.SubscribeUpdate_Pong:
		s.count(func(st *Stats) { st.Pongs++ })
	case *geyserpb.SubscribeUpdate_Transaction:
		return s.onTransaction(ctx, v.Transaction)
	case *geyserpb.SubscribeUpdate_BlockMeta:
		slot := int64(v.BlockMeta.GetSlot())
		if s.lastDone != 0 && slot <= s.lastDone {
			return nil
		}
		s.buf(slot).meta = v.BlockMeta
		return s.complete(ctx, slot)
	case *geyserpb.SubscribeUpdate_Slot:
		slot := int64(v.Slot.GetSlot())
		switch v.Slot.GetStatus() {
		case geyserpb.SlotStatus_SLOT_CONFIRMED, geyserpb.SlotStatus_SLOT_FINALIZED:
			if s.lastDone != 0 && slot <= s.lastDone {
				return nil
			}
			s.buf(slot).confirmed = true
			return s.complete(ctx, slot)
		case geyserpb.SlotStatus_SLOT_DEAD:
			delete(s.pending, slot)
		}
	}
	return nil
}

func (s *Source) buf(slot int64) *slotBuf {
	b := s.pending[slot]
	if b == nil {
		b = &slotBuf{sigs: map[string]bool{}}
		s.pending[slot] = b
	}
	return b
}

func (s *Source) onTransaction(ctx context.Context, t *geyserpb.SubscribeUpdateTransaction) error {
	info := t.GetTransaction()
	if info == nil || info.GetIsVote() {
		return nil
	}
	slot := int64(t.GetSlot())
	sig := signature(info)
	if s.lastDone != 0 && slot <= s.lastDone {
		// Replayed after a reconnect (already handed over or filled), or
		// a straggler of a streamed slot, delivered on its own (the sink
		// dedupes on (signature, leg)).
		r, streamed := s.recent[slot]
		if !streamed || r.sigs[sig] {
			s.count(func(st *Stats) { st.TxDuplicate++ })
			return nil
		}
		r.sigs[sig] = true
		s.countPrograms(info)
		s.count(func(st *Stats) { st.TxLate++ })
		return s.emit(ctx, slot, r.blockTime, []*geyserpb.SubscribeUpdateTransactionInfo{info}, true)
	}
	b := s.buf(slot)
	if b.sigs[sig] {
		s.count(func(st *Stats) { st.TxDuplicate++ })
		return nil
	}
	b.sigs[sig] = true
	b.txs = append(b.txs, info)
	s.countPrograms(info)
	return nil
}

func (s *Source) countPrograms(info *geyserpb.SubscribeUpdateTransactionInfo) {
	msg := info.GetTransaction().GetMessage()
	meta := info.GetMeta()
	keys := make([][]byte, 0, len(msg.GetAccountKeys())+len(meta.GetLoadedWritableAddresses())+len(meta.GetLoadedReadonlyAddresses()))
	keys = append(keys, msg.GetAccountKeys()...)
	keys = append(keys, meta.GetLoadedWritableAddresses()...)
	keys = append(keys, meta.GetLoadedReadonlyAddresses()...)
	var seen []string // the DEX programs it invokes (a handful)
	mark := func(i uint32) {
		if int(i) < len(keys) && len(keys[i]) == 32 {
			if p, ok := s.programKeys[[32]byte(keys[i])]; ok && !slices.Contains(seen, p) {
				seen = append(seen, p)
			}
		}
	}
	for _, ix := range msg.GetInstructions() {
		mark(ix.GetProgramIdIndex())
	}
	for _, in := range meta.GetInnerInstructions() {
		for _, ix := range in.GetInstructions() {
			mark(ix.GetProgramIdIndex())
		}
	}
	s.count(func(st *Stats) {
		st.TxSeen++
		if meta.GetErr() != nil {
			st.TxFailed++
		}
		for _, p := range seen {
			st.TxByProgram[p]++
		}
	})
}

// complete hands over slot when it is confirmed and its block metadata
// arrived, together with its pending ancestors that have metadata (a
// confirmed block's ancestors are confirmed), oldest first, after filling
// the missed slots between the last handed-over slot and the oldest of
// them.
func (s *Source) complete(ctx context.Context, slot int64) error {
	b := s.pending[slot]
	if b == nil || b.meta == nil || !b.confirmed {
		return nil
	}
	chain := []int64{slot}
	for {
		parent := int64(s.pending[chain[len(chain)-1]].meta.GetParentSlot())
		pb := s.pending[parent]
		if pb == nil || pb.meta == nil || (s.lastDone != 0 && parent <= s.lastDone) {
			break
		}
		chain = append(chain, parent)
	}
	oldest := chain[len(chain)-1]
	parent := int64(s.pending[oldest].meta.GetParentSlot())
	if s.lastDone != 0 && parent > s.lastDone {
		if err := s.fill(ctx, s.lastDone+1, parent); err != nil {
			return err
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		sl := chain[i]
		pb := s.pending[sl]
		var bt int64
		if pb.meta.GetBlockTime() != nil {
			bt = pb.meta.GetBlockTime().GetTimestamp()
		}
		if err := s.emit(ctx, sl, bt, pb.txs, false); err != nil {
			return err
		}
		s.remember(sl, &recentSlot{sigs: pb.sigs, blockTime: bt})
		s.count(func(st *Stats) { st.SlotsStreamed++ })
	}
	// Anything older is on another fork or was filled.
	for sl := range s.pending {
		if sl <= s.lastDone {
			delete(s.pending, sl)
		}
	}
	return nil
}

// emit decodes and hands over one slot's streamed transactions.
func (s *Source) emit(ctx context.Context, slot, blockTime int64, infos []*geyserpb.SubscribeUpdateTransactionInfo, late bool) error {
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].GetIndex() < infos[j].GetIndex() })
	bt := &blockTime
	if blockTime == 0 {
		bt = nil
	}
	batch := Batch{Slot: slot, BlockTime: blockTime, Source: "stream", Late: late}
	for _, info := range infos {
		raw, err := TransactionJSON(info, uint64(slot), bt)
		if err == nil {
			var tx swapdecode.Tx
			if tx, err = s.cfg.DecodeTransaction(raw); err == nil {
				batch.Txs = append(batch.Txs, tx)
				batch.Trades = append(batch.Trades, s.cfg.Trades(tx)...)
				continue
			}
		}
		batch.Undecodable++
		s.log.Debug("yellowstone: undecodable transaction", "slot", slot, "signature", signature(info), "err", err)
	}
	if err := s.sink.Slot(ctx, batch); err != nil {
		return fmt.Errorf("yellowstone: sink, slot %d: %w", slot, err)
	}
	if !late {
		s.lastDone = slot
	}
	s.count(func(st *Stats) {
		st.TxUndecodable += uint64(batch.Undecodable)
		st.Trades += uint64(len(batch.Trades))
		st.LastSlot = max(st.LastSlot, slot)
	})
	return nil
}

// recentSlots is how many streamed slots' signatures are remembered.
const recentSlots = 64

type recentSlot struct {
	sigs      map[string]bool
	blockTime int64
}

func (s *Source) remember(slot int64, r *recentSlot) {
	s.recent[slot] = r
	for sl := range s.recent {
		if sl <= slot-recentSlots {
			delete(s.recent, sl)
		}
	}
}
