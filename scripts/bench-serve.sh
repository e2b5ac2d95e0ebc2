#!/bin/bash
# bench-serve.sh: what serving a pack costs (ctx-serve), and what a
# re-run with the real agent costs beyond the agent itself
# (ctx-replay --agent).
#
# 1. ctx-serve of a 20 MB Claude Code session (scripts/gensession -varied,
#    packed with ctx-pack --from claude-code): the time from exec until it
#    prints where it listens (ready), RUNS times, the median; its peak
#    resident memory after answering the session's last turn, beside the
#    manifest's size; and the Go benchmarks of lib/serve (BenchmarkReady:
#    manifest read and turns arranged; BenchmarkAnswer: the first and the
#    last turn answered, and the time from the request read to the
#    answer's first byte), medians of RUNS.
# 2. With Claude Code installed (scripts/agents-install.sh), a 50-turn
#    session re-run with ctx-replay --agent, against the same agent given
#    the same 50 answers by a trivial server that answers by count
#    (scripts/bench-serve-trivial.py): the median wall time of each,
#    alternating, and their ratio. Skipped without the agent or python3.
#
#   scripts/bench-serve.sh            # RUNS=5
set -euo pipefail
export CGO_ENABLED=0
runs=${RUNS:-5}
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/bin/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-serve ./cmd/ctx-replay ./cmd/ctx-show ./scripts/gensession
export PATH="$work/bin:$PATH"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ms() { echo $(( ($2 - $1) / 1000000 )); }

echo "== ctx-serve of a 20 MB Claude Code session"
cd "$work" && ctx-init >/dev/null
gensession -size $((20 << 20)) -varied > session.jsonl
hash=$(ctx-pack --from claude-code session.jsonl 2>/dev/null | sed 's/.*"hash":"\([^"]*\)".*/\1/')
manifest=$(ctx-show --blob "$hash" | wc -c)
echo "pack $hash: manifest $manifest bytes"
for i in $(seq "$runs"); do
	mkfifo "fifo$i"
	t0=$(date +%s%N)
	ctx-serve "$hash" > "fifo$i" & pid=$!
	head -1 < "fifo$i" > /dev/null
	t1=$(date +%s%N)
	kill "$pid"; wait "$pid" 2>/dev/null || true
	ms "$t0" "$t1"
done | median | sed 's/^/ready, median ms: /'

cd "$root"
echo "== lib/serve benchmarks (median of $runs)"
go test ./lib/serve/ -run XXX -bench 'Ready|Answer' -benchtime 10x -count "$runs" 2>/dev/null |
	awk '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i+1) == "ns/op" || $(i+1) == "first-byte-ms" || $(i+1) == "B/op") print $1, $(i+1), $i }' |
	sort -k1,1 -k2,2 -k3,3n |
	awk '{ k = $1 " " $2; v[k] = v[k] " " $3; n[k]++ } END { for (k in v) { split(v[k], a, " "); print k, a[int((n[k] + 1) / 2)] } }' |
	sort | while read -r name unit value; do
		case $unit in
		ns/op) echo "$name: $(echo "scale=3; $value / 1000000" | bc) ms per op" ;;
		first-byte-ms) echo "$name: first byte $value ms after the request is read" ;;
		B/op) echo "$name: $value bytes allocated per op" ;;
		esac
	done

agents=${CTX_AGENTS:-${XDG_CACHE_HOME:-$HOME/.cache}/ctx/agents}
claude=$agents/node_modules/.bin/claude
if [ ! -x "$claude" ] || ! command -v python3 >/dev/null; then
	echo "== ctx-replay --agent: skipped (no Claude Code in $agents, or no python3)"
	exit 0
fi
echo "== ctx-replay --agent claude-code of a 50-turn session, against a trivial server"
cd "$work"
python3 "$root/scripts/bench-serve-trivial.py" log 50 > fifty.json
hash=$(ctx-pack fifty.json | sed 's/.*"hash":"\([^"]*\)".*/\1/')
for i in $(seq "$runs"); do
	t0=$(date +%s%N)
	ctx-replay --agent claude-code --agent-bin "$claude" "$hash" > rep.json || { echo "replay not exact:"; head -c 2000 rep.json; exit 1; }
	t1=$(date +%s%N)
	rm -rf home ws && mkdir home ws
	python3 "$root/scripts/bench-serve-trivial.py" serve 50 > port & spid=$!
	while [ ! -s port ]; do sleep 0.01; done
	t2=$(date +%s%N)
	(cd ws && HOME="$work/home" ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat ../port)" ANTHROPIC_API_KEY=k IS_SANDBOX=1 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
		"$claude" -p "Count to fifty with echo." --dangerously-skip-permissions --output-format json > ../trivial.json)
	t3=$(date +%s%N)
	kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null || true; rm -f port
	echo "$(ms "$t0" "$t1") $(ms "$t2" "$t3")"
done > times
replay=$(awk '{print $1}' times | median)
trivial=$(awk '{print $2}' times | median)
echo "ctx-replay --agent, median ms: $replay"
echo "the agent against the trivial server, median ms: $trivial"
echo "ratio: $(echo "scale=2; $replay / $trivial" | bc)"
