#!/bin/sh
# Regenerates package assetdapi from the contract (api/openapi.yaml) with
# the oapi-codegen that go.mod pins (its tool directive), as
# `go generate ./client/assetdapi` does.
#
#   ./gen.sh          regenerate assetdapi.gen.go
#   ./gen.sh --check  regenerate into a temp dir and fail if the committed file differs
set -eu

here=$(cd "$(dirname "$0")" && pwd)
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$here"
sed "s|^output: .*|output: $tmp/assetdapi.gen.go|" oapi-codegen.yaml >"$tmp/config.yaml"
go tool oapi-codegen -config "$tmp/config.yaml" ../../api/openapi.yaml

if [ "$check" = 1 ]; then
	if ! diff -u assetdapi.gen.go "$tmp/assetdapi.gen.go" >"$tmp/diff"; then
		head -n 40 "$tmp/diff" >&2
		echo "client/assetdapi is stale: run go generate ./client/assetdapi (or client/assetdapi/gen.sh)" >&2
		exit 1
	fi
	echo "assetdapi: generated code is up to date"
	exit 0
fi
cp "$tmp/assetdapi.gen.go" assetdapi.gen.go
