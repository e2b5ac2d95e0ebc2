#!/bin/sh
# Builds the ctx toolkit and runs it on the bundled example run
# (examples/run.json): create a store, pack the run, show it, then fork it
# with an edited prompt, pack the fork and diff the two.
# Usage: scripts/demo.sh [WORKDIR]   (default: a fresh temporary directory)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
echo "building ctx into $bin" >&2
(cd "$root" && go build -o "$bin/" ./cmd/...)
PATH="$bin:$PATH"
export PATH

work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ctx-demo.XXXXXX")}
mkdir -p "$work"
cd "$work"
echo "working in $work" >&2

step() { printf '\n$ %s\n' "$*" >&2; }

step ctx init
ctx init
step ctx pack examples/run.json
ctx pack "$root/examples/run.json"
step ctx show --human latest
ctx show --human latest
if command -v ctx-fork >/dev/null 2>&1 && command -v ctx-diff >/dev/null 2>&1; then
	step "ctx fork latest | (edit the prompt) | ctx pack | ctx diff --human"
	ctx fork latest |
		sed 's/summarise the change/list every call site/' |
		ctx pack | ctx diff --human || true
fi
if command -v ctx-replay >/dev/null 2>&1; then
	step "ctx replay --human latest^"
	ctx replay --human 'latest^' || true
fi
step ctx log --human
if command -v ctx-log >/dev/null 2>&1; then ctx log --human; fi
