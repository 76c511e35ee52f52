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
#          list and its tokenlist.json, compose of three lists,
#          search-tokens q=usd (repeated, and first: a distinct limit per
#          request, so every one misses any cache), the news feed, the
#          webhook list (a project with none, one with two endpoints to a
#          loopback URL: --webhook-allow-private, subscribed to list
#          events, which no measured request makes), an asset's changes,
#          verdicts of 10 mints (a key with assets:risk:read), the trade
#          source state (trades:write), and 304s (If-None-Match) of detail,
#          /v2/lists/majors, the 10-member list and its tokenlist.json.
#   large: a VISIBLY SYNTHETIC registry of -registry assets
#          (bench/registrygen), no market provider; community lists of
#          -members members (bulk adds through the API before the
#          measured run), each read and its tokenlist.json (registrygen
#          gives its synthetic variants decimals, so the export is real),
#          their 304s; search-tokens q=usd repeated and first.
# Every endpoint is warmed (3 requests), then per repetition: counters
# zeroed, -n requests (-nbig for list reads of 1,000 members and more and
# for first search-tokens) over one keep-alive connection
# (bench/instr), counters dumped. An idle period's count (5 s, before the
# first endpoint) is subtracted in proportion to each run's wall time.
# The Go ceiling runs under callgrind the same way with the bytes captured
# from the measured server (body and headers, bench/static -serve).
# Prints per endpoint: assetd's instructions/request per repetition, the
# ceiling's, and the ratio of the medians. A NAME-304 line's ratio is to
# NAME's 200 (assetd's medians); its ceiling is bench/static's own 304 of
# NAME, with that 304's ratio to the ceiling's 200 of NAME and assetd's
# 304 against it.
# Any setup or measured request answered other than expected (a non-2xx
# where a 200 is wanted) stops the script with a non-zero status and a
# line saying which request, its status and its body.
# Needs valgrind (Debian package valgrind); skips cleanly without it.
set -euo pipefail
shopt -s inherit_errexit

die() {
	echo "instr: FAILED: $*" >&2
	exit 1
}

# api METHOD PATH [BODY-FILE]: one setup request with $key (or $akey
# when set); prints the body; any non-2xx answer stops the script.
api() {
	local m=$1 p=$2 f=${3:-} code
	local args=(-sS -X "$m" -H "X-Api-Key: ${akey:-$key}" -o "$work/api.out" -w '%{http_code}')
	[ -n "$f" ] && args+=(-H 'Content-Type: application/json' --data-binary @"$f")
	code=$(curl "${args[@]}" "$url$p") || die "$m $p: curl failed"
	case $code in 2??) ;; *) die "$m $p answered $code: $(head -c 400 "$work/api.out")" ;; esac
	cat "$work/api.out"
}

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
	"$@" >/dev/null || die "measured run failed (the request's status and body above): $*"
	t1=$(date +%s%N)
	callgrind_control -d "$cgpid" >/dev/null 2>&1
	f=$(ls -t "$work"/cg."$cgpid".* | head -1)
	echo "$(awk '/^summary:/{print $2}' "$f") $((t1 - t0))"
}

# idle_rate: instructions per ns of an idle period, once the server is
# quiet: start-up work still running (a large registry's search index
# is built in the background after ready, the demo's market warm-up) is
# not an idle period, so 5 s windows are counted until one is under 5M
# instructions/s (at most 60), then four more; the rate is the median of
# those five. What a quiet server does in proportion to wall time (the
# demo's catalog refreshes and webhook polls, ~2.5M/s) comes in bursts:
# one window would over- or under-correct every run that follows.
idle_rate() {
	local r rates="" i
	for i in $(seq 60); do
		r=$(cg_count sleep 5 | awk '{printf "%.6f", $1/$2}')
		awk -v r="$r" 'BEGIN{exit !(r < 0.005)}' && break
		echo "  (not idle yet: $(awk -v r="$r" 'BEGIN{printf "%.0f", r*1e9}') instructions/s)" >&2
	done
	rates=$r
	for i in 1 2 3 4; do
		rates="$rates $(cg_count sleep 5 | awk '{printf "%.6f", $1/$2}')"
	done
	echo "  idle windows (instructions/ns): $rates" >&2
	echo "$rates" | median
}

# measure NAME N RATE HIT-ARGS...: prints the per-request count of each
# repetition, space separated.
measure() {
	local name=$1 count=$2 rate=$3
	shift 3
	local out=""
	local res ir ns
	for r in $(seq "$reps"); do
		res=$(cg_count "$work/hit" -n "$count" "$@")
		read -r ir ns <<<"$res"
		[ -n "$ns" ] || die "$name: no instruction count (callgrind dump missing)"
		out="$out $(awk -v ir="$ir" -v ns="$ns" -v rate="$rate" -v n="$count" 'BEGIN{printf "%.0f", (ir - rate*ns)/n}')"
	done
	echo "$out"
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# results: name \t assetd reps \t ceiling reps
results=$work/results.tsv
: >"$results"

# capture NAME HIT-ARGS...: the measured server's response to the
# request of an endpoint line (-path, -method, -body, -key), body and
# headers in bench/static's format; a non-2xx answer stops the script.
capture() {
	local name=$1 path="" method=GET body="" k=$key code
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		-path) path=$2 ;; -method) method=$2 ;; -body) body=$2 ;; -key) k=$2 ;;
		esac
		shift 2
	done
	local args=(-sS -X "$method" -H "X-Api-Key: $k" -H "Accept-Encoding: identity" -D "$cap/$name.raw" -o "$cap/$name.json" -w '%{http_code}')
	[ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data-binary @"$body")
	code=$(curl "${args[@]}" "$url$path") || die "$name: $method $path: curl failed"
	case $code in 2??) ;; *) die "$name: $method $path answered $code: $(head -c 400 "$cap/$name.json")" ;; esac
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
		"$work/hit" -url "$url" -key "$key" -n 3 $args >/dev/null || die "warming $name failed (the request's status and body above)"
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
			"$work/hit" -url "http://127.0.0.1:$port" -n 3 -path "/$name" >/dev/null || die "warming the ceiling's $name failed"
			c=$(measure "$name" "$count" "$rate" -url "http://127.0.0.1:$port" -path "/$name")
		elif [[ $name == *-304 ]] && [ -f "$cap/${name%-304}.json" ]; then
			# The ceiling's own 304 of NAME (bench/static answers the
			# captured ETag with one).
			"$work/hit" -url "http://127.0.0.1:$port" -n 3 -path "/${name%-304}" -status 304 -inm auto >/dev/null || die "warming the ceiling's $name failed"
			c=$(measure "$name" "$count" "$rate" -url "http://127.0.0.1:$port" -path "/${name%-304}" -status 304 -inm auto)
		fi
		printf '%s\t%s\t%s\n' "$name" "${got[$name]}" "$c" >>"$results"
	done <"$eps"
	cg_stop
}

if [ "$only" != large ]; then
	echo "== demo" >&2
	data=$work/demo
	key=$("$bin" keys create --project bench --scopes assets:read --data-dir "$data" 2>/dev/null)
	# The new endpoints' key: another project (two webhook endpoints),
	# verdicts (assets:risk:read) and the trade source (trades:write).
	key2=$("$bin" keys create --project bench-hooks --scopes assets:read,assets:risk:read,trades:write --data-dir "$data" 2>/dev/null)
	[ -n "$key" ] && [ -n "$key2" ] || die "keys create failed"
	port=$(free_port)
	url=http://127.0.0.1:$port
	demo_opts=(--demo --data-dir "$data" --addr "127.0.0.1:$port" --demo-trades-interval 0 --webhook-allow-private)
	start_native "${demo_opts[@]}" "${serve_opts[@]}"
	wait_ready "$url" "$natp" "$work/native.log"
	all=$(api GET "/v1/assets/curated?list=all")
	mints=$(jq -c '[.assets[] | .primaryVariant.mint // empty] | .[:50]' <<<"$all")
	asset=$(jq -r '.assets[0].assetId' <<<"$all")
	sym=$(jq -r '.assets[0].symbol | ascii_downcase' <<<"$all")
	echo '{"slug":"bench-ten","name":"Bench ten","status":"published"}' >"$work/list.json"
	api POST /v2/lists "$work/list.json" >/dev/null
	echo "{\"mints\":$(jq -c '.[10:20]' <<<"$mints")}" >"$work/add.json"
	api POST /v2/lists/bench-ten/members "$work/add.json" >/dev/null
	# Two webhook endpoints of key2's project: a loopback URL nothing
	# listens on (port 9, discard), list events only (none is made while
	# measuring, so nothing is delivered).
	for i in 1 2; do
		echo "{\"url\":\"http://127.0.0.1:9/bench-hook-$i\",\"events\":[\"list\"]}" >"$work/hook.json"
		akey=$key2 api POST /v1/webhooks "$work/hook.json" >/dev/null
	done
	stop_native
	echo "{\"mints\":$mints}" >"$work/snap.body"
	echo "{\"mints\":$(jq -c '.[:10]' <<<"$mints")}" >"$work/verdicts.body"

	cg_start "$work/assetd-demo.log" "$bin" serve "${demo_opts[@]}" "${serve_opts[@]}"
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
	webhooks-0	$n	-path /v1/webhooks
	webhooks-2	$n	-path /v1/webhooks -key $key2
	asset-changes	$n	-path /v1/assets/$asset/changes
	verdicts-10	$n	-method POST -body $work/verdicts.body -path /v1/assets/verdicts -key $key2
	trades-source	$n	-path /v1/internal/trades/source -key $key2
	TSV
	while IFS=$'\t' read -r name _ args; do
		# shellcheck disable=SC2086
		capture "$name" $args
	done <"$eps"
	cp "$cap/search-tokens-usd.json" "$cap/search-tokens-first.json"
	cp "$cap/search-tokens-usd.headers" "$cap/search-tokens-first.headers"
	printf 'search-tokens-first\t%s\t-consume -paths %s\n' "$nbig" "$work/first-demo.paths" >>"$eps"
	printf 'detail-304\t%s\t-path /v1/assets/%s -status 304 -inm auto\n' "$n" "$asset" >>"$eps"
	printf 'lists-majors-304\t%s\t-path /v2/lists/majors -status 304 -inm auto\n' "$n" >>"$eps"
	printf 'community-10-304\t%s\t-path /v2/lists/bench-ten -status 304 -inm auto\n' "$n" >>"$eps"
	printf 'tokenlist-10-304\t%s\t-path /v2/lists/bench-ten/tokenlist.json -status 304 -inm auto\n' "$n" >>"$eps"
	callgrind_control -i on "$cgpid" >/dev/null 2>&1
	run_set
fi

if [ "$only" != demo ]; then
	echo "== large: $regn-asset synthetic registry, lists of $members members" >&2
	data=$work/large
	(cd "$root" && go run ./bench/registrygen -n "$regn" >"$work/registry.json") || die "registrygen failed"
	"$bin" registry import "$work/registry.json" --source synthetic --data-dir "$data" >"$work/import.log" 2>&1 ||
		die "registry import failed: $(tail -3 "$work/import.log")"
	key=$("$bin" keys create --project bench --scopes assets:read --data-dir "$data" 2>/dev/null)
	[ -n "$key" ] || die "keys create failed"
	port=$(free_port)
	url=http://127.0.0.1:$port
	large_opts=(--data-dir "$data" --addr "127.0.0.1:$port" --marketdata-b=false --news-feed none)
	start_native "${large_opts[@]}" "${serve_opts[@]}"
	wait_ready "$url" "$natp" "$work/native.log"
	jq -r '.assets[].variants[0].mint' "$work/registry.json" >"$work/mints"
	for m in $members; do
		echo "{\"slug\":\"bench-$m\",\"name\":\"Bench $m (synthetic)\",\"status\":\"published\"}" >"$work/list.json"
		api POST /v2/lists "$work/list.json" >/dev/null
		for off in $(seq 0 250 $((m - 1))); do
			sed -n "$((off + 1)),$((off + 250))p" "$work/mints" | head -$((m - off)) | jq -R . | jq -sc '{mints: .}' >"$work/add.json"
			api POST "/v2/lists/bench-$m/members" "$work/add.json" >/dev/null
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
		# shellcheck disable=SC2086
		capture "$name" $args
	done <"$eps"
	for m in $members; do
		printf 'community-%s-304\t%s\t-path /v2/lists/bench-%s -status 304 -inm auto\n' "$m" "$n" "$m" >>"$eps"
		printf 'tokenlist-%s-304\t%s\t-path /v2/lists/bench-%s/tokenlist.json -status 304 -inm auto\n' "$m" "$n" "$m" >>"$eps"
	done
	for i in $(seq $((reps * nbig + 3))); do echo "/v2/lists/search-tokens?q=usd&limit=$((i % 50 + 1))&policy=$([ $((i / 50 % 2)) = 0 ] && echo strict || echo default)"; done >"$work/first-large.paths"
	cp "$cap/search-tokens-usd-large.json" "$cap/search-tokens-first-large.json"
	cp "$cap/search-tokens-usd-large.headers" "$cap/search-tokens-first-large.headers"
	printf 'search-tokens-first-large\t%s\t-consume -paths %s\n' "$nbig" "$work/first-large.paths" >>"$eps"
	callgrind_control -i on "$cgpid" >/dev/null 2>&1
	run_set
fi

echo
printf '%-26s %-34s %-30s %s\n' endpoint "assetd instructions/request" "Go ceiling" "ratio (medians)"
while IFS=$'\t' read -r name a c; do
	am=$(echo "$a" | median)
	base200="" cbase200=""
	case $name in *-304)
		base200=$(awk -F'\t' -v b="${name%-304}" '$1==b{print $2}' "$results" | median)
		cbase200=$(awk -F'\t' -v b="${name%-304}" '$1==b{print $3}' "$results" | median)
		;;
	esac
	if [ -n "$base200" ]; then
		ratio=$(awk -v a="$am" -v b="$base200" -v n="${name%-304}" 'BEGIN{printf "%.2f of %s 200", a/b, n}')
		if [ "$c" != "-" ] && [ -n "$cbase200" ] && [ "$cbase200" != "-" ]; then
			cm=$(echo "$c" | median)
			ratio+=$(awk -v a="$am" -v c="$cm" -v b="$cbase200" 'BEGIN{printf "; ceiling 304 %.2f of its 200; %.2fx the ceiling 304", c/b, a/c}')
		fi
	elif [ "$c" != "-" ]; then
		cm=$(echo "$c" | median)
		ratio=$(awk -v a="$am" -v b="$cm" 'BEGIN{printf "%.2fx", a/b}')
	else
		ratio="-"
	fi
	printf '%-26s %-34s %-30s %s\n' "$name" "$a" "$c" "$ratio"
done <"$results"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
