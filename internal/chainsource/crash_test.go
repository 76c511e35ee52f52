package chainsource

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/assetd/assetd/internal/analytics"
	"github.com/assetd/assetd/internal/ingest"
	"github.com/assetd/assetd/internal/solanarpc"
	"github.com/assetd/assetd/internal/storage/sqlite"
)

// TestCrashChild is the process TestSourceKill9 kills: the source over
// the SQLite store in $CHAINSOURCE_CHILD_DIR, following the test chain at
// $CHAINSOURCE_CHILD_RPC through slot 112 with the fake decoder.
func TestCrashChild(t *testing.T) {
	dir, rpcURL := os.Getenv("CHAINSOURCE_CHILD_DIR"), os.Getenv("CHAINSOURCE_CHILD_RPC")
	if dir == "" {
		t.Skip("run by TestSourceKill9")
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	eng, _ := analytics.New(analytics.Config{NoDedupe: true, MaxFutureSkew: 24 * time.Hour})
	in, err := ingest.New(eng, st, ingest.Config{StoreOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	src := New(Config{RPC: solanarpc.New(rpcURL, solanarpc.Options{RPS: -1}), Store: st, Ingest: in, Decode: fakeDecode, Trades: fakeTrades,
		Start: 100, Stop: 112, Batch: 2, Window: 5, Poll: time.Millisecond, GapBackoff: time.Millisecond})
	if err := src.Run(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestSourceKill9 runs the source in a child process, SIGKILLs it while it
// holds fetched but uncommitted blocks (the chain answers getBlock 110
// only after the kill), restarts it, and checks the stored trades equal
// the expected set exactly: 0 lost, 0 duplicates.
func TestSourceKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	txs := loadRecorded(t)
	w := newWorld(t, txs)
	reached, release := make(chan struct{}), make(chan struct{})
	var held atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		// Peek at the method without consuming the body for the chain.
		var req struct {
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		body, _ := readAll(r)
		json.Unmarshal(body, &req)
		if req.Method == "getBlock" && string(req.Params[0]) == "110" && held.CompareAndSwap(false, true) {
			close(reached)
			<-release
			http.Error(rw, "gone", http.StatusServiceUnavailable)
			return
		}
		r.Body = nopCloser(body)
		w.chain.ServeHTTP(rw, r)
	}))
	t.Cleanup(srv.Close)
	child := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CHAINSOURCE_CHILD_DIR="+w.dir, "CHAINSOURCE_CHILD_RPC="+srv.URL)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	first := child()
	select {
	case <-reached:
	case <-time.After(2 * time.Minute):
		first.Process.Kill()
		t.Fatal("the child never asked for slot 110")
	}
	first.Process.Signal(syscall.SIGKILL)
	first.Wait()
	close(release)

	st, err := sqlite.Open(context.Background(), w.dir)
	if err != nil {
		t.Fatal(err)
	}
	cur, _, err := st.SourceCursor(context.Background(), "solana-rpc")
	if err != nil || cur.Frontier >= 110 {
		t.Fatalf("after the kill the cursor is %+v (%v): the crash was not mid-stream", cur, err)
	}
	before := storedSigs(t, st)
	st.Close()

	second := child()
	if err := second.Wait(); err != nil {
		t.Fatalf("restarted child: %v", err)
	}
	st, err = sqlite.Open(context.Background(), w.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var want []string
	for _, tx := range txs {
		want = append(want, tx.Sig+"/0")
	}
	slices.Sort(want)
	got := storedSigs(t, st)
	if !slices.Equal(got, want) {
		t.Fatalf("stored %d trades, want exactly %d:\n%v\n%v", len(got), len(want), got, want)
	}
	cur, _, _ = st.SourceCursor(context.Background(), "solana-rpc")
	if cur.Through != 112 || len(cur.Gaps) != 0 {
		t.Fatalf("final cursor %+v", cur)
	}
	t.Logf("killed with %d trades committed (cursor frontier %d); after the restart %d trades, 0 lost, 0 duplicates", len(before), cur.Frontier, len(got))
}

func readAll(r *http.Request) ([]byte, error) {
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

func nopCloser(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
