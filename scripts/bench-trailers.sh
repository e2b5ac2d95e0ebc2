#!/bin/sh
# bench-trailers.sh: the commit hook's work — ctx-blame --trailers on an
# index that stages FILES new files (of 20 lines each, and big.go, which
# the packs wrote) against a store of N packs. With BLANK=1 (the default)
# each file holds a blank line, which an agent's line may be next to, so
# every file is read; with BLANK=0 no pack could have written the files'
# lines and none is.
#
# Builds ctx-blame and scripts/genedits, fills a store and a git
# repository (once; kept in $CTX_BENCH_DIR, by default
# ${TMPDIR:-/tmp}/ctx-bench-trailers-N-FILES), runs ctx-blame --trailers
# once to fill its cache, then RUNS times, and prints the median and
# minimum wall time and the median CPU time (user + system, git's
# included) in milliseconds, and the trailers.
#
#   scripts/bench-trailers.sh        # N=1000 FILES=6000 RUNS=5
set -eu
export CGO_ENABLED=0
N=${N:-1000}
FILES=${FILES:-6000}
RUNS=${RUNS:-5}
BLANK=${BLANK:-1}
DIR=${CTX_BENCH_DIR:-${TMPDIR:-/tmp}/ctx-bench-trailers-$N-$FILES-$BLANK}

cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/" ./cmd/ctx-blame ./scripts/genedits

if [ ! -f "$DIR/.ready" ]; then
	rm -rf "$DIR"
	"$bin/genedits" -n "$N" -lines 2000 "$DIR"
	git init -q "$DIR/repo"
	mv "$DIR/big.go" "$DIR/repo/"
	awk -v n="$FILES" -v dir="$DIR/repo" -v blank="$BLANK" 'BEGIN {
		for (i = 0; i < 50 && i < n; i++) system("mkdir -p \"" dir "/pkg" i "\"")
		for (i = 0; i < n; i++) {
			f = sprintf("%s/pkg%d/file %d.txt", dir, i % 50, i)
			for (j = 0; j < 20; j++) printf "line %d of file %d, written by a person\n%s", j, i, (blank && j == 9) ? "\n" : "" > f
			close(f)
		}
	}'
	git -C "$DIR/repo" add .
	touch "$DIR/.ready"
fi
export CTX_STORE="$DIR/.ctx" CTX_BLAME_CACHE="$DIR/cache"
cd "$DIR/repo"
"$bin/ctx-blame" --trailers >"$bin/trailers"

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$bin/wall"
: >"$bin/cpu"
i=0
while [ "$i" -lt "$RUNS" ]; do
	t0=$(date +%s%N)
	/usr/bin/time -f '%U %S %x' -o "$bin/time" "$bin/ctx-blame" --trailers 2>"$bin/err" | cat >/dev/null
	if [ "$(cut -d' ' -f3 "$bin/time")" != 0 ]; then
		echo "ctx-blame --trailers: failed" >&2
		cat "$bin/err" >&2
		exit 1
	fi
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >>"$bin/wall"
	awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$bin/time" >>"$bin/cpu"
	i=$((i + 1))
done
echo "ctx-blame --trailers, $((FILES + 1)) staged files (BLANK=$BLANK) against $N packs, $RUNS runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wall median $(median <"$bin/wall") ms, min $(sort -n "$bin/wall" | head -1) ms; CPU median $(median <"$bin/cpu") ms"
echo "trailers: $(wc -l <"$bin/trailers")"
