#!/bin/bash
# Measures what the ctx front costs: `ctx log` against `ctx-log` on a store
# of 200 packs, paired in one run: each round times a batch of each, in
# alternating order, output to /dev/null. Prints, per invocation, the
# median wall time and the median CPU time (user+sys, which the other
# work on a shared machine disturbs less), and their ratios to ctx-log
# (target: ctx log <= 1.10 x ctx-log). With BASE=REV in the environment,
# the front as built at git revision REV is timed in the same rounds. The
# floor of any front written in Go is timed too: a program that does
# nothing but exec ctx-log (the Go runtime's start and one execve).
# Usage: [BASE=REV] scripts/bench-front.sh [RUNS] [BATCH]   (default 21 20)
set -euo pipefail
export CGO_ENABLED=0 # static binaries, as installed (see bench-verify.sh)
runs=${1:-21}
batch=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-front.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/bin/" ./cmd/ctx ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-log
mkdir "$work/floor"
cat > "$work/floor/main.go" <<'GO'
package main

import (
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	self, _ := os.Executable()
	bin := filepath.Join(filepath.Dir(self), "ctx-"+os.Args[1])
	syscall.Exec(bin, append([]string{bin}, os.Args[2:]...), os.Environ())
	os.Exit(2)
}
GO
printf 'module floor\ngo 1.22\n' > "$work/floor/go.mod"
(cd "$work/floor" && go build -o "$work/bin/ctx-floor" .)
sides="front floor tool"
if [ -n "${BASE:-}" ]; then
	mkdir "$work/base"
	git archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/bin/ctx-base" ./cmd/ctx)
	sides="front base floor tool"
fi
PATH="$work/bin:$PATH"

cd "$work"
ctx-init >/dev/null
for i in $(seq 1 200); do
	printf '{"created":"2026-01-01T00:%02d:%02dZ","model":{"identifier":"m"},"steps":[{"index":0,"type":"llm_call","output":"answer %d"}]}\n' \
		$((i / 60)) $((i % 60)) "$i" > "log-$i.json"
done
ctx-pack log-*.json >/dev/null
rm log-*.json
[ "$(ctx-log | wc -l)" = 200 ] || { echo "want 200 packs" >&2; exit 1; }
cmp <(ctx log) <(ctx-log) # the same output

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
cmd_of() {
	case $1 in
	front) echo "ctx log" ;;
	base) echo "ctx-base log" ;;
	floor) echo "ctx-floor log" ;;
	tool) echo "ctx-log" ;;
	esac
}
# batch SIDE appends "wall_us cpu_us" per invocation of SIDE to SIDE.t.
batch() {
	local c t0 t1 c0 c1
	c=$(cmd_of "$1")
	c0=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
	t0=$(date +%s%N)
	for _ in $(seq 1 "$batch"); do $c >/dev/null; done
	t1=$(date +%s%N)
	c1=$(awk '{print $14 + $15 + $16 + $17}' /proc/$$/stat)
	# /proc/PID/stat counts the children's CPU time in clock ticks.
	echo "$(((t1 - t0) / batch / 1000)) $(((c1 - c0) * 1000000 / $(getconf CLK_TCK) / batch))" >> "$1.t"
}
for s in $sides; do : > "$s.t"; batch "$s"; : > "$s.t"; done # warm
for r in $(seq 1 "$runs"); do
	order=$sides
	[ $((r % 2)) = 0 ] && order=$(echo "$sides" | tr ' ' '\n' | tac | tr '\n' ' ')
	for s in $order; do batch "$s"; done
done
tw=$(cut -d' ' -f1 tool.t | median)
tc=$(cut -d' ' -f2 tool.t | median)
for s in $sides; do
	w=$(cut -d' ' -f1 "$s.t" | median)
	c=$(cut -d' ' -f2 "$s.t" | median)
	printf '%-14s wall %6d µs (%.3f)   cpu %6d µs (%.3f)\n' "$(cmd_of "$s")" "$w" "$(echo "$w / $tw" | bc -l)" "$c" "$(echo "$c / $tc" | bc -l)"
done
echo "target: ctx log <= 1.10 x ctx-log"
