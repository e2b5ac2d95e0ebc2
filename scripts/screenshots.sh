#!/bin/sh
# Renders the HTML views of the bundled example run (examples/run.json) and
# screenshots them with headless Chromium into docs/screenshots/: the pack
# page, the diff page against an edited fork (--align lcs), and the replay
# page, at a desktop width (1280 px) and a phone width (390 px).
#   scripts/screenshots.sh [OUTDIR]     (default: docs/screenshots)
# Needs chromium (apt-get install chromium) and jq.
set -eu
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/docs/screenshots}
command -v chromium >/dev/null 2>&1 || { echo "screenshots.sh: chromium is required (apt-get install chromium)" >&2; exit 2; }
command -v jq >/dev/null 2>&1 || { echo "screenshots.sh: jq is required" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/bin/" ./cmd/...)
PATH="$tmp/bin:$PATH"
mkdir -p "$out" "$tmp/work"
cd "$tmp/work"
ctx-init >/dev/null
A=$(ctx-pack "$root/examples/run.json" | jq -r .hash)
# B: another prompt, a search that lists more, a step inserted, a changed
# summary.
ctx-fork "$A" | jq '
	.prompts[0].content |= sub("summarise the change"; "list every call site")
	| .steps |= (.[0:2] + [{"index": 2, "type": "tool_call", "tool": "list_dir", "parameters": {"path": "src"}, "output": "main.py\n", "deterministic": true, "timestamp": "2026-02-10T09:00:03Z"}] + .[2:])
	| .steps |= [foreach .[] as $s (-1; . + 1; $s + {index: .})]
	| .steps[3].parameters.pattern = "calc("
	| .steps[3].output = "src/main.py:1:def calc(xs):\nsrc/main.py:4:print(calc([1, 2, 3]))\nREADME.md:3:calc is the helper\n"
	| .outputs[1].content = "Renamed `calc` to `total`; call sites: src/main.py:1, src/main.py:4.\n"' >"$tmp/b.json"
B=$(ctx-pack "$tmp/b.json" | jq -r .hash)
ctx-show --html -o "$tmp/pack.html" "$A"
ctx-diff --html --align lcs -o "$tmp/diff.html" "$A" "$B" || [ $? -eq 1 ]
ctx-replay --html -o "$tmp/replay.html" "$A" || [ $? -eq 1 ]

shot() { # PAGE WIDTH HEIGHT [dark]
	name=$1-$2
	dark=
	if [ "${4:-}" = dark ]; then
		name=$name-dark
		dark="--force-dark-mode --blink-settings=preferredColorScheme=0"
	fi
	# shellcheck disable=SC2086
	HOME=$tmp chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --disable-extensions --disable-default-apps \
		--user-data-dir="$tmp/profile" $dark --window-size="$2,$3" \
		--screenshot="$out/$name.png" "file://$tmp/$1.html" >/dev/null 2>&1
	echo "$out/$name.png"
}
shot pack 1280 1500
shot diff 1280 1500
shot replay 1280 1100
shot pack 390 1400
shot diff 390 1400 dark
