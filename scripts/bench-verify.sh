#!/bin/bash
# Measures ctx-verify --store (fsck) on a store of 10,000 objects of 10 KiB
# (100 MiB) against sha256sum over the same object files, in the same run,
# with a warm page cache. Each side runs RUNS times, alternating; medians
# are printed, and the ratio of throughputs (target: >= 60 % of sha256sum).
# ctx-verify also runs on one core (GOMAXPROCS=1) to show what the second
# one brings.
# Usage: scripts/bench-verify.sh [RUNS]   (default 7)
set -euo pipefail
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0
runs=${1:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-verify.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/bin/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-verify
go build -o "$work/bin/genlog" ./scripts/genlog
PATH="$work/bin:$PATH"

cd "$work"
genlog -inputs 10000 -size $(((100 << 20) / 10000)) > log.json
ctx-init >/dev/null
ctx-pack log.json >/dev/null
rm log.json
find .ctx/objects -type f | sort > objects.list
nobj=$(wc -l < objects.list)
bytes=$(xargs cat < objects.list | wc -c)

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# Warm the cache and check both agree the store is intact.
ctx-verify --store | grep -q '"ok":true'
xargs sha256sum < objects.list >/dev/null

: > verify.t
: > one.t
: > sum.t
for _ in $(seq "$runs"); do
	a=$(now); ctx-verify --store >/dev/null; b=$(now)
	echo "$b - $a" | bc >> verify.t
	a=$(now); GOMAXPROCS=1 ctx-verify --store >/dev/null; b=$(now)
	echo "$b - $a" | bc >> one.t
	a=$(now); xargs sha256sum < objects.list >/dev/null; b=$(now)
	echo "$b - $a" | bc >> sum.t
done
v=$(median < verify.t)
o=$(median < one.t)
s=$(median < sum.t)
mib=$(echo "scale=1; $bytes / 1048576" | bc)
printf 'store: %d objects, %s MiB; %d runs, %d CPUs\n' "$nobj" "$mib" "$runs" "$(nproc)"
printf 'ctx-verify --store  median %6.3f s  %7.1f MiB/s\n' "$v" "$(echo "$mib / $v" | bc -l)"
printf '  on one core       median %6.3f s  %7.1f MiB/s\n' "$o" "$(echo "$mib / $o" | bc -l)"
printf 'sha256sum           median %6.3f s  %7.1f MiB/s\n' "$s" "$(echo "$mib / $s" | bc -l)"
printf 'ctx-verify / sha256sum throughput: %.0f %%\n' "$(echo "100 * $s / $v" | bc -l)"
