#!/bin/sh
# Builds the ctx toolkit and runs it on the bundled example run
# (examples/run.json): create a store, pack the run, show it, then fork it
# with an edited prompt, pack the fork and diff the two, replay the
# original, list the packs, check the fork's outputs out as files, see
# what ctx-gc would tidy, write an HTML page of the diff, and share both
# packs through an OCI image layout directory into a second store.
# Usage: scripts/demo.sh [WORKDIR]   (default: a fresh temporary directory)
set -eu
# The system's own tools (dirname, mktemp, sed) even when PATH names only
# Go's directory.
PATH="${PATH:+$PATH:}/usr/bin:/bin"
export PATH
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0
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
if command -v ctx-gc >/dev/null 2>&1; then
	step "ctx show --human --checkout out latest"
	ctx show --human --checkout out latest
	step "ctx gc --human --dry-run"
	ctx gc --human --dry-run
fi
if command -v ctx-push >/dev/null 2>&1 && command -v ctx-pull >/dev/null 2>&1; then
	step "ctx diff --html -o diff.html latest^ latest"
	ctx diff --html -o diff.html 'latest^' latest || true
	echo "wrote $work/diff.html" >&2
	hash=$(ctx log -n 1 | sed 's/.*"hash":"\([^"]*\)".*/\1/')
	if command -v ctx-redact >/dev/null 2>&1; then
		step "ctx redact --check latest   (ctx push refuses a pack holding a secret)"
		ctx redact --check latest && echo "no secret found" >&2
	fi
	step "ctx log | ctx push oci-layout:layout"
	ctx log | ctx push oci-layout:layout
	step "ctx init elsewhere; ctx pull --store elsewhere --with-parents oci-layout:layout $hash"
	ctx init elsewhere >/dev/null
	ctx pull --store elsewhere --with-parents oci-layout:layout "$hash"
	step "ctx verify --store elsewhere --pack $hash"
	ctx verify --store elsewhere --pack "$hash"
fi
