#!/bin/sh
# agents-latest.sh: the live-agent tests against the newest versions of
# the agents on npm (scripts/agents.txt pins the ones the tests pass
# with). Installs them into DIR (default: a new temporary directory),
# prints each agent's version, then every check that now fails — a
# record kind the importer does not know, a step that imports
# differently, a request that no longer matches — as the next fix list.
#   scripts/agents-latest.sh [DIR]
set -eu
cd "$(dirname "$0")/.."
dir=${1:-$(mktemp -d)}
LATEST=1 scripts/agents-install.sh "$dir" >/dev/null
for pkg in @anthropic-ai/claude-code @openai/codex @google/gemini-cli opencode-ai; do
	v=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$dir/node_modules/$pkg/package.json" | head -1)
	pinned=$(awk -v p="$pkg" '$2 == p {print $3}' scripts/agents.txt)
	echo "$pkg $v (pinned $pinned)"
done
echo
if CTX_AGENTS=$dir go test -count=1 ./lib/agent/... ./lib/rerun/ > "$dir/test.log" 2>&1; then
	echo "every check passes with the newest versions"
else
	grep -E '^\s+(--- FAIL|agenttest\.go|rerun_test\.go|import warning)|^\s+(got|want) ' "$dir/test.log" || cat "$dir/test.log"
	exit 1
fi
