// Package clustertest starts N replicas of the real assetd binary on
// loopback ports against PostgreSQL (a fresh schema per run), and, when
// given, Redis (a fresh key prefix per run) and NATS (a fresh subject and
// stream prefix per run); it stops them and cleans up. bench/cluster is
// its command-line front end and the acceptance tests in bench/cluster use
// it directly.
package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	goredis "github.com/redis/go-redis/v9"
)

// Config describes a cluster.
type Config struct {
	Replicas int
	// Binary is a built assetd; empty builds ./cmd/assetd of this module.
	Binary string
	// DatabaseURL is required: a fresh schema is created in it.
	DatabaseURL string
	// RedisURL and NATSURL are optional (--redis-url, --nats-url).
	RedisURL string
	NATSURL  string
	// Args are extra `assetd serve` arguments of every replica.
	Args []string
	// ReplicaArgs, when set, gives replica i's own extra arguments (after
	// Args), e.g. an upstream of its own so a test can tell who called it.
	ReplicaArgs func(i int) []string
	// Dir holds the binary and logs (default: a new temporary directory,
	// removed by Close unless Keep).
	Dir  string
	Keep bool
	// StartTimeout bounds one replica's start (default 2 minutes).
	StartTimeout time.Duration
}

// Cluster is a running set of replicas sharing one store.
type Cluster struct {
	cfg      Config
	ownDir   bool
	Dir      string
	Bin      string
	Schema   string // PostgreSQL schema of this run
	Prefix   string // Redis key prefix and NATS prefix of this run
	storeArg []string
	Replicas []*Replica
}

// Replica is one assetd serve process.
type Replica struct {
	Index   int
	Addr    string // host:port of the API, known once started
	LogPath string
	Args    []string // this replica's own extra serve arguments

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// Base is the replica's base URL.
func (r *Replica) Base() string { return "http://" + r.Addr }

// Running says whether the process is alive.
func (r *Replica) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return false
	}
	select {
	case <-r.exited:
		return false
	default:
		return true
	}
}

// Build compiles ./cmd/assetd of the module containing the working
// directory into dir and returns the binary's path.
func Build(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		return "", fmt.Errorf("clustertest: not inside the assetd module: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(dir, "assetd")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/assetd")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("clustertest: go build ./cmd/assetd: %w\n%s", err, b)
	}
	return bin, nil
}

func randomID() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// New prepares a cluster (binary, schema, prefix) without starting it.
func New(ctx context.Context, cfg Config) (*Cluster, error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("clustertest: a PostgreSQL URL is required")
	}
	if cfg.Replicas <= 0 {
		cfg.Replicas = 3
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 2 * time.Minute
	}
	c := &Cluster{cfg: cfg, Dir: cfg.Dir}
	if c.Dir == "" {
		d, err := os.MkdirTemp("", "assetd-cluster-")
		if err != nil {
			return nil, err
		}
		c.Dir, c.ownDir = d, true
	}
	id := randomID()
	c.Schema = "assetd_cluster_" + id
	c.Prefix = "assetdc" + id
	c.Bin = cfg.Binary
	if c.Bin == "" {
		bin, err := Build(ctx, c.Dir)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Bin = bin
	}
	conn, err := pgx.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("clustertest: postgres: %w", err)
	}
	_, err = conn.Exec(ctx, `CREATE SCHEMA `+c.Schema)
	conn.Close(ctx)
	if err != nil {
		c.Schema = ""
		c.Close()
		return nil, fmt.Errorf("clustertest: create schema: %w", err)
	}
	u, err := url.Parse(cfg.DatabaseURL)
	if err != nil {
		c.Close()
		return nil, err
	}
	q := u.Query()
	q.Set("search_path", c.Schema)
	u.RawQuery = q.Encode()
	c.storeArg = []string{"--database-url", u.String()}
	if cfg.NATSURL != "" {
		c.storeArg = append(c.storeArg, "--nats-url", cfg.NATSURL, "--nats-prefix", c.Prefix)
	}
	for i := range cfg.Replicas {
		r := &Replica{Index: i, LogPath: filepath.Join(c.Dir, fmt.Sprintf("replica-%d.log", i))}
		if cfg.ReplicaArgs != nil {
			r.Args = cfg.ReplicaArgs(i)
		}
		c.Replicas = append(c.Replicas, r)
	}
	return c, nil
}

// Start prepares a cluster and starts every replica (concurrently).
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	c, err := New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(c.Replicas))
	var wg sync.WaitGroup
	for i := range c.Replicas {
		wg.Go(func() { errs[i] = c.StartReplica(ctx, i) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// StoreArgs are the store flags of this run (for CLI commands).
func (c *Cluster) StoreArgs() []string { return append([]string(nil), c.storeArg...) }

// CLI runs an assetd subcommand against the cluster's store and returns
// its standard output.
func (c *Cluster) CLI(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.Bin, append(args, c.storeArg...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("assetd %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// ServeArgs are the arguments replica i is started with.
func (c *Cluster) ServeArgs(i int) []string {
	args := []string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}
	args = append(args, c.storeArg...)
	if c.cfg.RedisURL != "" {
		args = append(args, "--redis-url", c.cfg.RedisURL, "--redis-prefix", c.Prefix+":")
	}
	args = append(args, c.cfg.Args...)
	return append(args, c.Replicas[i].Args...)
}

// StartReplica starts (or restarts) replica i and waits until its API
// answers /v1/health. Its address is read from its "assetd listening" log
// line (--addr 127.0.0.1:0), so no port is guessed.
func (c *Cluster) StartReplica(ctx context.Context, i int) error {
	r := c.Replicas[i]
	logf, err := os.OpenFile(r.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.Bin, c.ServeArgs(i)...)
	pr, pw := io.Pipe()
	cmd.Stdout = logf
	cmd.Stderr = io.MultiWriter(logf, pw)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("replica %d: %w", i, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); pw.Close(); logf.Close(); close(exited) }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		sent := false
		for sc.Scan() {
			if sent {
				continue // keep draining so the process never blocks on stderr
			}
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "assetd listening" {
				addr <- line.Addr
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	r.mu.Lock()
	r.cmd, r.exited = cmd, exited
	r.mu.Unlock()
	deadline := time.NewTimer(c.cfg.StartTimeout)
	defer deadline.Stop()
	select {
	case a := <-addr:
		r.mu.Lock()
		r.Addr = a
		r.mu.Unlock()
	case <-exited:
		return fmt.Errorf("replica %d exited during start (log %s)", i, r.LogPath)
	case <-deadline.C:
		r.Kill()
		return fmt.Errorf("replica %d did not listen within %s (log %s)", i, c.cfg.StartTimeout, r.LogPath)
	case <-ctx.Done():
		r.Kill()
		return ctx.Err()
	}
	client := &http.Client{Timeout: 5 * time.Second}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := client.Get(r.Base() + "/v1/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-tick.C:
		case <-exited:
			return fmt.Errorf("replica %d exited during start (log %s)", i, r.LogPath)
		case <-deadline.C:
			r.Kill()
			return fmt.Errorf("replica %d not healthy within %s (log %s)", i, c.cfg.StartTimeout, r.LogPath)
		case <-ctx.Done():
			r.Kill()
			return ctx.Err()
		}
	}
}

// Kill sends SIGKILL (kill -9) and waits for the process to end.
func (r *Replica) Kill() { r.signal(syscall.SIGKILL) }

// Stop sends SIGTERM and waits for a graceful shutdown.
func (r *Replica) Stop() { r.signal(syscall.SIGTERM) }

func (r *Replica) signal(sig syscall.Signal) {
	r.mu.Lock()
	cmd, exited := r.cmd, r.exited
	r.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	<-exited
}

// Logs returns the replica's log so far.
func (r *Replica) Logs() string {
	b, _ := os.ReadFile(r.LogPath)
	return string(b)
}

// Close kills every replica, drops the schema and the run's Redis keys,
// and removes the temporary directory (unless Keep).
func (c *Cluster) Close() {
	for _, r := range c.Replicas {
		r.Kill()
	}
	if c.cfg.Keep {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c.Schema != "" {
		if conn, err := pgx.Connect(ctx, c.cfg.DatabaseURL); err == nil {
			_, _ = conn.Exec(ctx, `DROP SCHEMA `+c.Schema+` CASCADE`)
			conn.Close(ctx)
		}
	}
	if c.cfg.RedisURL != "" {
		if opt, err := goredis.ParseURL(c.cfg.RedisURL); err == nil {
			rdb := goredis.NewClient(opt)
			iter := rdb.Scan(ctx, 0, c.Prefix+":*", 500).Iterator()
			var keys []string
			for iter.Next(ctx) {
				keys = append(keys, iter.Val())
			}
			if len(keys) > 0 {
				_ = rdb.Del(ctx, keys...).Err()
			}
			_ = rdb.Close()
		}
	}
	if c.cfg.NATSURL != "" {
		deleteStreams(ctx, c.cfg.NATSURL, c.Prefix)
	}
	if c.ownDir {
		_ = os.RemoveAll(c.Dir)
	}
}

// deleteStreams removes the JetStream streams (and KV buckets, which are
// streams) whose name contains the run's prefix (any case: the trade
// stream's name is the prefix upper-cased).
func deleteStreams(ctx context.Context, natsURL, prefix string) {
	nc, err := nats.Connect(natsURL, nats.Timeout(5*time.Second))
	if err != nil {
		return
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return
	}
	names := js.StreamNames(ctx)
	var mine []string
	for n := range names.Name() {
		if strings.Contains(strings.ToLower(n), strings.ToLower(prefix)) {
			mine = append(mine, n)
		}
	}
	for _, n := range mine {
		_ = js.DeleteStream(ctx, n)
	}
}
