#!/bin/sh
# bench-html.sh: how fast the --html pages render, and how large they are.
#
# 1. The lib/htmlview benchmarks, RUNS times each: the diff page of two
#    10,000-step packs whose outputs differ in every 10th step (the pair of
#    scripts/bench-diff.sh), aligned by index and by lcs, and the pack page
#    of a 300-step session; medians of wall ms/op, CPU ms/op (user +
#    system, garbage collector included) and page size.
# 2. The binaries end to end on the same workloads, packed by ctx-pack from
#    generated logs: `ctx-diff --html A B` and `ctx-show --html P`, median
#    wall and CPU time, page size and peak RSS.
#
#   scripts/bench-html.sh           # RUNS=5
set -eu
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0

RUNS=${RUNS:-5}

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "$(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "lib/htmlview benchmarks, $RUNS runs each"
go test -run '^$' -bench Page -benchtime 5x -count "$RUNS" ./lib/htmlview >"$tmp/bench"
printf '%-22s %10s %10s %8s\n' "benchmark" "ms-med" "cpu-ms" "MB"
for b in $(awk '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); print $1 }' "$tmp/bench" | sort -u); do
	field() { awk -v b="$b" -v u="$1" '{ n = $1; sub(/-[0-9]+$/, "", n) } n == b { for (i = 3; i < NF; i++) if ($(i + 1) == u) print $i }' "$tmp/bench"; }
	ms=$(field ns/op | awk '{ printf "%.1f\n", $1 / 1e6 }' | median)
	printf '%-22s %10s %10s %8s\n' "$b" "$ms" "$(field cpu-ms/op | median)" "$(field MB | median)"
done

echo
echo "binaries end to end, $RUNS runs per case"
go build -o "$tmp/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-diff ./cmd/ctx-show
# difflog VARIANT: 10,000 steps; in variant b every 10th step output differs.
difflog() {
	awk -v v="$1" 'BEGIN {
		printf "{\"created\":\"2026-02-10T09:00:00Z\",\"model\":{\"identifier\":\"gpt-4o\"},\"steps\":["
		split("read_file grep list_dir run_tests", tools, " ")
		for (i = 0; i < 10000; i++) {
			out = sprintf("step %d\\npackage pkg%d\\n\\nfunc F%d() int { return %d }\\n", i, i % 97, i, i)
			if (v == "b" && i % 10 == 0) out = out "// changed\\n"
			printf "%s{\"index\":%d,\"type\":\"tool_call\",\"tool\":\"%s\",\"parameters\":{\"path\":\"src/pkg%d/file%d.go\"},\"output\":\"%s\",\"deterministic\":true}", (i ? "," : ""), i, tools[i % 4 + 1], i % 97, i, out
		}
		print "]}"
	}'
}
# session: 300 steps as an agent records them: file reads of 1-6 KiB,
# searches, model calls with a paragraph, edits.
session() {
	awk 'BEGIN {
		printf "{\"created\":\"2026-02-10T09:00:00Z\",\"model\":{\"identifier\":\"claude-sonnet-4\"},\"steps\":["
		for (i = 0; i < 300; i++) {
			ts = sprintf("2026-02-10T09:%02d:%02dZ", int(i / 60), i % 60)
			k = i % 4
			if (k == 0) {
				out = ""
				for (l = 0; l < 40 + (i * 7) % 120; l++) out = out sprintf("\\tx%d := compute(%d, \\\"value\\\") // line %d\\n", l, l * i, l)
				st = sprintf("\"type\":\"tool_call\",\"tool\":\"Read\",\"parameters\":{\"file_path\":\"/repo/src/pkg%d/file%d.go\"},\"output\":\"%s\",\"deterministic\":true", i % 13, i, out)
			} else if (k == 1) {
				st = sprintf("\"type\":\"tool_call\",\"tool\":\"Grep\",\"parameters\":{\"pattern\":\"compute\",\"path\":\"/repo\"},\"output\":\"src/pkg%d/file%d.go:12:\\tx := compute(%d)\\n\",\"deterministic\":true", i % 13, i, i)
			} else if (k == 2) {
				out = ""
				for (r = 0; r < 6; r++) out = out sprintf("Step %d: the function returns the wrong total when the list is empty, so I will add a guard. ", i)
				st = sprintf("\"type\":\"llm_call\",\"tool\":\"claude-sonnet-4\",\"parameters\":{\"max_tokens\":4096},\"output\":\"%s\",\"deterministic\":false", out)
			} else {
				st = sprintf("\"type\":\"tool_call\",\"tool\":\"Edit\",\"parameters\":{\"file_path\":\"/repo/src/pkg%d/file%d.go\",\"new_string\":\"if len(xs) == 0 {\\n\\treturn 0\\n}\\n\",\"old_string\":\"return sum(xs)\"},\"output\":\"The file has been updated.\",\"deterministic\":false", i % 13, i)
			}
			printf "%s{\"index\":%d,%s,\"timestamp\":\"%s\"}", (i ? "," : ""), i, st, ts
		}
		print "]}"
	}'
}
difflog a >"$tmp/a.json"
difflog b >"$tmp/b.json"
session >"$tmp/s.json"
export CTX_STORE="$tmp/.ctx"
"$tmp/ctx-init" --store "$CTX_STORE" >/dev/null
hash() { "$tmp/ctx-pack" "$1" | sed 's/.*"hash":"\([^"]*\)".*/\1/'; }
A=$(hash "$tmp/a.json")
B=$(hash "$tmp/b.json")
S=$(hash "$tmp/s.json")

# run LABEL CMD ARGS...: CMD -o page.html ARGS, RUNS times after a warm-up;
# exit 1 (drift found) is success here.
run() {
	label=$1
	shift
	"$@" -o "$tmp/page.html" >/dev/null 2>&1 || true
	: >"$tmp/wall"
	: >"$tmp/cpu"
	: >"$tmp/rss"
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		t0=$(date +%s%N)
		rc=0
		/usr/bin/time -f '%U %S %M' -o "$tmp/time" "$@" -o "$tmp/page.html" >/dev/null 2>"$tmp/err" || rc=$?
		t1=$(date +%s%N)
		if [ "$rc" -gt 1 ]; then
			echo "$*: exit $rc" >&2
			cat "$tmp/err" >&2
			exit 1
		fi
		echo $(((t1 - t0) / 1000000)) >>"$tmp/wall"
		awk '{ printf "%d\n", ($1 + $2) * 1000 }' "$tmp/time" >>"$tmp/cpu"
		awk '{ print int($3 / 1024) }' "$tmp/time" >>"$tmp/rss"
		i=$((i + 1))
	done
	printf '%-34s %8s %8s %8s %8s\n' "$label" "$(median <"$tmp/wall")" "$(median <"$tmp/cpu")" \
		"$(awk '{ printf "%.2f", $1 / 1e6 }' <<EOT
$(wc -c <"$tmp/page.html")
EOT
)" "$(median <"$tmp/rss")"
}
printf '%-34s %8s %8s %8s %8s\n' "case" "wall-ms" "cpu-ms" "MB" "rss-MiB"
run "ctx-diff --html A B (10,000 steps)" "$tmp/ctx-diff" --html "$A" "$B"
run "ctx-diff --html --align lcs A B" "$tmp/ctx-diff" --html --align lcs "$A" "$B"
run "ctx-show --html (300 steps)" "$tmp/ctx-show" --html "$S"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
