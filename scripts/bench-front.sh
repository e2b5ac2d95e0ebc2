#!/bin/bash
# Measures what the ctx front costs: `ctx log` against `ctx-log` on a store
# of 200 packs. scripts/pairtime runs one invocation of each side per
# round, in an order that alternates from round to round, output to
# /dev/null, and prints per side the median wall time and the median CPU
# time (user+sys from wait4's rusage, which the other work on a shared
# machine disturbs less than the wall time), and their ratios to ctx-log
# (target: ctx log <= 1.10 x ctx-log). With BASE=REV in the environment,
# the front as built at git revision REV is timed in the same rounds. The
# floor of any front written in Go is timed too: a program that does
# nothing but exec ctx-log (the Go runtime's start and one execve), and
# so is the start of a Go program on its own: `ctx true` and `ctx-floor
# true` against /bin/true.
# Usage: [BASE=REV] scripts/bench-front.sh [ROUNDS] [REPEATS]   (default 400 3)
set -euo pipefail
export CGO_ENABLED=0 # static binaries, as installed (see bench-verify.sh)
rounds=${1:-400}
repeats=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-front.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/bin/" ./cmd/ctx ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-log ./scripts/pairtime
mkdir "$work/floor"
cat > "$work/floor/main.go" <<'GO'
package main

import (
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	self, _ := os.Executable()
	bin := filepath.Join(filepath.Dir(self), "ctx-"+os.Args[1])
	syscall.Exec(bin, append([]string{bin}, os.Args[2:]...), os.Environ())
	os.Exit(2)
}
GO
# The module's Go version, so that both run with the same GODEBUG defaults.
printf 'module floor\ngo %s\n' "$(go env GOVERSION | sed 's/^go//')" > "$work/floor/go.mod"
(cd "$work/floor" && go build -o "$work/bin/ctx-floor" .)
cp "$(type -P true)" "$work/bin/ctx-true"
sides=("ctx-log" "ctx log" "ctx-floor log")
if [ -n "${BASE:-}" ]; then
	mkdir "$work/base"
	git archive "$BASE" | tar -x -C "$work/base"
	(cd "$work/base" && go build -o "$work/bin/ctx-base" ./cmd/ctx)
	sides+=("ctx-base log")
fi
# Copied, as an installed binary is read from disk: one the linker has
# just written starts about 0.3 ms slower (measured on Linux, the same
# bytes; the page cache holds it differently), which would be counted
# once for ctx-log and twice for ctx log.
for f in "$work"/bin/*; do cp "$f" "$f.copy" && mv "$f.copy" "$f"; done
PATH="$work/bin:$PATH"

cd "$work"
ctx-init >/dev/null
for i in $(seq 1 200); do
	printf '{"created":"2026-01-01T00:%02d:%02dZ","model":{"identifier":"m"},"steps":[{"index":0,"type":"llm_call","output":"answer %d"}]}\n' \
		$((i / 60)) $((i % 60)) "$i" > "log-$i.json"
done
ctx-pack log-*.json >/dev/null
rm log-*.json
[ "$(ctx-log | wc -l)" = 200 ] || { echo "want 200 packs" >&2; exit 1; }
cmp <(ctx log) <(ctx-log) # the same output


for r in $(seq 1 "$repeats"); do
	echo "-- run $r of $repeats, $rounds rounds"
	pairtime "$rounds" "${sides[@]}"
	pairtime "$rounds" "ctx-true" "ctx true" "ctx-floor true"
done
echo "target: ctx log <= 1.10 x ctx-log"
