package chainsource

import (
	"maps"
	"slices"
	"time"

	"github.com/assetd/assetd/internal/storage"
)

// States of a source.
const (
	StateOff        = "off"
	StateFollowing  = "following"
	StateCatchingUp = "catching_up"
	StateStalled    = "stalled"
)

// FollowingLag is the lag (slots) up to which a source is following;
// beyond it, catching up. StallAfter is how long without a successful
// step makes it stalled.
const (
	FollowingLag = 150
	StallAfter   = time.Minute
)

// Status is the operator's view of a source (GET
// /v1/internal/trades/source, the Prometheus metrics).
type Status struct {
	Source                string              `json:"source"`
	State                 string              `json:"state"`
	HeadSlot              int64               `json:"headSlot"`
	ContiguousThroughSlot int64               `json:"contiguousThroughSlot"`
	LagSlots              int64               `json:"lagSlots"`
	LagSeconds            float64             `json:"lagSeconds"`
	Gaps                  []storage.SourceGap `json:"gaps"`
	Blocks                struct {
		Fetched int64 `json:"fetched"`
		Skipped int64 `json:"skipped"`
		Failed  int64 `json:"failed"`
	} `json:"blocks"`
	Transactions struct {
		Seen     int64 `json:"seen"`
		Failed   int64 `json:"failed"`
		WithLegs int64 `json:"withLegs"`
	} `json:"transactions"`
	Programs []ProgramCount `json:"programs"`
	Trades   struct {
		Emitted    int64            `json:"emitted"`
		Duplicates int64            `json:"duplicates"`
		Rejected   map[string]int64 `json:"rejected"`
	} `json:"trades"`
	// LastError is the last failed step's error ("" after a success).
	LastError string `json:"lastError,omitempty"`
	// Websocket is the slotSubscribe socket's state (connected or
	// disconnected; omitted without --solana-ws-url).
	Websocket string `json:"websocket,omitempty"`

	programs map[string]*ProgramCount
}

// MaxPrograms bounds the programs counted one by one; OtherPrograms is
// the row of the rest.
const (
	MaxPrograms   = 256
	OtherPrograms = "other"
)

// ProgramCount counts one program's legs and trades.
type ProgramCount struct {
	Program  string `json:"program"`
	Venue    string `json:"venue,omitempty"`
	Decoded  int64  `json:"decoded"`
	Stable   int64  `json:"stable"`
	Unparsed int64  `json:"unparsed"`
}

func newStatus(name string) Status {
	st := Status{Source: name, State: StateOff, programs: map[string]*ProgramCount{}}
	st.Trades.Rejected = map[string]int64{}
	return st
}

// program returns the count of program (callers hold mu).
//
// The unparsed programs are whatever moves tokens on chain: past
// MaxPrograms distinct ids, new ones are counted together under
// OtherPrograms, so the map (and the status, the metric series) stays
// bounded however long the source follows.
func (s *Source) program(id, venue string) *ProgramCount {
	p := s.stats.programs[id]
	if p == nil && len(s.stats.programs) >= MaxPrograms {
		id, venue = OtherPrograms, ""
		p = s.stats.programs[id]
	}
	if p == nil {
		p = &ProgramCount{Program: id}
		s.stats.programs[id] = p
	}
	if venue != "" {
		p.Venue = venue
	}
	return p
}

func (s *Source) noteStep(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil && err != ErrDone {
		s.stats.LastError = err.Error()
		return
	}
	s.stats.LastError = ""
	if !s.cfg.Pushed { // a streaming source is alive when its slots arrive
		s.lastOK = s.cfg.Clock()
	}
}

// Status returns a copy of the source's status now.
func (s *Source) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.programs = nil
	st.Trades.Rejected = maps.Clone(s.stats.Trades.Rejected)
	st.Programs = make([]ProgramCount, 0, len(s.stats.programs))
	for _, p := range s.stats.programs {
		st.Programs = append(st.Programs, *p)
	}
	slices.SortFunc(st.Programs, func(a, b ProgramCount) int {
		if a.Program < b.Program {
			return -1
		}
		if a.Program > b.Program {
			return 1
		}
		return 0
	})
	if st.LastError == "" {
		st.LastError = s.streamErr
	}
	st.Websocket = s.websocketState()
	st.Gaps = slices.Clone(s.cur.Gaps)
	if st.Gaps == nil {
		st.Gaps = []storage.SourceGap{}
	}
	if !s.active {
		st.State = StateOff
		return st
	}
	st.ContiguousThroughSlot = s.cur.Through
	st.LagSlots = max(0, st.HeadSlot-s.cur.Through)
	now := s.cfg.Clock()
	if s.lastBT > 0 {
		st.LagSeconds = max(0, float64(now.Unix()-s.lastBT))
	}
	switch {
	case s.lastOK.IsZero() || now.Sub(s.lastOK) > StallAfter:
		st.State = StateStalled
	case st.LagSlots > FollowingLag:
		st.State = StateCatchingUp
	default:
		st.State = StateFollowing
	}
	return st
}

// Off is the status when no trade source is configured.
func Off() Status {
	st := newStatus("none")
	st.Gaps = []storage.SourceGap{}
	st.Programs = []ProgramCount{}
	return st
}
