package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// The stream resumes with Last-Event-ID after a dropped connection and
// after an overflow, hands every event over once, and reports a reset.
func TestStreamResumes(t *testing.T) {
	var mu sync.Mutex
	var seen []string // Last-Event-ID of each connection
	conn := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		conn++
		n := conn
		seen = append(seen, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		if r.URL.Query().Get("topics") != "trending,depeg" || r.Header.Get("X-Api-Key") != "k" {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		msg := func(id int) string {
			return fmt.Sprintf("id: %d\nevent: trending\ndata: {\"id\":%d,\"type\":\"trending\",\"topic\":\"trending\",\"time\":\"2026-11-21T12:00:00Z\",\"data\":{}}\n\n", id, id)
		}
		switch n {
		case 1: // two events, then the connection drops
			fmt.Fprint(w, ": heartbeat\n\n"+msg(1)+msg(2))
		case 2: // one more, then an overflow
			fmt.Fprint(w, msg(3)+"event: overflow\ndata: {\"lastEventId\":\"3\"}\n\n")
		case 3: // a reset to 10, then 11
			fmt.Fprint(w, "id: 10\nevent: reset\ndata: {\"lastEventId\":\"10\"}\n\n"+msg(11))
		default:
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"error":{"_tag":"ForbiddenError","message":"no","details":{"code":"insufficient_scope"}}}`)
		}
	}))
	defer srv.Close()
	c, _ := New(srv.URL, "k", WithSleeper(func(ctx context.Context, d time.Duration) error { return nil }))
	var ids []uint64
	var resets []string
	err := c.Stream(context.Background(), []string{"trending", "depeg"}, &StreamOptions{OnReset: func(id string) { resets = append(resets, id) }},
		func(e StreamEvent) error { ids = append(ids, e.ID); return nil })
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Status != 403 {
		t.Fatalf("end: %v", err)
	}
	if fmt.Sprint(ids) != "[1 2 3 11]" || fmt.Sprint(resets) != "[10]" || fmt.Sprint(seen) != "[ 2 3 11]" {
		t.Fatalf("ids %v resets %v Last-Event-IDs %q", ids, resets, seen)
	}
	// The callback's error ends the stream.
	mu.Lock()
	conn = 0
	mu.Unlock()
	stop := errors.New("enough")
	if err := c.Stream(context.Background(), []string{"trending", "depeg"}, nil, func(StreamEvent) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("callback error: %v", err)
	}
}
