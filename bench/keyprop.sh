#!/usr/bin/env bash
# bench/keyprop.sh: how long a key change takes to reach a running server.
#
#   bench/keyprop.sh [-n TRIALS] [-reload 500ms] [-bin path/to/assetd]
#
# Starts `assetd serve --demo` on a fresh SQLite data dir (the shipped
# --reload-interval unless -reload is given), then per trial: creates a key
# and waits for 200; regenerates it (`assetd keys regenerate`, the same
# apikey.Manager call as the dashboard's button) and measures the time from
# the command's return to the first 401 of the old key; replaces its
# successor's scopes by assets:ohlcv:read (`assetd keys scopes --set`, the
# store call of the dashboard's scopes form) and measures the time to the
# first 403 on a route needing assets:read. Polls every ~10 ms with curl,
# so figures carry ~10 ms of polling granularity. Prints every trial and
# min/median/max, with the load average.
set -euo pipefail

trials=10 reload=500ms bin=
while [ $# -gt 0 ]; do
	case $1 in
	-n) trials=$2 ;; -reload) reload=$2 ;; -bin) bin=$2 ;;
	*) echo "usage: $0 [-n TRIALS] [-reload DUR] [-bin ASSETD]" >&2; exit 2 ;;
	esac
	shift 2
done
command -v curl >/dev/null || { echo "keyprop: curl is required" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
work=$(mktemp -d)
if [ -z "$bin" ]; then
	bin=$work/assetd
	(cd "$root" && go build -o "$bin" ./cmd/assetd)
fi
port=$(free_port)
url=http://127.0.0.1:$port
"$bin" serve --demo --data-dir "$work/data" --addr 127.0.0.1:$port --reload-interval "$reload" >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 200); do curl -fs "$url/v1/health" >/dev/null && break; sleep 0.05; done

cli() { "$bin" "$@" --data-dir "$work/data" 2>/dev/null; }
status() { curl -s -o /dev/null -w '%{http_code}' -H "x-api-key: $1" "$url/v1/assets/resolve?ref=solana"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# wait_for KEY STATUS: milliseconds until KEY answers STATUS.
wait_for() {
	local t0 s
	t0=$(now_ms)
	for _ in $(seq 3000); do
		s=$(status "$1")
		[ "$s" = "$2" ] && { echo $(($(now_ms) - t0)); return; }
		sleep 0.01
	done
	echo "timeout"
}
stats() { sort -n | awk '{a[NR]=$1} END {printf "min %d ms, median %d ms, max %d ms (n=%d)\n", a[1], a[int((NR+1)/2)], a[NR], NR}'; }

regen=() scope=()
for i in $(seq "$trials"); do
	key=$(cli keys create --project keyprop)
	wait_for "$key" 200 >/dev/null
	id=$(cli keys list | awk '$5 == "active" {id=$1} END {print id}')
	next=$(cli keys regenerate "$id")
	r=$(wait_for "$key" 401)
	wait_for "$next" 200 >/dev/null
	nid=$(cli keys list | awk '$5 == "active" {id=$1} END {print id}')
	cli keys scopes "$nid" --set assets:ohlcv:read
	s=$(wait_for "$next" 403)
	cli keys revoke "$nid"
	echo "trial $i: old key 401 after ${r} ms; scope removal 403 after ${s} ms"
	regen+=("$r") scope+=("$s")
done
echo "reload interval $reload; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo -n "regenerate → old key 401: "; printf '%s\n' "${regen[@]}" | stats
echo -n "scope removal → 403:      "; printf '%s\n' "${scope[@]}" | stats
