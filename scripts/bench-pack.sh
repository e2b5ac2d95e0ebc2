#!/bin/bash
# Reproduces the packing figures in docs/performance.md. Generates its own
# logs, runs each workload RUNS times in fresh stores, and prints medians.
#   W1  5 inputs × 1 KiB, 10 steps  W2  1,000 × 10 KiB     W3  10,000 × 1 KiB
#   W4  one 100 MiB inline input  W7  re-pack W2 into a store holding it
# Anchors measured in the same run: git hash-object -w --stdin-paths over
# W3's contents, and sha256sum + write + sync of W4's 100 MiB.
# Also: W3 under each fsync strategy (CTX_FSYNC=fs|batch|object), and
# ctx-init + ctx-pack of W1 against scripts/w1base, a trivial Go program
# that writes the same files with the same syncs.
# Usage: scripts/bench-pack.sh [RUNS]   (default 5); scripts/bench.sh runs
#   every benchmark.
set -euo pipefail
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/bin/" ./cmd/ctx-init ./cmd/ctx-pack
go build -o "$work/bin/genlog" ./scripts/genlog
go build -o "$work/bin/w1base" ./scripts/w1base
PATH="$work/bin:$PATH"

mkdir -p "$work/w3files"
genlog -inputs 5 -size 1024 -steps 10 > "$work/w1.json"
genlog -inputs 1000 -size 10240 > "$work/w2.json"
genlog -inputs 10000 -size 1024 -files "$work/w3files" > "$work/w3.json"
genlog -inputs 1 -size $((100 << 20)) > "$work/w4.json"
head -c $((100 << 20)) /dev/urandom > "$work/w4.bin"
(cd "$work/w3files" && ls) | sed "s|^|$work/w3files/|" > "$work/w3.list"

# now: seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# run NAME SETUP CMD: time CMD (after SETUP, untimed) RUNS times; print the median in ms.
declare -A result
run() {
	local name=$1 setup=$2 cmd=$3 t=()
	for _ in $(seq "$runs"); do
		rm -rf "$work/s" && mkdir -p "$work/s" && (cd "$work/s" && eval "$setup") >/dev/null
		local a b
		a=$(now); (cd "$work/s" && eval "$cmd") >/dev/null; b=$(now)
		t+=("$(echo "($b - $a) * 1000" | bc -l)")
	done
	result[$name]=$(printf '%s\n' "${t[@]}" | median)
	printf '%-28s %10.1f ms\n' "$name" "${result[$name]}"
}

run W1 "ctx-init >/dev/null" "ctx-pack $work/w1.json"
run W1-init+pack ":" "ctx-init >/dev/null && ctx-pack $work/w1.json"
run W1-baseline ":" "w1base ."
run W2 "ctx-init >/dev/null" "ctx-pack $work/w2.json"
run W3 "ctx-init >/dev/null" "ctx-pack $work/w3.json"
run W3-fsync-batch "ctx-init >/dev/null" "CTX_FSYNC=batch ctx-pack $work/w3.json"
run W3-fsync-object "ctx-init >/dev/null" "CTX_FSYNC=object ctx-pack $work/w3.json"
run git-hash-object-W3 "git init -q ." "git hash-object -w --stdin-paths < $work/w3.list"
run W4 "ctx-init >/dev/null" "ctx-pack $work/w4.json"
run sha256+write-100MiB ":" "sha256sum $work/w4.bin && cp $work/w4.bin copy && sync -f copy"
run W7 "ctx-init >/dev/null && ctx-pack $work/w2.json" "ctx-pack $work/w2.json"

rm -rf "$work/s" && mkdir -p "$work/s" && (cd "$work/s" && ctx-init >/dev/null)
rss=$(cd "$work/s" && /usr/bin/time -f %M ctx-pack "$work/w4.json" 2>&1 >/dev/null | tail -1)
echo
printf 'W3 / git hash-object        %6.2f  (target <= 0.5)\n' "$(echo "${result[W3]} / ${result[git-hash-object-W3]}" | bc -l)"
printf 'W4 / (sha256 + write)       %6.2f  (target <= 2)\n' "$(echo "${result[W4]} / ${result[sha256+write-100MiB]}" | bc -l)"
printf 'W4 peak RSS                 %6.0f MiB (target <= 1.5 x 100 + 32 = 182)\n' "$(echo "$rss / 1024" | bc -l)"
printf 'W1                          %6.1f ms\n' "${result[W1]}"
printf 'W1 init+pack / baseline     %6.2f  (target <= 2)\n' "$(echo "${result[W1-init+pack]} / ${result[W1-baseline]}" | bc -l)"
printf 'W7 / W2                     %6.2f  (target <= 0.4)\n' "$(echo "${result[W7]} / ${result[W2]}" | bc -l)"
