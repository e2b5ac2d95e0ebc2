#!/bin/bash
# bench-year.sh: the tools on a year of sessions (scripts/genstore: 2,000
# Claude Code and Codex sessions at SCALE=1, about 5 GB), each against
# an anchor measured in the same run on the same bytes.
#
# The store is made once and kept in $CTX_BENCH_DIR (default
# ${TMPDIR:-/tmp}/ctx-bench-year), and reused while it was made at the
# same SCALE. Every object is read once first, so that each case runs
# warm. Each case runs RUNS times after one untimed run; the script
# prints the median wall time, the median CPU time (user + system) and
# the largest peak RSS, in ms and MiB. Output goes through a pipe, as in
# ctx-log | jq.
#
#   log-20     ctx-log -n 20                 anchor: an empty Go program
#   log        ctx-log (every pack)          anchor: cat of every packs/ entry
#   where      ctx-log --where on a manifest field (every manifest read)
#                                            anchor: cat of every manifest
#   blame      ctx-blame of the file 3 sessions in 20 edited, cache warm
#                                            anchor: git blame of the same file
#   gc         ctx-gc -n                     anchor: cat of every manifest
#   fsck       ctx-verify --fsck             anchor: sha256sum of every object
#                                            file, one process per CPU
#   grep       ctx-grep -F of a rare string  anchor: rg -F over .ctx/objects
#   push       ctx-push of one new session (its last snapshot, never
#              pushed; with the secret scan) to an OCI layout holding the
#              last snapshot of every other session, or of the REST sessions
#              before the new ones when REST is set (pushed once, not timed
#              here: --allow-secrets)
#                                            anchor: the same push to an
#                                            empty layout
#
# CASES (default: all of them) names the cases to run, each with its
# anchor. BEFORE=REV also builds the tools at git revision REV and runs
# each case with them right after, as CASE@before (a push with them
# pushes the same sessions to a copy of the same layout).
#
#   scripts/bench-year.sh                 # SCALE=1 RUNS=5
#   SCALE=0.05 RUNS=3 scripts/bench-year.sh
#   REST=400 scripts/bench-year.sh        # a remote of 400 sessions
#   CASES="fsck push" BEFORE=main scripts/bench-year.sh
set -euo pipefail
export CGO_ENABLED=0
SCALE=${SCALE:-1}
RUNS=${RUNS:-5}
DIR=${CTX_BENCH_DIR:-${TMPDIR:-/tmp}/ctx-bench-year}
CASES=${CASES:-log-20 log where blame gc fsck grep push}
BEFORE=${BEFORE:-}
for c in $CASES; do
	case $c in
	log-20 | log | where | blame | gc | fsck | grep | push) ;;
	*)
		echo "bench-year: unknown case $c (log-20 log where blame gc fsck grep push)" >&2
		exit 3
		;;
	esac
done
want() { [[ " $CASES " == *" $1 "* ]]; }

cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-year-run.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
bin=$work/bin
go build -o "$bin/" ./cmd/ctx-log ./cmd/ctx-blame ./cmd/ctx-gc ./cmd/ctx-verify ./cmd/ctx-push ./cmd/ctx-redact ./cmd/ctx-grep ./scripts/genstore
mkdir -p "$work/empty" && printf 'package main\n\nfunc main() {}\n' >"$work/empty/main.go"
(cd "$work/empty" && go mod init empty >/dev/null 2>&1 && go build -o "$bin/empty" .)
if [ -n "$BEFORE" ]; then
	mkdir -p "$work/before/src"
	git archive "$BEFORE" | tar -x -C "$work/before/src"
	(cd "$work/before/src" && go build -o "$work/before/bin/" ./cmd/ctx-log ./cmd/ctx-blame ./cmd/ctx-gc ./cmd/ctx-verify ./cmd/ctx-push ./cmd/ctx-redact ./cmd/ctx-grep)
fi
PATH="$bin:$PATH"

if [ "$(cat "$DIR/scale" 2>/dev/null)" != "$SCALE" ] || [ ! -s "$DIR/sessions.txt" ]; then
	rm -rf "$DIR"
	mkdir -p "$DIR"
	t0=$(date +%s)
	genstore -scale "$SCALE" "$DIR" >"$DIR/genstore.json"
	echo "generated in $(($(date +%s) - t0)) s: $(cat "$DIR/genstore.json")"
	echo "$SCALE" >"$DIR/scale"
fi
store=$DIR/.ctx
export CTX_STORE=$store XDG_CACHE_HOME=$work/cache
sessions=$(wc -l <"$DIR/sessions.txt")
packs=$(ls "$store/packs" | wc -l)
find "$store/objects" -type f >"$work/objects.txt"
objects=$(wc -l <"$work/objects.txt")
bytes=$(du -sb "$store/objects" | cut -f1)
# The manifests are the objects named by the packs/ entries.
ls "$store/packs" | sed "s|^\(..\)\(.*\)|$store/objects/\1/\2|" >"$work/manifests.txt"
xargs cat <"$work/objects.txt" >/dev/null # warm

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run NAME CMD...: run CMD RUNS times (after one untimed run) through a
# pipe; record wall and CPU ms and peak RSS. Exit 1 (nothing found) is
# not a failure.
declare -A WALL CPU RSS
run() {
	local name=$1
	shift
	"$@" 2>/dev/null | cat >/dev/null || true
	: >"$work/t"
	for _ in $(seq "$RUNS"); do
		local a b
		a=$(date +%s%N)
		/usr/bin/time -f '%U %S %M %x' -o "$work/time" "$@" 2>"$work/err" | cat >/dev/null || true
		b=$(date +%s%N)
		local code
		code=$(awk '{print $4}' "$work/time" | tail -1)
		if [ "$code" != 0 ] && [ "$code" != 1 ]; then
			echo "$name: $* failed (exit $code)" >&2
			cat "$work/err" >&2
			exit 1
		fi
		echo "$(((b - a) / 1000000)) $(tail -1 "$work/time" | awk '{ printf "%d %d", ($1 + $2) * 1000, $3 / 1024 }')" >>"$work/t"
	done
	WALL[$name]=$(cut -d' ' -f1 "$work/t" | median)
	CPU[$name]=$(cut -d' ' -f2 "$work/t" | median)
	RSS[$name]=$(cut -d' ' -f3 "$work/t" | sort -n | tail -1)
	printf '%-12s %9s ms  cpu %8s ms  peak %5s MiB   %s\n' "$name" "${WALL[$name]}" "${CPU[$name]}" "${RSS[$name]}" "$*" | cut -c1-160
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
# tool NAME CMD...: run NAME, then NAME@before with BEFORE's tools and
# a cache of their own.
tool() {
	local name=$1
	shift
	run "$name" "$@"
	if [ -n "$BEFORE" ]; then
		run "$name@before" env PATH="$work/before/bin:$PATH" XDG_CACHE_HOME="$work/cache-before" "$@"
	fi
}

echo "store: $DIR: $sessions sessions, $packs packs, $objects objects, $((bytes >> 20)) MiB of objects"
echo "$RUNS runs per case, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

if want log-20; then
	run empty empty
	tool log-20 ctx-log -n 20
fi
if want log; then
	run cat-entries sh -c "cd '$store/packs' && cat * "
	tool log ctx-log
fi
if want where || want gc; then
	run cat-manifests sh -c "xargs cat <'$work/manifests.txt'"
fi
if want where; then
	tool where ctx-log --where 'metadata.session.cwd=="/home/dev/projects/service"' -n 1000000
fi
if want blame; then
	cd "$DIR/repo"
	t0=$(date +%s)
	ctx-blame internal/api/routes.go >"$work/blame.out" # fills the cache
	echo "ctx-blame filled its cache in $(($(date +%s) - t0)) s: $(du -sh "$XDG_CACHE_HOME/ctx/blame" | cut -f1)"
	if [ -n "$BEFORE" ]; then
		XDG_CACHE_HOME="$work/cache-before" "$work/before/bin/ctx-blame" internal/api/routes.go >"$work/blame-before.out"
		cmp -s "$work/blame.out" "$work/blame-before.out" && echo "ctx-blame: the same output at $BEFORE" || echo "ctx-blame: OUTPUT DIFFERS at $BEFORE"
	fi
	tool blame ctx-blame internal/api/routes.go
	run git-blame git blame internal/api/routes.go
	cd "$root"
fi
if want gc; then
	tool gc ctx-gc -n
fi
if want fsck; then
	tool fsck ctx-verify --fsck
	run sha256sum sh -c "xargs -P $(nproc) -n 2000 sha256sum <'$work/objects.txt'"
fi
if want grep; then
	tool grep ctx-grep -F 'panic: deadline exceeded after'
	run rg rg -F -j "$(nproc)" -c 'panic: deadline exceeded after' "$store/objects"
fi

if want push; then
	# Push: the layout holds every other session's last snapshot.
	held=$((RUNS + 1))
	rest=${REST:-$((sessions - held))}
	head -n "$((sessions - held))" "$DIR/sessions.txt" | tail -n "$rest" >"$work/rest.txt"
	tail -n "$held" "$DIR/sessions.txt" >"$work/new.txt"
	t0=$(date +%s)
	ctx-push --allow-secrets --jobs 4 "oci-layout:$work/layout" <"$work/rest.txt" >/dev/null
	echo "filled the layout with $(wc -l <"$work/rest.txt") packs in $(($(date +%s) - t0)) s: $(du -sh "$work/layout" | cut -f1)"
	if [ -n "$BEFORE" ]; then
		# The same layout for the same pushes: blobs are never written
		# in place, index.json may be.
		cp -al "$work/layout" "$work/layout-before"
		cp --remove-destination "$work/layout/index.json" "$work/layout-before/index.json"
		cp "$work/new.txt" "$work/new-before.txt"
	fi
	# Each timed push is a session never pushed: run() runs its command
	# once untimed, then RUNS times, so new.txt holds RUNS + 1 of them.
	cat >"$work/push.sh" <<'SH'
#!/bin/sh
# push.sh LIST LAYOUT: push the next pack of LIST (one per call) to LAYOUT.
n=$(cat "$1.n" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$1.n"
exec ctx-push "oci-layout:$2" "$(sed -n "${n}p" "$1")"
SH
	chmod +x "$work/push.sh"
	run push "$work/push.sh" "$work/new.txt" "$work/layout"
	if [ -n "$BEFORE" ]; then
		run push@before env PATH="$work/before/bin:$PATH" XDG_CACHE_HOME="$work/cache-before" "$work/push.sh" "$work/new-before.txt" "$work/layout-before"
	fi
	cp "$work/new.txt" "$work/new-empty.txt"
	cat >"$work/push-empty.sh" <<'SH'
#!/bin/sh
# push-empty.sh LIST DIR: push the next pack of LIST to a new empty layout.
n=$(cat "$1.n" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" >"$1.n"
rm -rf "$2" && mkdir -p "$2"
exec ctx-push "oci-layout:$2/layout" "$(sed -n "${n}p" "$1")"
SH
	chmod +x "$work/push-empty.sh"
	rm -rf "$work/cache"
	run push-empty "$work/push-empty.sh" "$work/new-empty.txt" "$work/empty-layout"
fi
echo
echo "case         wall ms   cpu ms   target      ratio to its anchor (wall, same run)   peak MiB (≤ 300)"
row() {
	want "${1%@before}" || return 0
	printf '%-12s %7s  %7s   %-10s  %-38s %5s\n' "$1" "${WALL[$1]}" "${CPU[$1]}" "$2" "$3" "${RSS[$1]}"
}
rows() {
	local v=$1
	row "log-20$v" "≤ 30" "$(ratio "${WALL[log-20$v]:-0}" "${WALL[empty]:-0}") × an empty Go program"
	row "log$v" "≤ 500" "$(ratio "${WALL[log$v]:-0}" "${WALL[cat-entries]:-0}") × cat of the packs/ entries"
	row "where$v" "≤ 2000" "$(ratio "${WALL[where$v]:-0}" "${WALL[cat-manifests]:-0}") × cat of the manifests"
	row "blame$v" "≤ 200" "$(ratio "${WALL[blame$v]:-0}" "${WALL[git-blame]:-0}") × git blame"
	row "gc$v" "≤ 10000" "$(ratio "${WALL[gc$v]:-0}" "${WALL[cat-manifests]:-0}") × cat of the manifests"
	row "fsck$v" "≥ 80 %" "$(ratio "${WALL[sha256sum]:-0}" "${WALL[fsck$v]:-0}") of sha256sum's throughput"
	row "grep$v" "report" "$(ratio "${WALL[grep$v]:-0}" "${WALL[rg]:-0}") × rg"
	row "push$v" "≤ 1000" "$(ratio "${WALL[push$v]:-0}" "${WALL[push-empty]:-0}") × the push to an empty layout"
}
rows ""
[ -z "$BEFORE" ] || rows @before
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
