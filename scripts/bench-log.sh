#!/bin/sh
# bench-log.sh: how fast ctx-log lists a large store.
#
# Builds ctx-log and scripts/genpacks, fills a store with N small packs
# (once; the store is kept in $CTX_BENCH_DIR, by default
# ${TMPDIR:-/tmp}/ctx-bench-log-N, and reused while it holds N packs),
# then runs each case RUNS times and prints the median and minimum wall
# time and the median CPU time (user + system) in milliseconds. On a
# shared machine wall time measures the neighbours as well; CPU time
# measures ctx-log. Output goes through a pipe, as in ctx-log | jq (a
# redirection to /dev/null would look like a terminal to ctx-log).
#
# Cases run twice: with the entry cache (in $DIR/cache, warmed by the
# first run) and without it (CTX_LOG_CACHE=off: every packs/ entry file
# opened and read).
#
#   scripts/bench-log.sh            # N=100000 RUNS=11
#   N=10000 RUNS=5 scripts/bench-log.sh
set -eu
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0

N=${N:-100000}
RUNS=${RUNS:-11}
DIR=${CTX_BENCH_DIR:-${TMPDIR:-/tmp}/ctx-bench-log-$N}

cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./cmd/ctx-log ./scripts/genpacks

have=$(ls "$DIR/.ctx/packs" 2>/dev/null | wc -l)
if [ "$have" -ne "$N" ]; then
	rm -rf "$DIR"
	"$bin/genpacks" -n "$N" "$DIR"
fi
export CTX_STORE="$DIR/.ctx"
export CTX_LOG_CACHE="$DIR/cache"

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run LABEL ARGS...: time "ctx-log ARGS > /dev/null" RUNS times after one
# warm-up run.
run() {
	label=$1
	shift
	"$bin/ctx-log" "$@" 2>/dev/null | cat >/dev/null
	: >"$bin/wall"
	: >"$bin/cpu"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%U %S %x' -o "$bin/time" "$bin/ctx-log" "$@" 2>"$bin/err" | cat >/dev/null
		if [ "$(cut -d' ' -f3 "$bin/time")" != 0 ]; then
			echo "ctx-log $*: failed" >&2
			cat "$bin/err" >&2
			exit 1
		fi
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000)) >>"$bin/wall"
		awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$bin/time" >>"$bin/cpu"
		i=$((i + 1))
	done
	printf '%-50s %8s %8s %8s\n' "$label" "$(median <"$bin/wall")" "$(sort -n "$bin/wall" | head -1)" "$(median <"$bin/cpu")"
}

echo "store: $DIR ($N packs), $RUNS runs per case, $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cases() {
	run "ctx-log (all $N lines)"
	run "ctx-log -n 20" -n 20
	run "ctx-log --human (all)" --human
	run "ctx-log --model gpt-4o -n 20" --model gpt-4o -n 20
	run "ctx-log --where 'steps>3' -n 20" --where 'steps>3' -n 20
	run "ctx-log --where 'model.parameters.seed>0' -n 20" --where 'model.parameters.seed>0' -n 20
}
printf '%-50s %8s %8s %8s\n' "case (ms)" "wall-med" "wall-min" "cpu-med"
rm -rf "$CTX_LOG_CACHE"
t0=$(date +%s%N)
"$bin/ctx-log" -n 1 >/dev/null
echo "first listing, writing the cache: $((($(date +%s%N) - t0) / 1000000)) ms"
echo "-- with the entry cache"
cases
run "ctx-log --lineage latest" --lineage latest
run "ctx-log --tags" --tags
echo "-- without it (CTX_LOG_CACHE=off)"
export CTX_LOG_CACHE=off
cases
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
