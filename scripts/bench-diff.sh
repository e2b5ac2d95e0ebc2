#!/bin/sh
# bench-diff.sh: how fast ctx-diff compares two 10,000-step packs whose
# step outputs differ in every 10th step.
#
# 1. The lib/drift benchmarks (go test -bench), RUNS times each, with the
#    median and minimum ms/op: the comparison itself by index and by lcs,
#    the same with both manifests loaded and the report encoded, and the
#    alignment alone on its anchored and worst-case paths.
# 2. The ctx-diff binary end to end on the same pair, packed by ctx-pack
#    from generated logs: median and minimum wall time and median CPU time
#    (user + system) in ms. On a shared machine wall time measures the
#    neighbours as well; CPU time measures ctx-diff.
#
#   scripts/bench-diff.sh           # N=10000 RUNS=11
#   CTX_SEED=/path/to/seedctx scripts/bench-diff.sh   # also W6 against the seed
#   CTX_BEFORE=/path/to/ctx-diff CTX_SEED=… scripts/bench-diff.sh
#       # and another ctx-diff build (one before a change) in the same rounds
#   N=1000 RUNS=5 scripts/bench-diff.sh
#   GOBENCH=0 scripts/bench-diff.sh  # the binaries only (part 2 and W6)
set -eu
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0

N=${N:-10000}
RUNS=${RUNS:-11}

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# median of the numbers on stdin
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "$(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${GOBENCH:-1}" != 0 ]; then
	echo
	echo "lib/drift benchmarks (10,000 steps, every 10th output differs), $RUNS runs each"
	go test -run '^$' -bench . -count "$RUNS" ./lib/drift >"$tmp/bench"
	printf '%-28s %10s %10s\n' "benchmark" "ms-med" "ms-min"
	for b in $(awk '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print $1 }' "$tmp/bench" | sort -u); do
		awk -v b="$b" '{ n = $1; sub(/-[0-9]+$/, "", n) } n == b { printf "%.2f\n", $3 / 1e6 }' "$tmp/bench" >"$tmp/ms"
		printf '%-28s %10s %10s\n' "$b" "$(median <"$tmp/ms")" "$(sort -n "$tmp/ms" | head -1)"
	done
fi

echo
echo "ctx-diff end to end ($N steps), $RUNS runs per case"
go build -o "$tmp/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-diff
# log VARIANT: N steps; in variant b every 10th step output differs.
log() {
	awk -v n="$N" -v v="$1" 'BEGIN {
		printf "{\"created\":\"2026-02-10T09:00:00Z\",\"model\":{\"identifier\":\"gpt-4o\"},\"steps\":["
		split("read_file grep list_dir run_tests", tools, " ")
		for (i = 0; i < n; i++) {
			out = sprintf("step %d\\npackage pkg%d\\n\\nfunc F%d() int { return %d }\\n", i, i % 97, i, i)
			if (v == "b" && i % 10 == 0) out = out "// changed\\n"
			printf "%s{\"index\":%d,\"type\":\"tool_call\",\"tool\":\"%s\",\"parameters\":{\"path\":\"src/pkg%d/file%d.go\"},\"output\":\"%s\",\"deterministic\":true}", (i ? "," : ""), i, tools[i % 4 + 1], i % 97, i, out
		}
		print "]}"
	}'
}
log a >"$tmp/a.json"
log b >"$tmp/b.json"
export CTX_STORE="$tmp/.ctx"
"$tmp/ctx-init" --store "$CTX_STORE" >/dev/null
A=$("$tmp/ctx-pack" "$tmp/a.json" | sed 's/.*"hash":"\([^"]*\)".*/\1/')
B=$("$tmp/ctx-pack" "$tmp/b.json" | sed 's/.*"hash":"\([^"]*\)".*/\1/')

# run LABEL ARGS...: time "ctx-diff ARGS > /dev/null" RUNS times after one
# warm-up run; exit 1 (drift found) is success here.
run() {
	label=$1
	shift
	"$tmp/ctx-diff" "$@" >/dev/null 2>&1 || true
	: >"$tmp/wall"
	: >"$tmp/cpu"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		rc=0
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$tmp/ctx-diff" "$@" >/dev/null 2>"$tmp/err" || rc=$?
		t1=$(date +%s%N)
		if [ "$rc" -gt 1 ]; then
			echo "ctx-diff $*: exit $rc" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
		echo $(((t1 - t0) / 1000000)) >>"$tmp/wall"
		awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$tmp/time" >>"$tmp/cpu"
		i=$((i + 1))
	done
	printf '%-36s %8s %8s %8s\n' "$label" "$(median <"$tmp/wall")" "$(sort -n "$tmp/wall" | head -1)" "$(median <"$tmp/cpu")"
}
printf '%-36s %8s %8s %8s\n' "case" "wall-med" "wall-min" "cpu-med"
run "ctx-diff A B" "$A" "$B"
run "ctx-diff --align lcs A B" --align lcs "$A" "$B"
run "ctx-diff --ignore tool_output_drift A B" --ignore tool_output_drift "$A" "$B"
run "ctx-diff A A (same pack)" "$A" "$A"

# The same command on the shared workload generator's pair (gen_log.py
# --steps N --vary-every 10: 1,000 changed 256-byte outputs, about 1.5 MB
# of unified diffs printed), when the generator is there. CPU time is
# perf stat's task-clock (both cores together) when perf is installed:
# on a loaded machine it is the figure that measures ctx-diff.
GEN_LOG=${GEN_LOG:-../shared/bench/gen_log.py}
if [ -f "$GEN_LOG" ]; then
	echo
	echo "ctx-diff end to end, $GEN_LOG --steps $N --vary-every 10, $RUNS runs"
	python3 "$GEN_LOG" --seed 6 --inputs 5 --steps "$N" --vary-every 10 --variant 0 -o "$tmp/ga.json"
	python3 "$GEN_LOG" --seed 6 --inputs 5 --steps "$N" --vary-every 10 --variant 1 -o "$tmp/gb.json"
	GA=$("$tmp/ctx-pack" "$tmp/ga.json" | sed 's/.*"hash":"\([^"]*\)".*/\1/')
	GB=$("$tmp/ctx-pack" "$tmp/gb.json" | sed 's/.*"hash":"\([^"]*\)".*/\1/')
	printf '%-36s %8s %8s %8s\n' "case" "wall-med" "wall-min" "cpu-med"
	run "ctx-diff A B (gen_log)" "$GA" "$GB"
	run "ctx-diff A A (gen_log, one manifest)" "$GA" "$GA"
	# With CTX_SEED, the seed implementation's binary (its init, pack LOG
	# and diff A B; bench-w1.sh says how it is built), its diff of the same
	# pair, packed into its own store, alternating with ctx-diff run by
	# run, and the ratios of the medians (perf stat's task-clock for CPU).
	if [ -n "${CTX_SEED:-}" ] && [ -x "$CTX_SEED" ] && command -v perf >/dev/null 2>&1; then
		mkdir -p "$tmp/seed"
		SA=$(cd "$tmp/seed" && "$CTX_SEED" init >/dev/null && "$CTX_SEED" pack "$tmp/ga.json" | sed 's|.*ctx://||')
		SB=$(cd "$tmp/seed" && "$CTX_SEED" pack "$tmp/gb.json" | sed 's|.*ctx://||')
		who_all="seed ctx"
		if [ -n "${CTX_BEFORE:-}" ] && [ -x "$CTX_BEFORE" ]; then
			who_all="seed before ctx"
		fi
		for who in $who_all; do : >"$tmp/$who.t"; done
		i=0
		while [ "$i" -lt "$RUNS" ]; do
			for who in $who_all; do
				t0=$(date +%s%N)
				case $who in
				seed) (cd "$tmp/seed" && perf stat -x, -e task-clock,page-faults -o "$tmp/pst" "$CTX_SEED" diff "$SA" "$SB" >/dev/null 2>&1) || true ;;
				before) perf stat -x, -e task-clock,page-faults -o "$tmp/pst" "$CTX_BEFORE" "$GA" "$GB" >/dev/null 2>&1 || true ;;
				*) perf stat -x, -e task-clock,page-faults -o "$tmp/pst" "$tmp/ctx-diff" "$GA" "$GB" >/dev/null 2>&1 || true ;;
				esac
				t1=$(date +%s%N)
				echo "$(((t1 - t0) / 1000)) $(awk -F, '$3 == "task-clock" { t = $1 } $3 == "page-faults" { f = $1 } END { print t, f }' "$tmp/pst")" >>"$tmp/$who.t"
			done
			i=$((i + 1))
		done
		for who in $who_all; do
			printf '%-36s wall %8.1f ms  task-clock %6.1f ms  page faults %s\n' "$who diff A B (gen_log)" \
				"$(cut -d' ' -f1 "$tmp/$who.t" | median | awk '{ print $1 / 1000 }')" "$(cut -d' ' -f2 "$tmp/$who.t" | median)" "$(cut -d' ' -f3 "$tmp/$who.t" | median)"
		done
		for who in $who_all; do
			[ "$who" = seed ] && continue
			printf '%s / seed: wall %.2f, task-clock %.2f\n' "$who" \
				"$(echo "$(cut -d' ' -f1 "$tmp/$who.t" | median) / $(cut -d' ' -f1 "$tmp/seed.t" | median)" | bc -l)" \
				"$(echo "$(cut -d' ' -f2 "$tmp/$who.t" | median) / $(cut -d' ' -f2 "$tmp/seed.t" | median)" | bc -l)"
		done
	fi
	if command -v perf >/dev/null 2>&1; then
		for args in "$GA $GB" "$GA $GA" "--ignore tool_output_drift $GA $GB"; do
			# shellcheck disable=SC2086
			perf stat -x, -e task-clock,page-faults -r "$RUNS" "$tmp/ctx-diff" $args 2>&1 >/dev/null |
				awk -F, -v a="$args" '$3 == "task-clock" { t = $1 } $3 == "page-faults" { f = $1 }
					END { printf "perf stat: %-22s task-clock %6.1f ms  page faults %d\n", (a ~ /ignore/ ? "--ignore output" : (split(a, p, " ") && p[1] == p[2] ? "A A" : "A B")), t, f }'
		done
	fi
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
