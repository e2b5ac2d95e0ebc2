#!/bin/sh
# Installs the agents of scripts/agents.txt (or, with LATEST=1, their
# newest versions on npm) into DIR, default $CTX_AGENTS, else
# ~/.cache/ctx/agents: DIR/node_modules/.bin/{claude,codex,gemini,opencode}.
# The live-agent tests (go test ./lib/agent/...) look for them there.
# Needs node and npm.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-${CTX_AGENTS:-${XDG_CACHE_HOME:-$HOME/.cache}/ctx/agents}}
command -v npm >/dev/null 2>&1 || { echo "agents-install: npm is required (apt-get install nodejs npm)" >&2; exit 1; }
mkdir -p "$dir"
pkgs=
while read -r name pkg version; do
	case $name in ''|'#'*) continue ;; esac
	if [ "${LATEST:-}" = 1 ]; then version=latest; fi
	pkgs="$pkgs $pkg@$version"
done < "$here/agents.txt"
# shellcheck disable=SC2086 # one word per package
npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error $pkgs >&2
echo "$dir"
