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
# FLOOR=1 also times scripts/capfloor on the same transcript and the last
# pack's manifest: the least a re-pack does with no importing at all,
# with the manifest one object (as it is) and with the steps in objects
# of about 1 MiB (a layout ctx does not have), against the re-pack
# without the checkpoint.
# BASE, a git revision, times ctx as built there too, alternating with
# the working tree's run by run (each with its own store and checkpoint,
# since a checkpoint is its build's), and prints the ratios.
#   scripts/bench-capture.sh            # FORMAT=claude-code SIZE=20971520 RUNS=5 VARIED=1
#   FORMAT=codex scripts/bench-capture.sh
#   FORMAT=codex BASE=00bc0b5 RUNS=15 scripts/bench-capture.sh
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
base=${BASE:-}
trap '[ -z "$base" ] || git -C "$root" worktree remove --force "$w/src" >/dev/null 2>&1 || true; chmod -R u+w "$w" 2>/dev/null; rm -rf "$w"' EXIT
(cd "$root" && go build -o "$w/bin/" ./cmd/ctx-init ./cmd/ctx-pack ./scripts/gensession ./scripts/capfloor)
builds=(ctx) # each build's binaries are in $w/<build>-bin
mv "$w/bin" "$w/ctx-bin"
if [ -n "$base" ]; then
	git -C "$root" worktree add --detach "$w/src" "$base" >/dev/null 2>&1
	(cd "$w/src" && go build -o "$w/base-bin/" ./cmd/ctx-init ./cmd/ctx-pack)
	builds=(base ctx)
fi
varied=()
[ "$format" = claude-code ] && [ "${VARIED:-1}" = 1 ] && varied=(-varied)
"$w/ctx-bin/gensession" -format "$format" -size "$size" "${varied[@]}" >"$w/full.jsonl"
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
for b in "${builds[@]}"; do
	mkdir -p "$w/$b-store" && (cd "$w/$b-store" && "$w/$b-bin/ctx-init" >/dev/null &&
		CTX_IMPORT_CACHE="$w/$b-store/cache" "$w/$b-bin/ctx-pack" --from "$format" "$w/session.jsonl" >/dev/null 2>&1)
done
cp "$w/full.jsonl" "$w/session.jsonl"
echo "$(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg); $format transcript $(wc -c <"$w/full.jsonl") bytes, $n lines, the last reply $((n - last + 1)) lines${varied:+, varied outputs}"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# run NAME SETUP: pack the session RUNS times into the store SETUP makes
# (from $b's store, with $b's binaries), each build in turn.
run() {
	local name=$1 setup=$2 b wt u sy
	declare -A t c
	for _ in $(seq "$runs"); do
		for b in "${builds[@]}"; do
			rm -rf "$w/s" && eval "$setup" && sync
			# bash's time: the wall time of ctx-pack alone, and its CPU
			# (user + system), to the millisecond.
			(cd "$w/s" && TIMEFORMAT='%3R %3U %3S' && time "$w/$b-bin/ctx-pack" --from "$format" "$w/session.jsonl" >/dev/null 2>&1) 2>"$w/time"
			read -r wt u sy <"$w/time"
			t[$b]+="$(awk -v x="$wt" 'BEGIN {print x * 1000}') "
			c[$b]+="$(awk -v u="$u" -v s="$sy" 'BEGIN {print (u + s) * 1000}') "
		done
	done
	for b in "${builds[@]}"; do
		local label=$name
		[ -z "$base" ] || label="$name ($b)"
		printf '%-35s wall %8s ms   cpu %8.1f ms\n' "$label" "$(printf '%s\n' ${t[$b]} | median)" "$(printf '%s\n' ${c[$b]} | median)"
	done
	if [ -n "$base" ]; then
		printf '%-35s wall %8.2f      cpu %8.2f\n' "$name (ctx / base)" \
			"$(echo "$(printf '%s\n' ${t[ctx]} | median) / $(printf '%s\n' ${t[base]} | median)" | bc -l)" \
			"$(echo "$(printf '%s\n' ${c[ctx]} | median) / $(printf '%s\n' ${c[base]} | median)" | bc -l)"
	fi
}
run "re-pack after one reply" 'cp -a "$w/$b-store" "$w/s"'
CTX_IMPORT_CACHE=off run "re-pack, no checkpoint" 'cp -a "$w/$b-store" "$w/s"'
if [ "${FLOOR:-0}" = 1 ]; then
	latest=$(cat "$w/ctx-store/.ctx/refs/latest")
	latest=${latest#sha256:}
	manifest="$w/ctx-store/.ctx/objects/${latest:0:2}/${latest:2}"
	mkdir -p "$w/floor"
	"$w/ctx-bin/capfloor" prepare "$manifest" "$w/floor"
	declare -A fl
	for _ in $(seq "$runs"); do
		for layout in one chunked; do
			sync
			if [ $layout = one ]; then
				args=(one "$w/session.jsonl" "$manifest" "$w/floor")
			else
				args=(chunked "$w/session.jsonl" "$w/floor")
			fi
			(TIMEFORMAT='%3U %3S' && time "$w/ctx-bin/capfloor" "${args[@]}" 2>/dev/null) 2>"$w/time"
			fl[$layout]+="$(awk '{print ($1 + $2) * 1000}' "$w/time") "
		done
	done
	for layout in one chunked; do
		printf '%-35s cpu %8.1f ms\n' "floor, manifest $layout" "$(printf '%s\n' ${fl[$layout]} | median)"
	done
fi
CTX_IMPORT_CACHE=off run "pack into an empty store" 'mkdir -p "$w/s" && (cd "$w/s" && "$w/$b-bin/ctx-init" >/dev/null)'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
