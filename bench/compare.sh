#!/usr/bin/env bash
# bench/compare.sh: assetd against the same bytes served by nginx and by a
# minimal Go server (bench/static), in rotating wrk rounds.
#
#   bench/compare.sh -url http://127.0.0.1:8080 -key "$KEY" [-rounds 3] [-d 10s] [-c 64] [-t 2]
#
# It captures assetd's body for each endpoint (detail, curated majors,
# curated all, search, trending, market-snapshots), serves those bytes from
# memory with bench/static (the Go ceiling) and from nginx (Debian package
# `nginx`; skipped with a note when absent), then for every round and
# endpoint runs wrk against assetd, the Go ceiling and nginx in turn and
# prints requests/s and the ratios assetd/go and assetd/nginx. assetd's
# market-snapshots is a POST; the ceilings answer the same bytes to a GET.
# Needs wrk (Debian package `wrk`). Start assetd with a high --rate-limit.
set -euo pipefail

url=http://127.0.0.1:8080 key=${ASSETD_KEY:-} rounds=3 dur=10s conns=64 threads=2
while [ $# -gt 0 ]; do
	case $1 in
	-url) url=$2 ;; -key) key=$2 ;; -rounds) rounds=$2 ;; -d) dur=$2 ;; -c) conns=$2 ;; -t) threads=$2 ;;
	*) echo "usage: $0 -url URL -key KEY [-rounds N] [-d DUR] [-c CONNS] [-t THREADS]" >&2; exit 2 ;;
	esac
	shift 2
done
[ -n "$key" ] || { echo "compare: -key (or ASSETD_KEY) is required" >&2; exit 2; }
command -v wrk >/dev/null || { echo "compare: wrk not installed (Debian package wrk); skipping" >&2; exit 0; }

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/static" "$root/bench/static"
"$work/static" -capture "$work/bodies" -url "$url" -key "$key"

"$work/static" -serve "$work/bodies" -addr 127.0.0.1:0 >"$work/static.addr" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/static.addr" ] && break; sleep 0.1; done
goaddr=$(cat "$work/static.addr")

ngaddr=""
if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then
	ngbin=$(command -v nginx || echo /usr/sbin/nginx)
	ngport=$(( (RANDOM % 20000) + 30000 ))
	mkdir -p "$work/nginx"
	cat >"$work/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on; tcp_nopush on; tcp_nodelay on;
	keepalive_requests 1000000; open_file_cache max=64;
	client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
	uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
	server {
		listen 127.0.0.1:$ngport;
		default_type application/json;
		location ~ ^/([a-z-]+)$ { alias $work/bodies/\$1.json; }
	}
}
CONF
	"$ngbin" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
	pids+=($!)
	ngaddr=127.0.0.1:$ngport
	for _ in $(seq 50); do curl -sf "http://$ngaddr/detail" >/dev/null && break; sleep 0.1; done
else
	echo "compare: nginx not installed (Debian package nginx); comparing against the Go ceiling only" >&2
fi

# wrk prints "Requests/sec: N"; rps URL [LUA] runs it once.
rps() {
	local args=(-t"$threads" -c"$conns" -d"$dur" --latency)
	[ -n "${2:-}" ] && args+=(-s "$2")
	wrk "${args[@]}" -H "x-api-key: $key" "$1" | awk '/^Requests\/sec:/ {print $2}'
}

printf '%-6s %-17s %10s %10s %10s %8s %8s\n' round endpoint assetd go nginx a/go a/nginx
for round in $(seq "$rounds"); do
	while IFS=$'\t' read -r name method path bodyfile; do
		lua=""
		if [ "$method" = POST ]; then
			lua="$work/$name.lua"
			printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[%s]]\n' \
				"$(cat "$work/bodies/$bodyfile")" >"$lua"
		fi
		a=$(rps "$url$path" "$lua")
		g=$(rps "http://$goaddr/$name")
		n=-
		[ -n "$ngaddr" ] && n=$(rps "http://$ngaddr/$name")
		ag=$(awk -v a="$a" -v b="$g" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
		an=-
		[ "$n" != - ] && an=$(awk -v a="$a" -v b="$n" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
		printf '%-6s %-17s %10s %10s %10s %8s %8s\n' "$round" "$name" "$a" "$g" "$n" "$ag" "$an"
	done <"$work/bodies/endpoints.tsv"
done
