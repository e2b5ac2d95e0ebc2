#!/bin/sh
# Runs the benchmarks behind every figure in docs/performance.md.
#   scripts/bench.sh            all of them (several minutes; bench-log
#                               builds a 100,000-pack store on first use)
#   scripts/bench.sh pack diff  only those
# scripts/bench-ab.sh BASE compares packing and verifying with an earlier
# revision's build in the same run (the "no regression" figures).
# Areas: pack (W1-W7, fsync strategies, git and sha256sum anchors), diff,
# log, verify, replay, import, base64, html, remote (ctx-push/ctx-pull
# against a loopback docker-registry, and ctx-pull against tar -x),
# blame, grep (ctx-grep against rg over 1 GiB of objects), secrets (scanning, and ctx-push with and without it), capture
# (re-packing a growing 20 MB Claude Code session), w1 (init + pack of
# W1 paired with the seed implementation's, given as CTX_SEED).
set -eu
cd "$(dirname "$0")/.."
areas=${*:-pack diff log verify replay import base64 html remote blame grep secrets capture w1}
for area in $areas; do
	echo "== $area"
	case $area in
	pack | diff | log | verify | html | remote | blame | grep | secrets | capture | w1) "scripts/bench-$area.sh" ;;
	replay) go test -run '^$' -bench BenchmarkReplay -count 5 ./lib/replay ;;
	import) go test -run '^$' -bench BenchmarkClaudeCode50MB -count 5 ./lib/agent/claudecode ;;
	base64) go test -run '^$' -bench BenchmarkBase64 -benchtime 1x -count 3 ./lib/execlog ;;
	*) echo "bench.sh: unknown area $area (pack, diff, log, verify, replay, import, base64, html, remote, blame, grep, secrets, capture, w1)" >&2; exit 3 ;;
	esac
done
