package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// streamConn is one GET /v1/stream connection of a replica.
type streamConn struct {
	t      *testing.T
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

func openStream(t *testing.T, s *server, key, query, lastEventID string) *streamConn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a hang guard
	req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/v1/stream?"+query, nil)
	req.Header.Set("X-Api-Key", key)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	c := &streamConn{t: t, resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(c.close)
	return c
}

func (c *streamConn) close() { c.cancel(); c.resp.Body.Close() }

type streamedEvent struct {
	ID    uint64          `json:"id"`
	Type  string          `json:"type"`
	Topic string          `json:"topic"`
	Data  json.RawMessage `json:"data"`
}

// next returns the next event (heartbeats skipped).
func (c *streamConn) next() streamedEvent {
	c.t.Helper()
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("stream ended: %v", err)
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var e streamedEvent
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				c.t.Fatalf("event %q: %v", data, err)
			}
			return e
		}
	}
}

// advisoryOf is an advisory event's mint and action.
func advisoryOf(t *testing.T, e streamedEvent) string {
	t.Helper()
	var d struct{ Mint, Action string }
	if e.Type != "advisory" || json.Unmarshal(e.Data, &d) != nil {
		t.Fatalf("not an advisory event: %+v", e)
	}
	return d.Mint + ":" + d.Action
}

// The acceptance of issue #32 across replicas: three replicas on one
// JetStream event log; a client reading advisories on replica A
// disconnects while advisories change, then resumes on replica B with
// Last-Event-ID and gets exactly the events it missed (no gap, no
// duplicate), although every replica (no Redis lease) produced them.
func TestClusterStreamResumesAcrossReplicas(t *testing.T) {
	c := startNATSCluster(t)
	key := strings.TrimSpace(c.cli(t, "keys", "create", "--project", "stream"))
	const (
		mintA = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" // USDC: registry mints, synthetic advisories
		mintB = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCecBCAj9fH" // USDT
	)
	for _, r := range c.replicas {
		eventually(t, time.Minute, "the key on every replica", func() bool {
			return status(r.base, "/v1/health", key) == 200 && status(r.base, "/v1/advisories/current", key) == 200
		})
	}
	a := openStream(t, c.replicas[0], key, "topics=advisories", "")
	c.cli(t, "advisories", "set", mintA, "--status", "caution", "--reason", "stream test (synthetic)")
	first := a.next()
	if got := advisoryOf(t, first); got != mintA+":set" {
		t.Fatalf("first event %s", got)
	}
	a.close()
	// Disconnected: two more changes.
	c.cli(t, "advisories", "set", mintB, "--status", "caution", "--reason", "stream test (synthetic)")
	c.cli(t, "advisories", "clear", mintA)

	b := openStream(t, c.replicas[1], key, "topics=advisories", itoa(first.ID))
	e1, e2 := b.next(), b.next()
	if advisoryOf(t, e1) != mintB+":set" || advisoryOf(t, e2) != mintA+":lifted" || !(first.ID < e1.ID && e1.ID < e2.ID) {
		t.Fatalf("resumed on B after %d: %+v then %+v", first.ID, e1, e2)
	}
	// Replica C serves the same sequence, and each change was written once
	// although three replicas saw it.
	cc := openStream(t, c.replicas[2], key, "topics=advisories&since=0", "")
	for _, want := range []streamedEvent{first, e1, e2} {
		if got := cc.next(); got.ID != want.ID || advisoryOf(t, got) != advisoryOf(t, want) {
			t.Fatalf("replica C: %+v, want %+v", got, want)
		}
	}
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
