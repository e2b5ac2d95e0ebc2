#!/bin/bash
# Reproduces the secret-scanning figures in docs/performance.md:
#   scan-3MB       lib/secrets BenchmarkScanSession3MB: every object of a
#                  real Claude Code session grown to a 3 MB transcript
#   scan-text      lib/secrets BenchmarkScanText/windowed: one 2 MB text
#                  object of the shared sessions (MB/s, MB per CPU-second)
#   ctx-push of W3 (10,000 objects of 1 KiB) to Debian's docker-registry
#   on loopback, started here on a free port and stopped by its PID:
#     push-noscan    first push, --allow-secrets (no scan)
#     push-scan      first push with the scan, no verdict remembered
#     repush-noscan  the same pack again, --allow-secrets
#     repush-scan    the same pack again with the scan (known clean)
#     check-W3       ctx-redact --check of the pack, nothing remembered
# With and without the scan run alternately, so that both see the same
# load (RUNS times each; re-pushes $REPUSH_RUNS, default RUNS × 10);
# medians of wall and CPU
# (user + system, of ctx-push and the ctx-redact it runs).
# Then, on the same bytes, ctx-redact --check (nothing remembered) and
# the gitleaks CLI of the version go.mod names (installed into the work
# directory with go install when not on PATH; its column is skipped,
# with a message, when it cannot be installed), $LARGE_RUNS runs each
# (default 3), alternated: median wall time, the rate it makes (MB/s),
# CPU time and peak RSS, and the ratio of the wall times:
#     text-8MB     the shared agent sessions, concatenated ($TEXT_MB MB,
#                  default 8; skipped when ../shared/testdata is absent)
#     binary-70MB  70 MB of random bytes
# Then, when docker-registry is installed, the pushes above.
# Usage: scripts/bench-secrets.sh [RUNS]   (default 5)
# LARGE_ONLY=1 runs only the large-object comparison.
set -euo pipefail
export CGO_ENABLED=0
runs=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -n "${LARGE_ONLY:-}" ] || go test -run '^$' -bench 'BenchmarkScanSession3MB|BenchmarkScanW3Object|BenchmarkCompileRules|BenchmarkScanText/windowed' -benchtime 3x -count "$runs" ./lib/secrets
large() {
	local lr=${LARGE_RUNS:-3} mb=${TEXT_MB:-8} gl v f tool
	v=$(go list -m -f '{{.Version}}' github.com/zricethezav/gitleaks/v8)
	gl=$(command -v gitleaks || true)
	if [ -z "$gl" ]; then
		if GOBIN="$work/bin" go install "github.com/zricethezav/gitleaks/v8@$v" 2>"$work/gitleaks-install.log"; then
			gl="$work/bin/gitleaks"
		else
			echo "bench-secrets: gitleaks $v could not be installed ($(tail -n 1 "$work/gitleaks-install.log")): its column is skipped" >&2
		fi
	fi
	mkdir -p "$work/large" && cd "$work/large"
	ctx-init >/dev/null
	local inputs=()
	local logs=("$root"/../shared/testdata/agent-logs/*/*.json*)
	if [ -e "${logs[0]}" ]; then
		while [ "$(stat -c %s text.txt 2>/dev/null || echo 0)" -lt $((mb << 20)) ]; do
			cat "${logs[@]}" >>text.txt
		done
		truncate -s "${mb}M" text.txt
		inputs+=(text.txt)
	else
		echo "bench-secrets: $root/../shared/testdata/agent-logs is absent: the text comparison is skipped" >&2
	fi
	head -c 70M /dev/urandom >binary.bin
	inputs+=(binary.bin)
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	for f in "${inputs[@]}"; do
		printf '{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"steps":[],"inputs":[{"name":"%s","path":"%s"}]}' "$f" "$f" >"$f.log"
		local h size name
		h=$(ctx-pack "$f.log" | sed 's/.*"hash":"\([^"]*\)".*/\1/')
		size=$(stat -c %s "$f")
		name="${f%%.*}-$((size >> 20))MB"
		: >"$work/t.ctx-redact"
		: >"$work/t.gitleaks"
		for _ in $(seq "$lr"); do
			CTX_SECRETS_CACHE=off /usr/bin/time -f '%e %U %S %M' -a -o "$work/t.ctx-redact" ctx-redact --check "$h" >/dev/null 2>&1 || true
			[ -z "$gl" ] || /usr/bin/time -f '%e %U %S %M' -a -o "$work/t.gitleaks" "$gl" dir --no-banner --exit-code 0 --log-level error "$f" >/dev/null 2>&1 || true
		done
		for tool in ctx-redact gitleaks; do
			if [ ! -s "$work/t.$tool" ]; then
				printf '%-12s %-10s skipped (not installed)\n' "$name" "$tool"
				continue
			fi
			local wall
			wall=$(awk '{print $1}' "$work/t.$tool" | median)
			printf '%-12s %-10s wall %7.2f s  %7.1f MB/s  cpu %7.2f s  maxrss %5d MB  (%s runs, median)\n' "$name" "$tool" \
				"$wall" "$(echo "$size / 1000000 / $wall" | bc -l)" "$(awk '{print $2 + $3}' "$work/t.$tool" | median)" \
				"$(awk '{print int($4 / 1024)}' "$work/t.$tool" | median)" "$lr"
		done
		if [ -s "$work/t.gitleaks" ]; then
			printf '%-12s gitleaks wall / ctx-redact wall: %.2f\n' "$name" \
				"$(echo "$(awk '{print $1}' "$work/t.gitleaks" | median) / $(awk '{print $1}' "$work/t.ctx-redact" | median)" | bc -l)"
		fi
	done
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	cd "$root"
}
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-secrets.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && { wait "$pid" 2>/dev/null || true; }
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
go build -o "$work/bin/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-push ./cmd/ctx-redact
go build -o "$work/bin/genlog" ./scripts/genlog
PATH="$work/bin:$PATH"
export XDG_CACHE_HOME="$work/cache" DOCKER_CONFIG="$work/docker"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
large
[ -z "${LARGE_ONLY:-}" ] || exit 0
command -v docker-registry >/dev/null || { echo "bench-secrets: docker-registry is not installed (apt-get install docker-registry): the pushes are skipped" >&2; exit 0; }

port=$((20000 + RANDOM % 20000))
while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
mkdir -p "$work/registry"
cat >"$work/registry/config.yml" <<CFG
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $work/registry/data}, delete: {enabled: true}}
http: {addr: 127.0.0.1:$port}
CFG
docker-registry serve "$work/registry/config.yml" >"$work/registry/log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	(echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.1
done
reg=oci://127.0.0.1:$port

genlog -inputs 10000 -size 1024 >"$work/w3.json"
mkdir -p "$work/a" && (cd "$work/a" && ctx-init >/dev/null && ctx-pack "$work/w3.json" >"$work/pack.json")
hash=$(sed 's/.*"hash":"sha256:\([0-9a-f]*\)".*/\1/' "$work/pack.json")
ctx-push --allow-secrets --store "$work/a" "$reg/prep" "$hash" >/dev/null

now() { date +%s.%N; }
# run NAME SETUP CMD: time CMD (after SETUP, untimed) RUNS times; print
# the median wall time and CPU time (the command and its children).
run() {
	local name=$1 setup=$2 cmd=$3 t=() c=()
	for i in $(seq "$runs"); do
		eval "$setup" >/dev/null
		local a b
		a=$(now); eval "/usr/bin/time -f '%U %S' -o '$work/cpu' $cmd" >"$work/out.json" || true; b=$(now)
		t+=("$(echo "($b - $a) * 1000" | bc -l)")
		c+=("$(awk '{print ($1 + $2) * 1000}' "$work/cpu")")
	done
	printf '%-14s %9.1f ms  cpu %7.1f ms\n' "$name" "$(printf '%s\n' "${t[@]}" | median)" "$(printf '%s\n' "${c[@]}" | median)"
}
# pair N NAME_A SETUP_A CMD_A NAME_B SETUP_B CMD_B: run the two commands
# alternately (each after its untimed SETUP), N times each, so that both
# see the same neighbours' load; print their median wall and CPU times
# and the ratio of the wall times, B/A.
pair() {
	local count=$1 na=$2 sa=$3 ca=$4 nb=$5 sb=$6 cb=$7 ta=() tb=() ua=() ub=() a b
	for i in $(seq "$count"); do
		eval "$sa" >/dev/null
		a=$(now); eval "/usr/bin/time -f '%U %S' -o '$work/cpu' $ca" >/dev/null || true; b=$(now)
		ta+=("$(echo "($b - $a) * 1000" | bc -l)"); ua+=("$(awk '{print ($1 + $2) * 1000}' "$work/cpu")")
		eval "$sb" >/dev/null
		a=$(now); eval "/usr/bin/time -f '%U %S' -o '$work/cpu' $cb" >/dev/null || true; b=$(now)
		tb+=("$(echo "($b - $a) * 1000" | bc -l)"); ub+=("$(awk '{print ($1 + $2) * 1000}' "$work/cpu")")
	done
	local ma mb
	ma=$(printf '%s\n' "${ta[@]}" | median)
	mb=$(printf '%s\n' "${tb[@]}" | median)
	printf '%-14s %9.1f ms  cpu %7.1f ms\n' "$na" "$ma" "$(printf '%s\n' "${ua[@]}" | median)"
	printf '%-14s %9.1f ms  cpu %7.1f ms  (%s runs each, alternated; wall ratio %.3f)\n' "$nb" "$mb" "$(printf '%s\n' "${ub[@]}" | median)" "$count" "$(echo "$mb / $ma" | bc -l)"
}
n=0
fresh() { n=$((n + 1)); repo="$reg/w3-$n"; }
forget() { rm -rf "$XDG_CACHE_HOME/ctx/secrets"; fresh; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
pair "$runs" push-noscan 'fresh' 'ctx-push --allow-secrets --store "$work/a" "$repo" "$hash"' \
	push-scan 'forget' 'ctx-push --store "$work/a" "$repo" "$hash"'
pair "${REPUSH_RUNS:-$((runs * 10))}" repush-noscan ':' 'ctx-push --allow-secrets --store "$work/a" "$reg/prep" "$hash"' \
	repush-scan ':' 'ctx-push --store "$work/a" "$reg/prep" "$hash"'
run check-W3 ':' 'env CTX_SECRETS_CACHE=off ctx-redact --check --store "$work/a" "$hash"'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
