package onchain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/assetd/assetd/internal/storage"
)

// Caller is the JSON-RPC client the reader uses (internal/solanarpc: the
// --solana-rpc-url endpoint and its shared request budget).
type Caller interface {
	Call(ctx context.Context, method string, params []any, result any) error
}

// Defaults of the read schedule and budget (docs/onchain.md).
const (
	DefaultInterval = time.Hour
	// DefaultKeyBudget is how many mints outside the registry and curated
	// lists one API key may have read on demand per hour.
	DefaultKeyBudget = 300
	// BatchSize is the most accounts one getMultipleAccounts reads.
	BatchSize = 100
	// SourceChain names chain reads in the change log.
	SourceChain = "chain"
)

// Config configures a Service.
type Config struct {
	// Caller reads the chain; nil serves only what the store (or Seed)
	// holds.
	Caller Caller
	Store  Store
	// Scheduled returns the mints read every Interval (the registry's and
	// the curated lists'); Deep the ones whose Metaplex metadata and
	// largest accounts are read too (the registry's).
	Scheduled func() []string
	Deep      func() []string
	Interval  time.Duration
	KeyBudget int
	// Leader says whether this replica runs the cluster's scheduled reads
	// (internal/refresh's Elector over the on-chain lease); nil: always.
	// A replica that is not the leader still reads the mints its own
	// verdicts calls queued (each once, within the key's budget) and
	// reloads the leader's reads through storage.TopicMintFacts.
	Leader func() bool
	// Demo, with --demo, is the demo world's synthetic facts at a time
	// (DemoFacts): the leader stores the ones that changed every Tick, so
	// the scripted change (DemoScript) goes through the change log like a
	// chain read.
	Demo func(time.Time) []Facts
	// Tick is how often Run checks what is due; <= 0 means DefaultTick.
	Tick time.Duration
	Now  func() time.Time
	Log  *slog.Logger
}

// DefaultTick is how often Run checks whether this replica leads and
// whether the scheduled read or a demo change is due.
const DefaultTick = time.Minute

type entry struct {
	status string
	facts  *Facts
}

// Service keeps the current facts of mints in memory, reads them from the
// chain on a schedule and on demand, and records every change.
type Service struct {
	cfg Config

	mu      sync.RWMutex
	facts   map[string]entry
	queue   map[string]bool
	budgets map[string]budget

	kick chan struct{}

	// stepMu serialises Step; led and lastRead are its state: whether this
	// replica led at the last step and when it last read the schedule.
	stepMu   sync.Mutex
	led      bool
	lastRead time.Time

	// symbols is the on-chain symbol index of Claiming, built lazily per
	// version.
	symbols atomic.Pointer[symbolIndex]
	// version counts the changes of facts in memory (Load, a read
	// committed): read models built from the facts key on it.
	version atomic.Uint64
}

type budget struct {
	start time.Time
	used  int
}

// New returns a Service; call Load, then Run.
func New(cfg Config) *Service {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.KeyBudget <= 0 {
		cfg.KeyBudget = DefaultKeyBudget
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Scheduled == nil {
		cfg.Scheduled = func() []string { return nil }
	}
	if cfg.Deep == nil {
		cfg.Deep = func() []string { return nil }
	}
	return &Service{cfg: cfg, facts: map[string]entry{}, queue: map[string]bool{}, budgets: map[string]budget{}, kick: make(chan struct{}, 1)}
}

// Load replaces the facts in memory with the stored ones (at start, and on
// a change of storage.TopicMintFacts made by another replica).
func (s *Service) Load(ctx context.Context) error {
	if s.cfg.Store == nil {
		return nil
	}
	rows, err := s.cfg.Store.ListMintFacts(ctx)
	if err != nil {
		return fmt.Errorf("onchain: load: %w", err)
	}
	m := make(map[string]entry, len(rows))
	for _, r := range rows {
		e := entry{status: r.Status}
		if r.Status == StatusOK {
			var f Facts
			if err := json.Unmarshal(r.Facts, &f); err != nil {
				s.cfg.Log.Warn("onchain: stored facts unreadable", "mint", r.Mint, "err", err)
				continue
			}
			e.facts = &f
		}
		m[r.Mint] = e
	}
	s.mu.Lock()
	s.facts = m
	s.mu.Unlock()
	s.version.Add(1)
	return nil
}

// Version moves whenever the facts in memory change (0 for a nil
// Service).
func (s *Service) Version() uint64 {
	if s == nil {
		return 0
	}
	return s.version.Load()
}

// Lookup returns the status of mint (ok, unknown_mint or not_read_yet) and
// its facts when ok. The facts are shared: callers must not modify them.
func (s *Service) Lookup(mint string) (string, *Facts) {
	if s == nil {
		return StatusNotReadYet, nil
	}
	s.mu.RLock()
	e, ok := s.facts[mint]
	s.mu.RUnlock()
	if !ok {
		return StatusNotReadYet, nil
	}
	return e.status, e.facts
}

// Decimals returns the chain's decimals of mint when read. The demo
// world's synthetic facts give none (theirs are a placeholder where the
// registry has none): the resolver then falls through to the demo world's
// own simulated market data, so one --demo mint has one decimals.
func (s *Service) Decimals(mint string) (int, bool) {
	if st, f := s.Lookup(mint); st == StatusOK && f != nil && !f.Synthetic {
		return f.Decimals, true
	}
	return 0, false
}

// Request queues the mints not read yet for an on-demand read, charged to
// key's hourly budget; mints beyond the budget stay not_read_yet. It
// returns how many were queued.
func (s *Service) Request(key string, mints []string) int {
	if s == nil || s.cfg.Caller == nil {
		return 0
	}
	now := s.cfg.Now()
	s.mu.Lock()
	b := s.budgets[key]
	if now.Sub(b.start) >= time.Hour {
		b = budget{start: now}
	}
	n := 0
	for _, m := range mints {
		if _, read := s.facts[m]; read || s.queue[m] {
			continue
		}
		if b.used >= s.cfg.KeyBudget {
			break
		}
		b.used++
		s.queue[m] = true
		n++
	}
	s.budgets[key] = b
	s.mu.Unlock()
	if n > 0 {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	return n
}

// Run calls Step now and every Tick, and reads queued mints when
// requested, until ctx ends. Without a Caller and without Demo it returns
// at once.
func (s *Service) Run(ctx context.Context) error {
	if s.cfg.Caller == nil && s.cfg.Demo == nil {
		return nil
	}
	t := time.NewTicker(s.cfg.Tick)
	defer t.Stop()
	s.Step(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			s.Step(ctx)
		case <-s.kick:
			s.ReadQueued(ctx)
		}
	}
}

// Step does what is due on this replica: nothing unless it leads (Leader);
// the leader stores the demo world's changed facts (Demo) and reads the
// scheduled mints when it has just become the leader or Interval has
// passed since its last scheduled read. It reports whether this replica
// led.
func (s *Service) Step(ctx context.Context) bool {
	s.stepMu.Lock()
	defer s.stepMu.Unlock()
	if s.cfg.Leader != nil && !s.cfg.Leader() {
		s.led = false
		return false
	}
	now := s.cfg.Now()
	if s.cfg.Demo != nil {
		if _, err := s.PutChanged(ctx, SourceDemo, s.cfg.Demo(now)...); err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("onchain: demo facts", "err", err)
		}
	}
	if s.cfg.Caller != nil && (!s.led || now.Sub(s.lastRead) >= s.cfg.Interval) {
		s.lastRead = now
		if err := s.Read(ctx, s.cfg.Scheduled(), s.cfg.Deep()); err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("onchain: scheduled read", "err", err)
		}
	}
	s.led = true
	return true
}

// ReadQueued reads the mints Request queued.
func (s *Service) ReadQueued(ctx context.Context) {
	s.mu.Lock()
	mints := make([]string, 0, len(s.queue))
	for m := range s.queue {
		mints = append(mints, m)
	}
	clear(s.queue)
	s.mu.Unlock()
	sort.Strings(mints)
	if err := s.Read(ctx, mints, nil); err != nil && ctx.Err() == nil {
		s.cfg.Log.Warn("onchain: on-demand read", "err", err)
	}
}

type multipleAccounts struct {
	Context struct {
		Slot uint64 `json:"slot"`
	} `json:"context"`
	Value []json.RawMessage `json:"value"`
}

// Read reads mints (getMultipleAccounts, jsonParsed, batches of 100), and
// for the deep ones also their Metaplex metadata and largest accounts,
// then stores the reads and the changes they make. A batch that fails is
// skipped (its mints keep their last read) and reported in the error.
func (s *Service) Read(ctx context.Context, mints, deep []string) error {
	if s.cfg.Caller == nil || len(mints) == 0 {
		return nil
	}
	deepSet := make(map[string]bool, len(deep))
	for _, m := range deep {
		deepSet[m] = true
	}
	var errs []error
	for start := 0; start < len(mints); start += BatchSize {
		batch := mints[start:min(start+BatchSize, len(mints))]
		if err := s.readBatch(ctx, batch, deepSet); err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil {
				break
			}
		}
	}
	return errors.Join(errs...)
}

func (s *Service) readBatch(ctx context.Context, batch []string, deep map[string]bool) error {
	var res multipleAccounts
	if err := s.cfg.Caller.Call(ctx, "getMultipleAccounts", []any{batch, map[string]any{"encoding": "jsonParsed", "commitment": "confirmed"}}, &res); err != nil {
		return fmt.Errorf("onchain: getMultipleAccounts: %w", err)
	}
	if len(res.Value) != len(batch) {
		return fmt.Errorf("onchain: getMultipleAccounts: %d values for %d mints", len(res.Value), len(batch))
	}
	reads := make(map[string]entry, len(batch))
	var deepMints []string
	for i, m := range batch {
		f, err := ParseAccountValue(m, res.Value[i], res.Context.Slot)
		switch {
		case errors.Is(err, ErrUnknownMint):
			reads[m] = entry{status: StatusUnknownMint}
		case err != nil:
			s.cfg.Log.Warn("onchain: mint account unreadable", "mint", m, "err", err)
		default:
			reads[m] = entry{status: StatusOK, facts: &f}
			if deep[m] {
				deepMints = append(deepMints, m)
			}
		}
	}
	if len(deepMints) > 0 {
		s.readDeep(ctx, deepMints, reads)
	}
	return s.commit(ctx, batch, reads)
}

// readDeep adds the Metaplex metadata and the top-10 share; a failure
// keeps the previous read of that part.
func (s *Service) readDeep(ctx context.Context, mints []string, reads map[string]entry) {
	addrs := make([]string, 0, len(mints))
	owners := make([]string, 0, len(mints))
	for _, m := range mints {
		if a, err := MetadataAddress(m); err == nil {
			addrs, owners = append(addrs, a), append(owners, m)
		}
	}
	var res multipleAccounts
	if len(addrs) > 0 {
		if err := s.cfg.Caller.Call(ctx, "getMultipleAccounts", []any{addrs, map[string]any{"encoding": "base64", "commitment": "confirmed"}}, &res); err != nil {
			s.cfg.Log.Warn("onchain: metadata accounts", "err", err)
		} else if len(res.Value) == len(addrs) {
			for i, a := range addrs {
				md, ok, err := ParseMetadataValue(a, res.Value[i], res.Context.Slot)
				if err != nil {
					s.cfg.Log.Warn("onchain: metadata unreadable", "mint", owners[i], "err", err)
				}
				if ok {
					reads[owners[i]].facts.Metadata = &md
				}
			}
		}
	}
	for _, m := range mints {
		var la LargestAccounts
		if err := s.cfg.Caller.Call(ctx, "getTokenLargestAccounts", []any{m, map[string]any{"commitment": "confirmed"}}, &la); err != nil {
			s.cfg.Log.Warn("onchain: largest accounts", "mint", m, "err", err)
			continue
		}
		if h, ok := TopShare(la, reads[m].facts.Supply, 10); ok {
			reads[m].facts.Holders = &h
		}
	}
	// Keep the previous deep parts where this read lacks them.
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, m := range mints {
		prev, f := s.facts[m].facts, reads[m].facts
		if prev == nil {
			continue
		}
		if f.Metadata == nil {
			f.Metadata = prev.Metadata
		}
		if f.Holders == nil {
			f.Holders = prev.Holders
		}
	}
}

// Put stores reads made elsewhere (the demo world's synthetic facts, a
// test's recorded account) as a read by source, with their changes.
func (s *Service) Put(ctx context.Context, source string, facts ...Facts) error {
	reads := make(map[string]entry, len(facts))
	mints := make([]string, 0, len(facts))
	for i := range facts {
		f := facts[i]
		reads[f.Mint] = entry{status: StatusOK, facts: &f}
		mints = append(mints, f.Mint)
	}
	return s.commitFrom(ctx, source, mints, reads)
}

// PutChanged stores, like Put, only those of facts that differ from the
// facts in memory (a new mint, or a changed fact; readings such as the
// slot or supply alone do not count), and returns how many it stored.
// The demo world's script calls it every Tick without rewriting the rest.
func (s *Service) PutChanged(ctx context.Context, source string, facts ...Facts) (int, error) {
	var changed []Facts
	s.mu.RLock()
	for i := range facts {
		prev, seen := s.facts[facts[i].Mint]
		if !seen || len(Diff(prev, entry{status: StatusOK, facts: &facts[i]})) > 0 {
			changed = append(changed, facts[i])
		}
	}
	s.mu.RUnlock()
	if len(changed) == 0 {
		return 0, nil
	}
	return len(changed), s.Put(ctx, source, changed...)
}

// PutUnknown stores that mints have no account.
func (s *Service) PutUnknown(ctx context.Context, source string, mints ...string) error {
	reads := make(map[string]entry, len(mints))
	for _, m := range mints {
		reads[m] = entry{status: StatusUnknownMint}
	}
	return s.commitFrom(ctx, source, mints, reads)
}

func (s *Service) commit(ctx context.Context, order []string, reads map[string]entry) error {
	return s.commitFrom(ctx, SourceChain, order, reads)
}

func (s *Service) commitFrom(ctx context.Context, source string, order []string, reads map[string]entry) error {
	now := s.cfg.Now().UnixMilli()
	rows := make([]storage.MintFacts, 0, len(reads))
	var changes []storage.MintChange
	s.mu.RLock()
	for _, m := range order {
		e, ok := reads[m]
		if !ok {
			continue
		}
		row := storage.MintFacts{Mint: m, Status: e.status, ReadAt: now}
		var slot uint64
		if e.facts != nil {
			b, err := json.Marshal(e.facts)
			if err != nil {
				s.mu.RUnlock()
				return fmt.Errorf("onchain: encode facts of %s: %w", m, err)
			}
			row.Facts, slot = b, e.facts.Slot
			row.Slot = int64(slot)
		}
		rows = append(rows, row)
		if prev, seen := s.facts[m]; seen {
			for _, d := range Diff(prev, e) {
				changes = append(changes, storage.MintChange{Mint: m, Field: d.Field, Old: d.Old, New: d.New, Slot: int64(slot), At: now, Source: source})
			}
		}
	}
	s.mu.RUnlock()
	if s.cfg.Store != nil {
		if err := s.cfg.Store.PutMintFacts(ctx, rows, changes); err != nil {
			return fmt.Errorf("onchain: store reads: %w", err)
		}
	}
	s.mu.Lock()
	for m, e := range reads {
		s.facts[m] = e
	}
	s.mu.Unlock()
	s.version.Add(1)
	return nil
}

// Change is one changed fact.
type Change struct {
	Field, Old, New string
}

// Diff lists the facts that differ between two reads, as dotted field
// names with JSON values ("" for absent). Supply, the withheld fee amount,
// the holder share and the slots are readings, not facts, and are not
// logged.
func Diff(prev, next entry) []Change {
	a, b := flatten(prev), flatten(next)
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []Change
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, Change{Field: k, Old: a[k], New: b[k]})
		}
	}
	return out
}

var notLogged = map[string]bool{
	"slot": true, "supply": true, "holders": true, "metadata.slot": true,
	"extensions.transferFeeConfig.withheldAmount": true, "mint": true,
}

func flatten(e entry) map[string]string {
	out := map[string]string{"status": `"` + e.status + `"`}
	if e.facts == nil {
		return out
	}
	b, err := json.Marshal(e.facts)
	if err != nil {
		return out
	}
	var v map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return out
	}
	// Authorities are null when unset: keep them as explicit leaves.
	walk("", v, out)
	return out
}

func walk(prefix string, v any, out map[string]string) {
	if notLogged[prefix] {
		return
	}
	if m, ok := v.(map[string]any); ok {
		for k, c := range m {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			walk(p, c, out)
		}
		return
	}
	b, _ := json.Marshal(v)
	out[prefix] = string(b)
}

// Changes returns the change log of mints (all when empty), newest first.
func (s *Service) Changes(ctx context.Context, mints []string, since, before int64, limit int) ([]storage.MintChange, error) {
	if s.cfg.Store == nil {
		return []storage.MintChange{}, nil
	}
	return s.cfg.Store.MintChanges(ctx, mints, since, before, limit)
}
