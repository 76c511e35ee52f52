package logbuf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// flaky fails while fail is set, and records what it was given otherwise.
type flaky struct {
	bytes.Buffer
	fail bool
}

func (f *flaky) Write(p []byte) (int, error) {
	if f.fail {
		return 0, errors.New("disk full")
	}
	return f.Buffer.Write(p)
}

func TestWriterBuffersUntilSizeOrFlush(t *testing.T) {
	var out flaky
	w := New(&out, Options{Size: 16})
	_, _ = w.Write([]byte("a=1\n"))
	_, _ = w.Write([]byte("b=2\n"))
	if out.Len() != 0 {
		t.Fatalf("written before the size: %q", out.String())
	}
	_, _ = w.Write([]byte("c=3333333333\n"))
	if got := out.String(); got != "a=1\nb=2\nc=3333333333\n" {
		t.Fatalf("after reaching the size: %q", got)
	}
	_, _ = w.Write([]byte("d=4\n"))
	if err := w.Flush(); err != nil || out.String() != "a=1\nb=2\nc=3333333333\nd=4\n" {
		t.Fatalf("flush: %v %q", err, out.String())
	}
}

func TestSyncWritesBufferedLinesFirst(t *testing.T) {
	var out flaky
	w := New(&out, Options{Size: 1 << 10})
	_, _ = w.Write([]byte("info\n"))
	if _, err := w.Sync().Write([]byte("error\n")); err != nil {
		t.Fatal(err)
	}
	if out.String() != "info\nerror\n" {
		t.Fatalf("got %q", out.String())
	}
}

func TestWriteErrorsAreKeptAndRetried(t *testing.T) {
	out := flaky{fail: true}
	w := New(&out, Options{Size: 1 << 10})
	_, _ = w.Write([]byte("one\n"))
	if err := w.Flush(); err == nil {
		t.Fatal("flush to a failing writer succeeded")
	}
	if _, err := w.Sync().Write([]byte("two\n")); err == nil {
		t.Fatal("sync write to a failing writer succeeded")
	}
	out.fail = false
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "one\ntwo\n" {
		t.Fatalf("retried lines: %q", out.String())
	}
	if w.Err() == nil {
		t.Error("Err forgot the failure")
	}
}

func TestDiscardedPastMaxBufferedIsReported(t *testing.T) {
	out := flaky{fail: true}
	w := New(&out, Options{Size: 8, MaxBuffered: 8})
	_, _ = w.Write([]byte("0123456789\n"))
	_, _ = w.Write([]byte("abcdefgh\n"))
	out.fail = false
	err := w.Close()
	var d *DiscardedError
	if !errors.As(err, &d) || d.Bytes == 0 {
		t.Fatalf("close: %v", err)
	}
	if !strings.HasSuffix(out.String(), "\n") || out.Len() != 8 {
		t.Fatalf("kept %q", out.String())
	}
	// After Close, writes go straight through.
	_, _ = w.Write([]byte("late\n"))
	if !strings.HasSuffix(out.String(), "late\n") {
		t.Fatalf("write after close: %q", out.String())
	}
}

func TestRunFlushesWhenItsContextEnds(t *testing.T) {
	var out flaky
	w := New(&out, Options{Size: 1 << 10, Interval: 1 << 40})
	_, _ = w.Write([]byte("pending\n"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	cancel()
	<-done
	if out.String() != "pending\n" {
		t.Fatalf("got %q", out.String())
	}
}

func TestHandlerWritesWarningsAtOnce(t *testing.T) {
	var out flaky
	w := New(&out, Options{Size: 1 << 10})
	log := slog.New(NewHandler(w, slog.LevelWarn, func(w io.Writer) slog.Handler {
		return slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}})
	})).With("svc", "x")
	log.Info("request", "status", 200)
	if out.Len() != 0 {
		t.Fatalf("info written at once: %q", out.String())
	}
	log.Error("failed")
	want := "level=INFO msg=request svc=x status=200\nlevel=ERROR msg=failed svc=x\n"
	if out.String() != want {
		t.Fatalf("got %q\nwant %q", out.String(), want)
	}
}

// BenchmarkAccessLine: one access-log line through slog, written per line
// to the writer or buffered.
func BenchmarkAccessLine(b *testing.B) {
	for _, bc := range []struct {
		name string
		mk   func(io.Writer) slog.Handler
	}{
		{"direct", func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) }},
		{"logbuf", func(w io.Writer) slog.Handler {
			return NewHandler(New(w, Options{}), slog.LevelWarn, func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) })
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			// Every Write to the underlying writer counts as one syscall.
			var calls int
			log := slog.New(bc.mk(countWriter{&calls}))
			b.ReportAllocs()
			for b.Loop() {
				log.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("route", "GET /v1/assets/{assetId}"),
					slog.Int("status", 200))
			}
			b.ReportMetric(float64(calls)/float64(b.N), "writes/op")
		})
	}
}

type countWriter struct{ n *int }

func (c countWriter) Write(p []byte) (int, error) { *c.n++; return len(p), nil }
