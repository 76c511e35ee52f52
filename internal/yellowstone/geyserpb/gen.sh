#!/bin/sh
# Regenerates the Go code of package geyserpb from the vendored Yellowstone
# .proto files in ./proto (see README.md for their source and licence).
#
#   ./gen.sh          regenerate geyser.pb.go, geyser_grpc.pb.go, solana-storage.pb.go
#   ./gen.sh --check  regenerate into a temp dir and fail if the committed files differ
#
# Tools: protoc from Debian's protobuf-compiler (3.21.12), the plugins pinned
# below, installed from the Go module proxy into a temporary GOBIN.
# --check exits 0 with a SKIP line when protoc is not installed, unless
# GEYSERPB_REQUIRE_PROTOC=1 is set.
set -eu

PROTOC_GEN_GO=google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC=google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
GOPKG=github.com/assetd/assetd/internal/yellowstone/geyserpb

here=$(cd "$(dirname "$0")" && pwd)
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

if ! command -v protoc >/dev/null 2>&1; then
	if [ "$check" = 1 ] && [ "${GEYSERPB_REQUIRE_PROTOC:-0}" != 1 ]; then
		echo "SKIP geyserpb staleness check: protoc not installed (apt-get install protobuf-compiler)"
		exit 0
	fi
	echo "gen.sh: protoc not found (apt-get install protobuf-compiler)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/bin" "$tmp/out"
for tool in "$PROTOC_GEN_GO" "$PROTOC_GEN_GO_GRPC"; do
	(cd "$tmp" && GOBIN="$tmp/bin" GOFLAGS= go install "$tool")
done

inc=""
[ -f /usr/include/google/protobuf/timestamp.proto ] && inc="-I/usr/include"

M="Mgeyser.proto=$GOPKG;geyserpb,Msolana-storage.proto=$GOPKG;geyserpb"
PATH="$tmp/bin:$PATH" protoc -I"$here/proto" $inc \
	--go_out="$tmp/out" --go_opt=paths=source_relative,"$M" \
	--go-grpc_out="$tmp/out" --go-grpc_opt=paths=source_relative,"$M" \
	geyser.proto solana-storage.proto

if [ "$check" = 1 ]; then
	# The header line naming the protoc version is ignored, so a CI image
	# with another protoc release does not report the files as stale.
	status=0
	for f in "$tmp"/out/*.go; do
		name=$(basename "$f")
		if ! diff -u -I "^//.*[[:space:]]protoc[[:space:]][[:space:]]*v" "$here/$name" "$f"; then
			status=1
		fi
	done
	for f in "$here"/*.pb.go; do
		[ -f "$tmp/out/$(basename "$f")" ] || { echo "stale extra file: $f" >&2; status=1; }
	done
	if [ "$status" != 0 ]; then
		echo "geyserpb is stale: run internal/yellowstone/geyserpb/gen.sh" >&2
		exit 1
	fi
	echo "geyserpb: generated code is up to date"
	exit 0
fi

rm -f "$here"/*.pb.go
cp "$tmp"/out/*.go "$here"/
