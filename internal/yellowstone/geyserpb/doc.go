// Package geyserpb is the Go code generated from rpcpool/yellowstone-grpc's
// geyser.proto and solana-storage.proto (Apache-2.0; the vendored sources,
// their commits and the licence are in ./proto and README.md). Only the
// generated *.pb.go files and this file are Go; do not edit the generated
// files, run gen.sh (or go generate) instead. gen.sh --check is the CI
// staleness check.
package geyserpb

//go:generate sh gen.sh
