#!/bin/bash
# bench-ab.sh: packing and verifying with two builds, alternating in one
# run, so that a change is judged against its base under the same load.
#   scripts/bench-ab.sh BASE [ROUNDS]   BASE: a git revision (default rounds 5)
# Each round packs W2 (1,000 × 10 KiB), re-packs it (W7), packs W3 (10,000
# × 1 KiB, by path) and W4 (one 100 MiB input) into fresh stores, and runs
# ctx-verify --store on W3's store, and, when the shared generator
# (../shared/bench/gen_log.py, or GEN_LOG) is there, ctx-diff of W6's two
# 10,000-step packs, first with BASE's binaries, then with the working
# tree's. Prints each time, then the medians.
set -euo pipefail
export CGO_ENABLED=0
base=${1:?usage: scripts/bench-ab.sh BASE [ROUNDS]}
rounds=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d "${TMPDIR:-/tmp}/ctx-ab.XXXXXX")
trap 'git -C "$root" worktree remove --force "$w/src" >/dev/null 2>&1 || true; rm -rf "$w"' EXIT
git -C "$root" worktree add --detach "$w/src" "$base" >/dev/null 2>&1
(cd "$w/src" && go build -o "$w/before/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-verify ./cmd/ctx-diff)
(cd "$root" && go build -o "$w/after/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-verify ./cmd/ctx-diff && go build -o "$w/genlog" ./scripts/genlog)
mkdir -p "$w/w3files"
"$w/genlog" -inputs 1000 -size 10240 >"$w/w2.json"
"$w/genlog" -inputs 10000 -size 1024 -files "$w/w3files" >"$w/w3.json"
"$w/genlog" -inputs 1 -size $((100 << 20)) >"$w/w4.json"
gen=${GEN_LOG:-$root/../shared/bench/gen_log.py}
w6=
if [ -f "$gen" ]; then
	python3 "$gen" --seed 6 --inputs 5 --steps 10000 --vary-every 10 --variant 0 -o "$w/w6a.json"
	python3 "$gen" --seed 6 --inputs 5 --steps 10000 --vary-every 10 --variant 1 -o "$w/w6b.json"
	w6=w6
fi

# ms CMD...: CMD's wall time and CPU time (user + system, all threads) in
# milliseconds; the CPU time is perf stat's task-clock when perf is
# installed, else GNU time's (10 ms steps). Under load, CPU time is the
# figure that measures the build rather than the neighbours.
ms() {
	local s e
	s=$(date +%s%N)
	if command -v perf >/dev/null; then
		perf stat -x, -e task-clock -o "$w/cpu" "$@" >/dev/null || [ $? = 1 ] # ctx-diff: 1 is drift found
		e=$(date +%s%N)
		echo "$(((e - s) / 1000000)) $(awk -F, '$3 == "task-clock" { printf "%d", $1 }' "$w/cpu")"
	else
		/usr/bin/time -f '%U %S' -o "$w/cpu" "$@" >/dev/null || [ $? = 1 ]
		e=$(date +%s%N)
		echo "$(((e - s) / 1000000)) $(awk '{ printf "%d", ($1 + $2) * 1000 }' "$w/cpu")"
	fi
}
echo "$(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
	for v in before after; do
		b=$w/$v
		st=$w/store-$v
		for wl in w2 w3 w4 $w6; do
			rm -rf "$st"
			if [ "$wl" = w6 ]; then
				"$b/ctx-init" --store "$st" >/dev/null
				CTX_STORE=$st "$b/ctx-pack" "$w/w6a.json" "$w/w6b.json" >"$w/w6.out"
				a=$(sed -n 1p "$w/w6.out" | sed 's/.*"hash":"\([^"]*\)".*/\1/')
				bb=$(sed -n 2p "$w/w6.out" | sed 's/.*"hash":"\([^"]*\)".*/\1/')
				echo "$v w6 $(CTX_STORE=$st ms "$b/ctx-diff" "$a" "$bb")"
				continue
			fi
			"$b/ctx-init" --store "$st" >/dev/null
			echo "$v $wl $(CTX_STORE=$st ms "$b/ctx-pack" "$w/$wl.json")"
			case $wl in
			w2) echo "$v w7 $(CTX_STORE=$st ms "$b/ctx-pack" "$w/w2.json")" ;;
			w3) echo "$v verify $(CTX_STORE=$st ms "$b/ctx-verify" --store)" ;;
			esac
		done
	done
done | tee "$w/times"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '\n%-8s %10s %10s %10s %10s   (median ms of %d rounds)\n' workload wall-before wall-after cpu-before cpu-after "$rounds"
for wl in w2 w7 w3 w4 verify $w6; do
	med() { awk -v v="$1" -v w="$wl" -v c="$2" '$1 == v && $2 == w { print $c }' "$w/times" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
	printf '%-8s %10s %10s %10s %10s\n' "$wl" "$(med before 3)" "$(med after 3)" "$(med before 4)" "$(med after 4)"
done
