#!/bin/sh
# bench-blame.sh: ctx-blame on save — a file of LINES lines against a
# store of N packs, after a first run filled the cache.
#
# Builds ctx-blame and scripts/genedits, fills a store (once; kept in
# $CTX_BENCH_DIR, by default ${TMPDIR:-/tmp}/ctx-bench-blame-N-LINES),
# runs ctx-blame once to fill its cache, then RUNS times, and prints the
# median and minimum wall time and the median CPU time (user + system) in
# milliseconds. Output goes through a pipe, as in an editor's call.
#
#   scripts/bench-blame.sh           # N=1000 LINES=2000 RUNS=11
set -eu
export CGO_ENABLED=0
N=${N:-1000}
LINES=${LINES:-2000}
RUNS=${RUNS:-11}
DIR=${CTX_BENCH_DIR:-${TMPDIR:-/tmp}/ctx-bench-blame-$N-$LINES}

cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./cmd/ctx-blame ./scripts/genedits

if [ "$(ls "$DIR/.ctx/packs" 2>/dev/null | wc -l)" -ne "$N" ] || [ ! -f "$DIR/big.go" ]; then
	rm -rf "$DIR"
	"$bin/genedits" -n "$N" -lines "$LINES" "$DIR"
fi
export CTX_STORE="$DIR/.ctx" CTX_BLAME_CACHE="$DIR/cache"
cd "$DIR"
"$bin/ctx-blame" big.go | tail -1 >/dev/null

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$bin/wall"
: >"$bin/cpu"
i=0
while [ "$i" -lt "$RUNS" ]; do
	t0=$(date +%s%N)
	/usr/bin/time -f '%U %S %x' -o "$bin/time" "$bin/ctx-blame" big.go 2>"$bin/err" | cat >/dev/null
	if [ "$(cut -d' ' -f3 "$bin/time")" != 0 ]; then
		echo "ctx-blame big.go: failed" >&2
		cat "$bin/err" >&2
		exit 1
	fi
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >>"$bin/wall"
	awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$bin/time" >>"$bin/cpu"
	i=$((i + 1))
done
echo "ctx-blame, $LINES lines against $N packs, $RUNS runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wall median $(median <"$bin/wall") ms, min $(sort -n "$bin/wall" | head -1) ms; CPU median $(median <"$bin/cpu") ms"
