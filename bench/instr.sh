#!/usr/bin/env bash
# bench/instr.sh: instructions per request of assetd and of the Go ceiling
# (bench/static serving the captured bytes of each response), counted by
# valgrind's callgrind on the server: immune to what else the machine does.
#
#   bench/instr.sh [-reps 3] [-n 200] [-nbig 20] [-members "1000 5000"] [-registry 150000]
#                  [-only demo|large] [-bin PATH]
#
# Two assetd servers run in turn, each under callgrind with instrumentation
# switched on once it is ready (GODEBUG=asyncpreemptoff=1: callgrind
# asserts on Go's preemption signals):
#   demo:  --demo over its registry, live demo trades off
#          (--demo-trades-interval 0: the simulated trade feed would
#          otherwise be most of an idle period's count); a community list
#          of 10 members; detail, curated, trending, market-snapshots (50
#          mints), v1 search, /v2/lists, /v2/lists/majors, the 10-member
#          list, compose of three lists, search-tokens q=usd (repeated, and
#          first: a distinct limit per request, so every one misses any
#          cache), the news feed and a 304 of detail (If-None-Match).
#   large: a VISIBLY SYNTHETIC registry of -registry assets
#          (bench/registrygen), no market provider; community lists of
#          -members members (bulk adds through the API before the
#          measured run), each read and its tokenlist.json; search-tokens
#          q=usd repeated and first.
# Every endpoint is warmed (3 requests), then per repetition: counters
# zeroed, -n requests (-nbig for list reads of 1,000 members and more and
# for first search-tokens) over one keep-alive connection
# (bench/instr), counters dumped. An idle period's count (5 s, before the
# first endpoint) is subtracted in proportion to each run's wall time.
# The Go ceiling runs under callgrind the same way with the bytes captured
# from the measured server (body and headers, bench/static -serve).
# Prints per endpoint: assetd's instructions/request per repetition, the
# ceiling's, and the ratio of the medians. The 304 line's ratio is to
# detail's 200.
# Needs valgrind (Debian package valgrind); skips cleanly without it.
set -euo pipefail

reps=3 n=200 nbig=20 members="1000 5000" regn=150000 only="" bin=""
while [ $# -gt 0 ]; do
	case $1 in
	-reps) reps=$2 ;; -n) n=$2 ;; -nbig) nbig=$2 ;; -members) members=$2 ;; -registry) regn=$2 ;;
	-only) only=$2 ;; -bin) bin=$2 ;;
	*) echo "usage: $0 [-reps N] [-n N] [-nbig N] [-members \"1000 5000\"] [-registry N] [-only demo|large] [-bin PATH]" >&2; exit 2 ;;
	esac
	shift 2
done
if ! command -v valgrind >/dev/null || ! command -v callgrind_control >/dev/null; then
	echo "instr: valgrind not installed (Debian package valgrind); skipping" >&2
	exit 0
fi
command -v jq >/dev/null || { echo "instr: needs jq" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$root/bench/lib.sh"
work=$(mktemp -d)
pids=()
cleanup() {
	local rc=$?
	if [ "$rc" != 0 ]; then
		for f in "$work"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; grep -v '^==' "$f" | tail -5 >&2; }; done
	fi
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

if [ -z "$bin" ]; then
	(cd "$root" && go build -o "$work/assetd" ./cmd/assetd)
	bin=$work/assetd
fi
(cd "$root" && go build -o "$work/static" ./bench/static && go build -o "$work/hit" ./bench/instr)

echo "instr: valgrind $(valgrind --version); cores $(nproc); load average $(cut -d' ' -f1-3 /proc/loadavg)"

# serve_opts are the flags of every assetd run.
serve_opts=(--access-log off --rate-limit 1000000000/10s --reload-interval 5s --warm-interval 1h --startup-warmup 120s --ready-min-coverage 0.3
	--list-batch-budget 1000 --list-search-budget 1000000)

wait_ready() { # url pid log
	for _ in $(seq 3000); do
		curl -fs -o /dev/null "$1/readyz" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || { tail -20 "$3" >&2; return 1; }
		sleep 0.2
	done
	echo "instr: not ready: $1" >&2
	return 1
}

# start_native ARGS...: assetd natively (list setup); sets natp.
start_native() {
	"$bin" serve "$@" >"$work/native.log" 2>&1 &
	natp=$!
	pids+=($natp)
}

stop_native() {
	kill "$natp" 2>/dev/null || true
	wait "$natp" 2>/dev/null || true
}

# cg_start LOG CMD...: runs CMD under callgrind, instrumentation off;
# sets cgpid.
cg_start() {
	local log=$1
	shift
	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --instr-atstart=no \
		--callgrind-out-file="$work/cg.%p" "$@" >"$log" 2>&1 &
	cgpid=$!
	pids+=($cgpid)
}

cg_stop() {
	kill "$cgpid" 2>/dev/null || true
	wait "$cgpid" 2>/dev/null || true
}

# cg_count: zero, run the rest of the arguments, dump; prints
# "instructions wall_ns".
cg_count() {
	local t0 t1 f
	callgrind_control -z "$cgpid" >/dev/null 2>&1
	t0=$(date +%s%N)
	"$@" >/dev/null
	t1=$(date +%s%N)
	callgrind_control -d "$cgpid" >/dev/null 2>&1
	f=$(ls -t "$work"/cg."$cgpid".* | head -1)
	echo "$(awk '/^summary:/{print $2}' "$f") $((t1 - t0))"
}

# idle_rate: instructions per ns of an idle 5 s, once the server is
# quiet: start-up work still running (a large registry's search index
# is built in the background after ready) is not an idle period, so it
# is measured again until under 2M instructions/s (at most 20 times).
idle_rate() {
	local r
	for _ in $(seq 20); do
		r=$(cg_count sleep 5 | awk '{printf "%.6f", $1/$2}')
		awk -v r="$r" 'BEGIN{exit !(r < 0.002)}' && break
	done
	echo "$r"
}

# measure NAME N RATE HIT-ARGS...: prints the per-request count of each
# repetition, space separated.
measure() {
	local name=$1 count=$2 rate=$3
	shift 3
	local out=""
	for r in $(seq "$reps"); do
		read -r ir ns < <(cg_count "$work/hit" -n "$count" "$@")
		out="$out $(awk -v ir="$ir" -v ns="$ns" -v rate="$rate" -v n="$count" 'BEGIN{printf "%.0f", (ir - rate*ns)/n}')"
	done
	echo "$out"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# results: name \t assetd reps \t ceiling reps
results=$work/results.tsv
: >"$results"

# capture NAME PATH [curl args]: the measured server's response, body and
# headers in bench/static's format, and its line in endpoints.tsv.
capture() {
	local name=$1 path=$2
	shift 2
	curl -fsS -H "X-Api-Key: $key" -H "Accept-Encoding: identity" -D "$cap/$name.raw" -o "$cap/$name.json" "$@" "$url$path"
	tr -d '\r' <"$cap/$name.raw" | awk -F': ' 'NR>1 && NF>1 && $1 !~ /^(Date|Content-Length|Connection|Keep-Alive|Transfer-Encoding)$/' | sort >"$cap/$name.headers"
	rm "$cap/$name.raw"
}

# run_set: measures every endpoint of $eps (name \t count \t hit args) on
# assetd (cgpid) and then on the ceiling over $cap.
run_set() {
	local rate line name count args
	rate=$(idle_rate)
	echo "  assetd idle: $(awk -v r="$rate" 'BEGIN{printf "%.0f", r*1e9}') instructions/s" >&2
	declare -A got
	while IFS=$'\t' read -r name count args; do
		# shellcheck disable=SC2086
		"$work/hit" -url "$url" -key "$key" -n 3 $args >/dev/null
		# shellcheck disable=SC2086
		got[$name]=$(measure "$name" "$count" "$rate" -url "$url" -key "$key" $args)
		echo "  $name: ${got[$name]}" >&2
	done <"$eps"
	cg_stop
	local port
	port=$(free_port)
	cg_start "$work/static.log" "$work/static" -serve "$cap" -addr "127.0.0.1:$port"
	for _ in $(seq 600); do curl -fs -o /dev/null "http://127.0.0.1:$port/$(head -1 "$eps" | cut -f1)" 2>/dev/null && break; sleep 0.2; done
	callgrind_control -i on "$cgpid" >/dev/null 2>&1
	rate=$(idle_rate)
	while IFS=$'\t' read -r name count args; do
		local c="-"
		if [ -f "$cap/$name.json" ]; then
			"$work/hit" -url "http://127.0.0.1:$port" -n 3 -path "/$name" >/dev/null
			c=$(measure "$name" "$count" "$rate" -url "http://127.0.0.1:$port" -path "/$name")
		fi
		printf '%s\t%s\t%s\n' "$name" "${got[$name]}" "$c" >>"$results"
	done <"$eps"
	cg_stop
}

if [ "$only" != large ]; then
	echo "== demo" >&2
	data=$work/demo
	key=$("$bin" keys create --project bench --scopes assets:read --data-dir "$data" 2>/dev/null)
	port=$(free_port)
	url=http://127.0.0.1:$port
	start_native --demo --data-dir "$data" --addr "127.0.0.1:$port" --demo-trades-interval 0 "${serve_opts[@]}"
	wait_ready "$url" "$natp" "$work/native.log"
	all=$(curl -fsS -H "X-Api-Key: $key" "$url/v1/assets/curated?list=all")
	mints=$(jq -c '[.assets[] | .primaryVariant.mint // empty] | .[:50]' <<<"$all")
	asset=$(jq -r '.assets[0].assetId' <<<"$all")
	sym=$(jq -r '.assets[0].symbol | ascii_downcase' <<<"$all")
	curl -fsS -H "X-Api-Key: $key" -H 'Content-Type: application/json' -o /dev/null \
		-d '{"slug":"bench-ten","name":"Bench ten","status":"published"}' "$url/v2/lists"
	curl -fsS -H "X-Api-Key: $key" -H 'Content-Type: application/json' -o /dev/null \
		-d "{\"mints\":$(jq -c '.[10:20]' <<<"$mints")}" "$url/v2/lists/bench-ten/members"
	stop_native
	echo "{\"mints\":$mints}" >"$work/snap.body"

	cg_start "$work/assetd-demo.log" "$bin" serve --demo --data-dir "$data" --addr "127.0.0.1:$port" --demo-trades-interval 0 "${serve_opts[@]}"
	wait_ready "$url" "$cgpid" "$work/assetd-demo.log"
	cap=$work/cap-demo
	mkdir -p "$cap"
	for i in $(seq $((reps * nbig + 3))); do echo "/v2/lists/search-tokens?q=usd&limit=$((i % 50 + 1))&policy=$([ $((i / 50 % 2)) = 0 ] && echo strict || echo default)"; done >"$work/first-demo.paths"
	eps=$work/eps-demo.tsv
	cat >"$eps" <<-TSV
	detail	$n	-path /v1/assets/$asset
	curated	$n	-path /v1/assets/curated?list=majors
	trending	$n	-path /v1/assets/trending
	market-snapshots	$n	-method POST -body $work/snap.body -path /v1/assets/market-snapshots
	v1-search	$n	-path /v1/assets/search?q=$sym
	lists-catalog	$n	-path /v2/lists
	lists-majors	$n	-path /v2/lists/majors
	community-10	$n	-path /v2/lists/bench-ten
	tokenlist-10	$n	-path /v2/lists/bench-ten/tokenlist.json
	compose-3	$n	-path /v2/lists/tokens?lists=majors,bench-ten,lsts
	search-tokens-usd	$n	-path /v2/lists/search-tokens?q=usd
	news	$n	-path /v1/news/feed
	TSV
	while IFS=$'\t' read -r name _ args; do
		# shellcheck disable=SC2086
		set -- $args
		case $1 in
		-method) capture "$name" "$6" -X POST -H 'Content-Type: application/json' --data-binary @"$work/snap.body" ;;
		*) capture "$name" "$2" ;;
		esac
	done <"$eps"
	cp "$cap/search-tokens-usd.json" "$cap/search-tokens-first.json"
	cp "$cap/search-tokens-usd.headers" "$cap/search-tokens-first.headers"
	printf 'search-tokens-first\t%s\t-consume -paths %s\n' "$nbig" "$work/first-demo.paths" >>"$eps"
	printf 'detail-304\t%s\t-path /v1/assets/%s -status 304 -inm auto\n' "$n" "$asset" >>"$eps"
	callgrind_control -i on "$cgpid" >/dev/null 2>&1
	run_set
fi

if [ "$only" != demo ]; then
	echo "== large: $regn-asset synthetic registry, lists of $members members" >&2
	data=$work/large
	(cd "$root" && go run ./bench/registrygen -n "$regn" >"$work/registry.json")
	"$bin" registry import "$work/registry.json" --source synthetic --data-dir "$data" >/dev/null 2>&1
	key=$("$bin" keys create --project bench --scopes assets:read --data-dir "$data" 2>/dev/null)
	port=$(free_port)
	url=http://127.0.0.1:$port
	large_opts=(--data-dir "$data" --addr "127.0.0.1:$port" --marketdata-b=false --news-feed none)
	start_native "${large_opts[@]}" "${serve_opts[@]}"
	wait_ready "$url" "$natp" "$work/native.log"
	jq -r '.assets[].variants[0].mint' "$work/registry.json" >"$work/mints"
	for m in $members; do
		curl -fsS -H "X-Api-Key: $key" -H 'Content-Type: application/json' -o /dev/null \
			-d "{\"slug\":\"bench-$m\",\"name\":\"Bench $m (synthetic)\",\"status\":\"published\"}" "$url/v2/lists"
		for off in $(seq 0 250 $((m - 1))); do
			sed -n "$((off + 1)),$((off + 250))p" "$work/mints" | head -$((m - off)) | jq -R . | jq -sc '{mints: .}' >"$work/add.json"
			curl -fsS -H "X-Api-Key: $key" -H 'Content-Type: application/json' -o /dev/null --data-binary @"$work/add.json" "$url/v2/lists/bench-$m/members"
		done
	done
	stop_native

	cg_start "$work/assetd-large.log" "$bin" serve "${large_opts[@]}" "${serve_opts[@]}"
	wait_ready "$url" "$cgpid" "$work/assetd-large.log"
	for _ in $(seq 1200); do grep -q "catalog search index built" "$work/assetd-large.log" && break; sleep 1; done
	cap=$work/cap-large
	mkdir -p "$cap"
	eps=$work/eps-large.tsv
	: >"$eps"
	for m in $members; do
		printf 'community-%s\t%s\t-path /v2/lists/bench-%s\n' "$m" "$nbig" "$m" >>"$eps"
		printf 'tokenlist-%s\t%s\t-path /v2/lists/bench-%s/tokenlist.json\n' "$m" "$nbig" "$m" >>"$eps"
	done
	printf 'search-tokens-usd-large\t%s\t-path /v2/lists/search-tokens?q=usd\n' "$n" >>"$eps"
	while IFS=$'\t' read -r name _ args; do
		set -- $args
		capture "$name" "$2"
	done <"$eps"
	for i in $(seq $((reps * nbig + 3))); do echo "/v2/lists/search-tokens?q=usd&limit=$((i % 50 + 1))&policy=$([ $((i / 50 % 2)) = 0 ] && echo strict || echo default)"; done >"$work/first-large.paths"
	cp "$cap/search-tokens-usd-large.json" "$cap/search-tokens-first-large.json"
	cp "$cap/search-tokens-usd-large.headers" "$cap/search-tokens-first-large.headers"
	printf 'search-tokens-first-large\t%s\t-consume -paths %s\n' "$nbig" "$work/first-large.paths" >>"$eps"
	callgrind_control -i on "$cgpid" >/dev/null 2>&1
	run_set
fi

echo
printf '%-26s %-34s %-30s %s\n' endpoint "assetd instructions/request" "Go ceiling" "ratio (medians)"
detail200=$(awk -F'\t' '$1=="detail"{print $2}' "$results" | median || true)
while IFS=$'\t' read -r name a c; do
	am=$(echo "$a" | median)
	if [ "$name" = detail-304 ] && [ -n "$detail200" ]; then
		ratio=$(awk -v a="$am" -v b="$detail200" 'BEGIN{printf "%.2f of detail 200", a/b}')
	elif [ "$c" != "-" ]; then
		cm=$(echo "$c" | median)
		ratio=$(awk -v a="$am" -v b="$cm" 'BEGIN{printf "%.2fx", a/b}')
	else
		ratio="-"
	fi
	printf '%-26s %-34s %-30s %s\n' "$name" "$a" "$c" "$ratio"
done <"$results"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
