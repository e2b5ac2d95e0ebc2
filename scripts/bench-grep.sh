#!/bin/sh
# bench-grep.sh: how fast ctx-grep searches a store, against ripgrep
# over the same object files in the same run.
#
# Builds ctx-grep and scripts/genpacks, fills a store with N packs of
# CONTENT bytes of distinct text each (once; kept in $CTX_BENCH_DIR, by
# default ${TMPDIR:-/tmp}/ctx-bench-grep-N-CONTENT, and reused while it
# holds N packs), reads every object once to warm the page cache, then
# runs each case RUNS times and prints the median and minimum wall time,
# the median CPU time (user + system) in milliseconds, and the median
# throughput over the store's unique object bytes (as ctx-grep --stats
# counts them). rg runs with as many threads as ctx-grep (the CPUs) over
# .ctx/objects; it is skipped when it is not installed. Output goes
# through a pipe, as in ctx-grep | jq.
#
#   scripts/bench-grep.sh                   # N=1024 CONTENT=1048576 (1 GiB) RUNS=7
#   N=256 RUNS=3 scripts/bench-grep.sh
set -eu
export CGO_ENABLED=0

N=${N:-1024}
CONTENT=${CONTENT:-1048576}
RUNS=${RUNS:-7}
DIR=${CTX_BENCH_DIR:-${TMPDIR:-/tmp}/ctx-bench-grep-$N-$CONTENT}

cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./cmd/ctx-grep ./scripts/genpacks

have=$(ls "$DIR/.ctx/packs" 2>/dev/null | wc -l)
if [ "$have" -ne "$N" ]; then
	rm -rf "$DIR"
	"$bin/genpacks" -n "$N" -content "$CONTENT" "$DIR"
fi
export CTX_STORE="$DIR/.ctx"
objects="$DIR/.ctx/objects"
find "$objects" -type f -exec cat {} + >/dev/null # warm

bytes=$("$bin/ctx-grep" --stats -F 'no such text' 2>&1 >/dev/null | sed -n 's/.*objects (\([0-9,]*\) bytes).*/\1/p' | tr -d ,)
rg=$(command -v rg || true)

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run LABEL CMD ARGS...: time "CMD ARGS | cat" RUNS times after one
# warm-up run. Exit 1 (no match) is not a failure.
run() {
	label=$1
	shift
	"$@" 2>/dev/null | cat >/dev/null || true
	: >"$bin/wall"
	: >"$bin/cpu"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		/usr/bin/time -f '%U %S %x' -o "$bin/time" "$@" 2>"$bin/err" | cat >/dev/null
		code=$(tail -n 1 "$bin/time" | cut -d' ' -f3)
		if [ "$code" -gt 1 ]; then
			echo "$*: failed (exit $code)" >&2
			cat "$bin/err" >&2
			exit 1
		fi
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000)) >>"$bin/wall"
		tail -n 1 "$bin/time" | awk '{ printf "%d\n", ($1 + $2) * 1000 }' >>"$bin/cpu"
		i=$((i + 1))
	done
	wall=$(median <"$bin/wall")
	printf '%-46s %8s %8s %8s %8s\n' "$label" "$wall" "$(sort -n "$bin/wall" | head -1)" "$(median <"$bin/cpu")" \
		"$(awk -v b="$bytes" -v ms="$wall" 'BEGIN { printf "%.2f", b / (ms / 1000) / 1e9 }')"
}

echo "store: $DIR ($N packs, $bytes bytes of unique objects), $RUNS runs per case, $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-46s %8s %8s %8s %8s\n' "case" "wall-ms" "min-ms" "cpu-ms" "GB/s"
# both LABEL ARGS...: the case for ctx-grep and, when present, rg.
both() {
	name=$1
	shift
	run "ctx-grep $name" "$bin/ctx-grep" "$@"
	if [ -n "$rg" ]; then
		run "rg $name" "$rg" -j "$(nproc)" --no-messages "$@" "$objects"
	fi
}
both "-F 'deadline exceeded'" -F 'deadline exceeded'
both "-i 'DEADLINE exceeded'" -i 'DEADLINE exceeded'
both "-w 'deadline'" -w deadline
both "'deadline exc[a-z]+ after [0-9]+ms'" 'deadline exc[a-z]+ after [0-9]+ms'
both "-F 'no such text'" -F 'no such text'
[ -n "$rg" ] || echo "(rg is not installed: its cases were skipped)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
