package main

import (
	"net"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/assetd/assetd/internal/yellowstone"
	"github.com/assetd/assetd/internal/yellowstone/geyserpb"
)

// subscribeRecorder is a Yellowstone endpoint that reports the first
// subscription it receives and then keeps the stream open.
type subscribeRecorder struct {
	geyserpb.UnimplementedGeyserServer
	got chan subscription
}

type subscription struct {
	req   *geyserpb.SubscribeRequest
	token []string
}

func (r *subscribeRecorder) Subscribe(stream grpc.BidiStreamingServer[geyserpb.SubscribeRequest, geyserpb.SubscribeUpdate]) error {
	req, err := stream.Recv()
	if err != nil {
		return err
	}
	md, _ := metadata.FromIncomingContext(stream.Context())
	select {
	case r.got <- subscription{req: req, token: md.Get("x-token")}:
	default:
	}
	<-stream.Context().Done()
	return nil
}

// TestServeSubscribesToYellowstone: serve with --yellowstone-url opens the
// subscription, with the token as x-token and the DEX program filter.
func TestServeSubscribesToYellowstone(t *testing.T) {
	rec, addr := recordingGeyser(t)

	s := startServer(t, "--data-dir", t.TempDir(), "--yellowstone-url", "http://"+addr, "--yellowstone-token", "tok-123")
	defer s.stop()
	select {
	case sub := <-rec.got:
		if !slices.Equal(sub.token, []string{"tok-123"}) {
			t.Errorf("x-token %v", sub.token)
		}
		if f := sub.req.GetTransactions()["assetd_dex"]; f == nil || !slices.Equal(f.GetAccountInclude(), yellowstone.DEXPrograms) {
			t.Errorf("transaction filter %v", f)
		}
		if sub.req.FromSlot != nil { // an empty cursor, --solana-start-slot latest: the live tip
			t.Errorf("from_slot %d on an empty cursor", sub.req.GetFromSlot())
		}
	case <-time.After(eventuallyDeadline):
		t.Fatal("serve never subscribed")
	}
}

// TestServeYellowstoneStartsAtTheStartSlot: an empty stream cursor with
// --solana-start-slot N subscribes with from_slot N (a stored cursor
// would win: internal/yellowstone's cursor tests).
func TestServeYellowstoneStartsAtTheStartSlot(t *testing.T) {
	rec, addr := recordingGeyser(t)

	s := startServer(t, "--data-dir", t.TempDir(), "--yellowstone-url", "http://"+addr, "--solana-start-slot", "398202772")
	defer s.stop()
	select {
	case sub := <-rec.got:
		if sub.req.FromSlot == nil || sub.req.GetFromSlot() != 398202772 {
			t.Errorf("from_slot %v, want 398202772", sub.req.FromSlot)
		}
	case <-time.After(eventuallyDeadline):
		t.Fatal("serve never subscribed")
	}
}

// recordingGeyser serves a Geyser endpoint recording its subscriptions
// until the test ends; it returns the recorder and the address.
func recordingGeyser(t *testing.T) (*subscribeRecorder, string) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &subscribeRecorder{got: make(chan subscription, 1)}
	gs := grpc.NewServer()
	geyserpb.RegisterGeyserServer(gs, rec)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	return rec, lis.Addr().String()
}
