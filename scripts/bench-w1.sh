#!/bin/bash
# W1 against the seed implementation, paired: `init && pack` of W1 (5
# inputs × 1 KiB, 10 steps) by the seed implementation and by ctx
# (ctx-init && ctx-pack), alternating, each run in a fresh directory;
# medians of the wall and CPU time (user + system) of each, and their
# ratio. Also the sync calls each makes, when strace is installed.
#   CTX_SEED=/path/to/seedctx scripts/bench-w1.sh [ROUNDS [BASE]]   (default 21)
# CTX_SEED is the seed implementation's binary (its `init` and `pack LOG`
# are run; docs/performance.md says how to build it); without it, ctx is
# timed alone and the comparison is skipped. With BASE, a git revision,
# ctx as built at BASE is timed too, in the same rounds ("base"). The log
# comes from the shared
# generator (../shared/bench/gen_log.py, or GEN_LOG) when it is there, as
# the seed was measured, else from scripts/genlog.
# Nothing is deleted until the end: on ext4 without a journal, inodes
# freed in the last 30-60 s slow the creation of new ones, which would
# land on whichever case runs next.
set -euo pipefail
export CGO_ENABLED=0
rounds=${1:-21}
base=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d "${TMPDIR:-/tmp}/ctx-w1.XXXXXX")
trap '[ -z "$base" ] || git -C "$root" worktree remove --force "$w/src" >/dev/null 2>&1 || true; rm -rf "$w"' EXIT
cd "$root"
go build -o "$w/bin/" ./cmd/ctx-init ./cmd/ctx-pack ./scripts/genlog
if [ -n "$base" ]; then
	git -C "$root" worktree add --detach "$w/src" "$base" >/dev/null 2>&1
	(cd "$w/src" && go build -o "$w/base/" ./cmd/ctx-init ./cmd/ctx-pack)
fi

gen=${GEN_LOG:-$root/../shared/bench/gen_log.py}
if [ -f "$gen" ]; then
	python3 "$gen" --seed 1 --inputs 5 --input-size 1024 --steps 10 -o "$w/w1.json"
else
	"$w/bin/genlog" -inputs 5 -size 1024 -steps 10 >"$w/w1.json"
fi

cases=(ctx)
[ -z "$base" ] || cases=(base ctx)
seed=${CTX_SEED:-}
if [ -n "$seed" ] && [ -x "$seed" ]; then
	cases=(seed "${cases[@]}")
else
	echo "bench-w1.sh: CTX_SEED is not set to the seed implementation's binary: timing ctx alone, no comparison"
fi
cmd() { # case dir: init and pack W1 in dir
	case $1 in
	seed) cd "$2" && "$seed" init && "$seed" pack "$w/w1.json" ;;
	ctx) cd "$2" && "$w/bin/ctx-init" && "$w/bin/ctx-pack" "$w/w1.json" ;;
	base) cd "$2" && "$w/base/ctx-init" && "$w/base/ctx-pack" "$w/w1.json" ;;
	esac
}

echo "$(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
TIMEFORMAT='%3R %3U %3S' # CPU: user and system time of the run's processes
for ((r = 0; r < rounds; r++)); do
	for c in "${cases[@]}"; do
		d=$w/runs/$c-$r
		mkdir -p "$d"
		t0=$EPOCHREALTIME
		if ! { time (cmd "$c" "$d" >/dev/null 2>"$w/err"); } 2>>"$w/$c.cpu"; then
			echo "bench-w1.sh: $c failed:" >&2
			cat "$w/err" >&2
			exit 2
		fi
		t1=$EPOCHREALTIME
		echo "($t1 - $t0) * 1000" | bc -l >>"$w/$c.wall"
	done
	# Alternate which goes first.
	cases=("${cases[@]:1}" "${cases[0]}")
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
declare -A wall cpu
for c in seed base ctx; do
	[ -f "$w/$c.wall" ] || continue
	wall[$c]=$(median <"$w/$c.wall")
	cpu[$c]=$(awk '{print ($2 + $3) * 1000}' "$w/$c.cpu" | median)
	printf '%-5s init + pack: wall median %6.2f ms (min %5.2f), CPU median %5.1f ms, %d runs\n' "$c" "${wall[$c]}" \
		"$(sort -g "$w/$c.wall" | head -1)" "${cpu[$c]}" "$rounds"
done
if [ -n "${wall[seed]:-}" ]; then
	if [ -n "$base" ]; then
		printf 'base / seed: wall %.2f, CPU %.2f\n' \
			"$(echo "${wall[base]} / ${wall[seed]}" | bc -l)" "$(echo "${cpu[base]} / ${cpu[seed]}" | bc -l)"
	fi
	printf 'ctx / seed: wall %.2f, CPU %.2f  (target: wall <= 1.0)\n' \
		"$(echo "${wall[ctx]} / ${wall[seed]}" | bc -l)" "$(echo "${cpu[ctx]} / ${cpu[seed]}" | bc -l)"
fi
if [ -n "$base" ]; then
	printf 'ctx / base: wall %.2f, CPU %.2f\n' \
		"$(echo "${wall[ctx]} / ${wall[base]}" | bc -l)" "$(echo "${cpu[ctx]} / ${cpu[base]}" | bc -l)"
fi

if command -v strace >/dev/null; then
	for c in seed ctx; do
		[ -f "$w/$c.wall" ] || continue
		d=$w/strace-$c
		mkdir -p "$d"
		strace -f -qq -e trace=fsync,fdatasync,syncfs,sync,sync_file_range -o "$w/$c.strace" bash -c "$(declare -f cmd); w=$w seed=$seed cmd $c $d" >/dev/null
		calls=$(grep -oE '^[0-9]+ +(fsync|fdatasync|syncfs|sync|sync_file_range)' "$w/$c.strace" | awk '{print $2}' | sort | uniq -c | awk '{printf "%s %s ", $1, $2}' || true)
		printf '%-5s sync calls: %s\n' "$c" "${calls:-none}"
	done
fi
