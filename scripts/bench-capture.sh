#!/bin/bash
# bench-capture.sh: what re-packing a growing Claude Code session (or,
# with FORMAT=codex, a Codex rollout) costs, as the Stop hook does after
# every reply. A generated transcript (scripts/gensession, shaped like
# real ones: for Claude Code split assistant lines, toolUseResult copies,
# progress lines; for Codex turn_context lines, encrypted reasoning,
# exec_command and apply_patch calls, token_count and other events) of
# SIZE bytes is packed once without its last turn (untimed), leaving the
# import's checkpoint ($CTX_IMPORT_CACHE); then, RUNS times, the whole
# transcript (one more reply: Claude Code's last 9 lines, Codex's lines
# from the last turn's task_started event) is packed into a copy of
# that store and checkpoint.
# Also timed: the same without the checkpoint (CTX_IMPORT_CACHE=off: the
# whole transcript read again), and into an empty store. Prints the
# median wall and CPU time (user + system), as bash's time keyword
# measures them: ctx-pack alone, nothing around it.
# VARIED=1 (the default) generates a session whose tool outputs differ
# from turn to turn, as a real session's do (gensession -varied); VARIED=0
# the one whose turns all read the same file and print the same output;
# a Codex rollout's tool outputs always differ.
#   scripts/bench-capture.sh            # FORMAT=claude-code SIZE=20971520 RUNS=5 VARIED=1
#   FORMAT=codex scripts/bench-capture.sh
set -euo pipefail
export CGO_ENABLED=0
size=${SIZE:-$((20 << 20))}
runs=${RUNS:-5}
format=${FORMAT:-claude-code}
case $format in
claude-code | codex) ;;
*) echo "bench-capture.sh: FORMAT must be claude-code or codex, not $format" >&2 && exit 3 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
w=$(mktemp -d "${TMPDIR:-/tmp}/ctx-capture.XXXXXX")
trap 'chmod -R u+w "$w" 2>/dev/null; rm -rf "$w"' EXIT
(cd "$root" && go build -o "$w/bin/" ./cmd/ctx-init ./cmd/ctx-pack ./scripts/gensession)
varied=()
[ "$format" = claude-code ] && [ "${VARIED:-1}" = 1 ] && varied=(-varied)
"$w/bin/gensession" -format "$format" -size "$size" "${varied[@]}" >"$w/full.jsonl"
n=$(wc -l <"$w/full.jsonl")
case $format in
claude-code) last=$((n - 8)) ;;
codex)
	# The last turn opens with its task_started event (its turn_context
	# line in rollouts without one).
	last=$(grep -n '^{"timestamp":"[^"]*","type":"event_msg","payload":{"type":"task_started"' "$w/full.jsonl" | tail -n 1 | cut -d: -f1 || true)
	[ -n "$last" ] || last=$(grep -n '^{"timestamp":"[^"]*","type":"turn_context"' "$w/full.jsonl" | tail -n 1 | cut -d: -f1 || true)
	[ -n "$last" ] || { echo "bench-capture.sh: the rollout has no turn" >&2 && exit 2; }
	;;
esac
head -n $((last - 1)) "$w/full.jsonl" >"$w/session.jsonl"
export CTX_IMPORT_CACHE="$w/s/cache"
mkdir -p "$w/base" && (cd "$w/base" && "$w/bin/ctx-init" >/dev/null && CTX_IMPORT_CACHE="$w/base/cache" "$w/bin/ctx-pack" --from "$format" "$w/session.jsonl" >/dev/null 2>&1)
cp "$w/full.jsonl" "$w/session.jsonl"
echo "$(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg); $format transcript $(wc -c <"$w/full.jsonl") bytes, $n lines, the last reply $((n - last + 1)) lines${varied:+, varied outputs}"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# run NAME SETUP: pack the session RUNS times into the store SETUP makes.
run() {
	local name=$1 setup=$2 t=() c=() wt u sy
	for _ in $(seq "$runs"); do
		rm -rf "$w/s" && eval "$setup" && sync
		# bash's time: the wall time of ctx-pack alone, and its CPU
		# (user + system), to the millisecond.
		(cd "$w/s" && TIMEFORMAT='%3R %3U %3S' && time "$w/bin/ctx-pack" --from "$format" "$w/session.jsonl" >/dev/null 2>&1) 2>"$w/time"
		read -r wt u sy <"$w/time"
		t+=("$(awk -v x="$wt" 'BEGIN {print x * 1000}')")
		c+=("$(awk -v u="$u" -v s="$sy" 'BEGIN {print (u + s) * 1000}')")
	done
	printf '%-28s wall %8s ms   cpu %8.1f ms\n' "$name" "$(printf '%s\n' "${t[@]}" | median)" "$(printf '%s\n' "${c[@]}" | median)"
}
run "re-pack after one reply" 'cp -a "$w/base" "$w/s"'
CTX_IMPORT_CACHE=off run "re-pack, no checkpoint" 'cp -a "$w/base" "$w/s"'
CTX_IMPORT_CACHE=off run "pack into an empty store" 'mkdir -p "$w/s" && (cd "$w/s" && "$w/bin/ctx-init" >/dev/null)'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
