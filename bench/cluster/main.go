// Command cluster starts N replicas of the real assetd binary on loopback
// ports against the local PostgreSQL (a fresh schema), Redis (a fresh key
// prefix) and NATS (a fresh subject/stream prefix), prints their
// addresses, and on Ctrl-C (or after -for) stops them and cleans up.
// Run it from the repository root:
//
//	go run ./bench/cluster -n 3
//	go run ./bench/cluster -n 3 -redis-url '' -nats-url ''   # PostgreSQL only
//	go run ./bench/cluster -n 3 -- --demo                    # extra serve flags after --
//
// The acceptance tests of issue 18 (cluster_test.go here) use the same
// harness, internal/clustertest.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/assetd/assetd/internal/clustertest"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func run(args []string) error {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	n := fs.Int("n", 3, "replicas")
	db := fs.String("database-url", env("ASSETD_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "PostgreSQL URL; a fresh schema is created in it per run")
	redis := fs.String("redis-url", env("ASSETD_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"), "Redis URL (empty: none); a fresh key prefix per run")
	nats := fs.String("nats-url", env("ASSETD_TEST_NATS_URL", "nats://127.0.0.1:4222"), "NATS URL (empty: none); a fresh prefix per run")
	bin := fs.String("binary", "", "assetd binary (default: build ./cmd/assetd)")
	keep := fs.Bool("keep", false, "keep the schema, Redis keys, streams and logs")
	dur := fs.Duration("for", 0, "stop after this long (0: until Ctrl-C)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := clustertest.Start(ctx, clustertest.Config{Replicas: *n, Binary: *bin, DatabaseURL: *db, RedisURL: *redis,
		NATSURL: *nats, Args: fs.Args(), Keep: *keep})
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Printf("schema %s, prefix %s, logs in %s\n", c.Schema, c.Prefix, c.Dir)
	fmt.Printf("store flags for CLI commands: %s\n", strings.Join(c.StoreArgs(), " "))
	for _, r := range c.Replicas {
		fmt.Printf("replica %d  %s  (log %s)\n", r.Index, r.Base(), r.LogPath)
	}
	if *dur > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(*dur):
		}
	} else {
		<-ctx.Done()
	}
	fmt.Println("stopping")
	for _, r := range c.Replicas {
		r.Stop()
	}
	return nil
}
