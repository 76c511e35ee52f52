#!/usr/bin/env bash
# bench/compare.sh: assetd against the same bytes served by nginx and by a
# minimal Go server (bench/static), in rotating wrk rounds.
#
#   bench/compare.sh -url http://127.0.0.1:8080 -key "$KEY" [-rounds 3] [-d 10s] [-c 64] [-t 2] \
#       [-open RATE [-pid ASSETD_PID]] [-only-open] [-body-only]
#
# It captures assetd's response for each endpoint (detail, curated majors,
# curated all, search, trending, market-snapshots), serves the same
# response from memory with bench/static (the Go ceiling) and from nginx
# (Debian package `nginx`; skipped with a note when absent): assetd's
# body and its response headers (x-request-id, ETag, Cache-Control, Vary,
# RateLimit-*, ... with the values of the captured response; nginx adds
# its own Server, Last-Modified and Accept-Ranges). -body-only serves the
# body with Content-Type and Content-Length only, as this script did
# before the headers were replayed. Then for every round and
# endpoint runs wrk against assetd, the Go ceiling and nginx in turn and
# prints requests/s and the ratios assetd/go, assetd/nginx and go/nginx
# (how far the Go ceiling itself is from nginx). assetd's
# market-snapshots is a POST; the ceilings answer the same bytes to a GET.
# After the rounds it prints min/median/max of each endpoint's requests/s
# and ratios. -open RATE adds the open-loop mixed read load: bench/load
# -rate RATE over the GET endpoints, against assetd, the Go ceiling and
# nginx in turn for the same number of rounds, printing latency
# percentiles and the server's CPU per request (utime+stime from
# /proc/<pid>/stat, all nginx processes summed; assetd's pid is found from
# its listening port, or give -pid), then min/median/max of each server's
# p99 and CPU per request and of assetd's CPU over nginx's. -only-open skips
# the wrk rounds. The load average is printed at the start and the end.
# Needs wrk (Debian package `wrk`). Start assetd with a high --rate-limit.
set -euo pipefail

url=http://127.0.0.1:8080 key=${ASSETD_KEY:-} rounds=3 dur=10s conns=64 threads=2 open="" apid="" onlyopen="" bodyonly=""
while [ $# -gt 0 ]; do
	case $1 in
	-only-open) onlyopen=1; shift; continue ;;
	-body-only) bodyonly=1; shift; continue ;;
	-url) url=$2 ;; -key) key=$2 ;; -rounds) rounds=$2 ;; -d) dur=$2 ;; -c) conns=$2 ;; -t) threads=$2 ;;
	-open) open=$2 ;; -pid) apid=$2 ;;
	*) echo "usage: $0 -url URL -key KEY [-rounds N] [-d DUR] [-c CONNS] [-t THREADS] [-open RATE [-pid PID]] [-only-open] [-body-only]" >&2; exit 2 ;;
	esac
	shift 2
done
[ -n "$key" ] || { echo "compare: -key (or ASSETD_KEY) is required" >&2; exit 2; }
command -v wrk >/dev/null || { echo "compare: wrk not installed (Debian package wrk); skipping" >&2; exit 0; }

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/static" "$root/bench/static"
"$work/static" -capture "$work/bodies" -url "$url" -key "$key"
# nginx's workers run as an unprivileged user: let them read the bodies.
chmod -R a+rX "$work"

"$work/static" -serve "$work/bodies" -addr 127.0.0.1:0 ${bodyonly:+-body-only} >"$work/static.addr" &
gopid=$!
pids+=($gopid)
for _ in $(seq 100); do [ -s "$work/static.addr" ] && break; sleep 0.1; done
goaddr=$(cat "$work/static.addr")

ngaddr="" ngpids=""
if command -v nginx >/dev/null || [ -x /usr/sbin/nginx ]; then
	ngbin=$(command -v nginx || echo /usr/sbin/nginx)
	ngport=$(free_port)
	mkdir -p "$work/nginx"
	# One location per endpoint; unless -body-only, it adds the captured
	# headers (nginx's own ETag is off: the captured one is added).
	locations="" ngetag=off
	[ -n "$bodyonly" ] && ngetag=on
	while IFS=$'\t' read -r name _; do
		adds=""
		if [ -z "$bodyonly" ]; then
			while IFS= read -r line; do
				k=${line%%: *} v=${line#*: }
				[ "$k" = Content-Type ] && continue # default_type
				case $v in *"'"* | *'\'*) echo "compare: cannot replay header $k: $v" >&2; exit 1 ;; esac
				adds="$adds add_header $k '$v';"
			done <"$work/bodies/$name.headers"
		fi
		locations="$locations
		location = /$name { alias $work/bodies/$name.json;$adds }"
	done <"$work/bodies/endpoints.tsv"
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
		etag $ngetag;$locations
	}
}
CONF
	"$ngbin" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
	pids+=($!)
	ngaddr=127.0.0.1:$ngport
	for _ in $(seq 50); do curl -sf "http://$ngaddr/detail" >/dev/null && break; sleep 0.1; done
	ngpids=$(cat "$work/nginx/nginx.pid" 2>/dev/null || true)
	[ -n "$ngpids" ] && ngpids="$ngpids $(pgrep -P "$ngpids" | tr "\n" " " || true)"
else
	echo "compare: nginx not installed (Debian package nginx); comparing against the Go ceiling only" >&2
fi

# Both ceilings must answer 200 with exactly the captured bytes (a
# ceiling answering 403 or 404 would be measured as a fast server) and,
# unless -body-only, every captured header.
while IFS=$'\t' read -r name _; do
	for base in "http://$goaddr" ${ngaddr:+"http://$ngaddr"}; do
		if ! curl -sf -D "$work/got.headers" "$base/$name" | cmp -s - "$work/bodies/$name.json"; then
			echo "compare: $base/$name does not serve the captured bytes" >&2
			exit 1
		fi
		[ -n "$bodyonly" ] && continue
		while IFS= read -r line; do
			if ! tr -d '\r' <"$work/got.headers" | grep -qixF -- "$line"; then
				echo "compare: $base/$name does not send the captured header $line" >&2
				exit 1
			fi
		done <"$work/bodies/$name.headers"
	done
done <"$work/bodies/endpoints.tsv"
if [ -n "$bodyonly" ]; then
	echo "the ceilings send the body only (-body-only)"
else
	echo "the ceilings send assetd's body and response headers"
fi

# assetd's pid (for CPU per request): -pid, else the process listening on
# the URL's port.
if [ -z "$apid" ]; then
	port=${url##*:}
	port=${port%%/*}
	apid=$(ss -ltnpH "sport = :$port" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2 || true)
fi
[ -n "$apid" ] || echo "compare: assetd's pid not found (give -pid); its CPU per request is not measured" >&2

# cpu_ticks PID...: utime+stime of the processes, in clock ticks.
cpu_ticks() {
	local t=0 p
	for p in "$@"; do
		[ -r "/proc/$p/stat" ] || continue
		t=$((t + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$p/stat")))
	done
	echo "$t"
}

# rps URL LUA PID...: one wrk run; prints requests/s and the server's CPU
# per request in microseconds (- without a pid).
rps() {
	local url=$1 lua=$2
	shift 2
	local args=(-t"$threads" -c"$conns" -d"$dur" --latency)
	[ -n "$lua" ] && args+=(-s "$lua")
	local t0 t1 out
	t0=$(cpu_ticks "$@")
	out=$(wrk "${args[@]}" -H "x-api-key: $key" "$url")
	t1=$(cpu_ticks "$@")
	echo "$out" | awk -v d="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v np="$#" '
		/ requests in / { n = $1 }
		/^Requests\/sec:/ { r = $2 }
		END { printf "%s %s\n", r, (np > 0 && n > 0 ? sprintf("%.1f", d / hz / n * 1e6) : "-") }'
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
results=$work/results.tsv
: >"$results"
if [ -z "$onlyopen" ]; then
	echo "requests/s, ratios, and each server's CPU per request (us; utime+stime over wrk's request count)"
	printf '%-6s %-17s %10s %10s %10s %8s %8s %8s %8s %8s %8s\n' round endpoint assetd go nginx a/go a/nginx go/nginx cpu-a cpu-go cpu-ngx
	for round in $(seq "$rounds"); do
		while IFS=$'\t' read -r name method path bodyfile; do
			lua=""
			if [ "$method" = POST ]; then
				lua="$work/$name.lua"
				printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[%s]]\n' \
					"$(cat "$work/bodies/$bodyfile")" >"$lua"
			fi
			read -r a acpu < <(rps "$url$path" "$lua" $apid)
			read -r g gcpu < <(rps "http://$goaddr/$name" "" "$gopid")
			n=- ncpu=-
			[ -n "$ngaddr" ] && read -r n ncpu < <(rps "http://$ngaddr/$name" "" $ngpids)
			ag=$(awk -v a="$a" -v b="$g" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
			an=- gn=-
			if [ "$n" != - ]; then
				an=$(awk -v a="$a" -v b="$n" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
				gn=$(awk -v a="$g" -v b="$n" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
			fi
			printf '%-6s %-17s %10s %10s %10s %8s %8s %8s %8s %8s %8s\n' "$round" "$name" "$a" "$g" "$n" "$ag" "$an" "$gn" "$acpu" "$gcpu" "$ncpu"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$a" "$g" "$n" "$ag" "$an" "$gn" "$acpu" "$gcpu" "$ncpu" >>"$results"
		done <"$work/bodies/endpoints.tsv"
	done
	echo
	echo "min/median/max over $rounds rounds"
	printf '%-17s %-26s %-26s %-26s %-17s %-17s %-17s %-17s %-17s %-17s\n' endpoint assetd go nginx a/go a/nginx go/nginx cpu-a cpu-go cpu-ngx
	cut -f1 "$work/bodies/endpoints.tsv" | while read -r name; do
		line="$(printf '%-17s' "$name")"
		for col in 2 3 4 5 6 7 8 9 10; do
			w=26
			[ "$col" -ge 5 ] && w=17
			stat=$(awk -F'\t' -v n="$name" -v c="$col" '$1 == n && $c != "-" { print $c }' "$results" | sort -g |
				awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } m = (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); printf "%s/%s/%s", v[1], m, v[NR] }')
			line="$line $(printf "%-${w}s" "$stat")"
		done
		echo "$line"
	done
fi

# openrun NAME BASE PATHSFILE PID...: the open-loop load against one
# server; appends NAME, p99 (ms) and CPU per request (us) to open.tsv.
openrun() {
	local name=$1 base=$2 paths=$3
	shift 3
	local t0 t1 out reqs cpu p99
	t0=$(cpu_ticks "$@")
	out=$("$work/load" -url "$base" -key "$key" -paths "$paths" -rate "$open" -c 256 -d "$dur")
	t1=$(cpu_ticks "$@")
	reqs=$(echo "$out" | awk '/^requests / { print $2 }')
	echo "$out" | sed "s/^/$name: /"
	cpu=$(awk -v d="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v r="$reqs" 'BEGIN { printf "%.1f", (r > 0 ? d / hz / r * 1e6 : 0) }')
	echo "$name: server CPU $cpu us per request"
	# p99 as the load tool prints it (a Go duration: 850µs, 4.2ms, 1.1s), in ms.
	p99=$(echo "$out" | awk '/latency p50/ { for (i = 1; i < NF; i++) if ($i == "p99") v = $(i + 1) }
		END { f = 1; if (v ~ /µs$/) f = 0.001; else if (v ~ /ms$/) f = 1; else if (v ~ /s$/) f = 1000
			sub(/[µm]?s$/, "", v); printf "%.2f", v * f }')
	printf '%s\t%s\t%s\n' "$name" "$p99" "$cpu" >>"$work/open.tsv"
}

# stat3: min/median/max of the numbers on stdin.
stat3() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
		m = (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); printf "%s/%s/%s", v[1], m, v[NR] }'
}

if [ -n "$open" ]; then
	go build -o "$work/load" "$root/bench/load"
	: >"$work/apaths" && : >"$work/npaths" && : >"$work/open.tsv"
	while IFS=$'\t' read -r name method path _; do
		[ "$method" = GET ] || continue
		echo "$path" >>"$work/apaths"
		echo "/$name" >>"$work/npaths"
	done <"$work/bodies/endpoints.tsv"
	echo
	echo "open loop: mixed GET load at $open/s for $dur, $rounds rotating rounds"
	for round in $(seq "$rounds"); do
		echo "round $round"
		openrun assetd "$url" "$work/apaths" $apid
		openrun go "http://$goaddr" "$work/npaths" "$gopid"
		if [ -n "$ngaddr" ]; then
			openrun nginx "http://$ngaddr" "$work/npaths" $ngpids
		fi
	done
	echo
	echo "open loop, min/median/max over $rounds rounds"
	for name in assetd go ${ngaddr:+nginx}; do
		printf '%-7s p99 ms %-22s CPU us per request %s\n' "$name" \
			"$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$work/open.tsv" | stat3)" \
			"$(awk -F'\t' -v n="$name" '$1 == n { print $3 }' "$work/open.tsv" | stat3)"
	done
	if [ -n "$ngaddr" ]; then
		# Per round: assetd's CPU per request over nginx's.
		printf 'CPU per request assetd/nginx %s\n' "$(awk -F'\t' '$1 == "assetd" { a[++na] = $3 } $1 == "nginx" { g[++ng] = $3 }
			END { for (i = 1; i <= na && i <= ng; i++) if (g[i] > 0) printf "%.2f\n", a[i] / g[i] }' "$work/open.tsv" | stat3)"
	fi
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
