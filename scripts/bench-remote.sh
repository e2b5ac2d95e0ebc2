#!/bin/bash
# Reproduces the ctx-push / ctx-pull figures in docs/performance.md: W3's
# pack (10,000 objects of 1 KiB) against Debian's docker-registry on
# loopback, started here on a free port with a temporary root and
# stopped by its PID. Each case runs RUNS times; medians. Request counts
# come from the registry's access log, for one run of each case.
#   push        first push, to a fresh repository
#   repush      the same pack again (layout cache warm)
#   repush-nocache   the same, with CTX_OCI_CACHE=off (reads every object)
#   pull        into an empty store
#   pull-10     into a store that has all but ten of the pack's objects
#   pack-W3     anchor: ctx-pack of the same log into an empty store, the
#               cost of storing 10,000 objects on this file system now
#   pull-layout into an empty store from an OCI layout directory holding
#               the pack (no network: what storing the layers costs)
#   tar-anchor  anchor for pull-layout: one tar -x of the same 256 layers,
#               sha256sum of the 10,000 files it made, sync -f
# Usage: scripts/bench-remote.sh [RUNS]   (default 5)
set -euo pipefail
# Static binaries, as they should be installed: kong imports os/user, which
# would otherwise link libc through cgo and slow every start.
export CGO_ENABLED=0
runs=${1:-5}
command -v docker-registry >/dev/null || { echo "bench-remote: docker-registry is not installed (apt-get install docker-registry)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench-remote.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	chmod -R u+w "$work" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
cd "$root"
go build -o "$work/bin/" ./cmd/ctx-init ./cmd/ctx-pack ./cmd/ctx-push ./cmd/ctx-pull
go build -o "$work/bin/genlog" ./scripts/genlog
PATH="$work/bin:$PATH"
export XDG_CACHE_HOME="$work/cache" DOCKER_CONFIG="$work/docker"

# A free port: the first that nothing answers on.
port=$((20000 + RANDOM % 20000))
while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
mkdir -p "$work/registry"
cat >"$work/registry/config.yml" <<CFG
version: 0.1
log: {level: error, accesslog: {disabled: false}}
storage: {filesystem: {rootdirectory: $work/registry/data}, delete: {enabled: true}}
http: {addr: 127.0.0.1:$port}
CFG
docker-registry serve "$work/registry/config.yml" >"$work/registry/access.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	(echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	sleep 0.1
done
reg=oci://127.0.0.1:$port

genlog -inputs 10000 -size 1024 >"$work/w3.json"
mkdir -p "$work/a" && (cd "$work/a" && ctx-init >/dev/null && ctx-pack "$work/w3.json" >"$work/pack.json")
hash=$(sed 's/.*"hash":"sha256:\([0-9a-f]*\)".*/\1/' "$work/pack.json")
# The prepared store for pull-10: the pack, less ten objects and its entry.
mkdir -p "$work/ten" && (cd "$work/ten" && ctx-init >/dev/null)
ctx-push --store "$work/a" "$reg/prep" "$hash" >/dev/null
ctx-pull --store "$work/ten" "$reg/prep" "$hash" >/dev/null
chmod u+w "$work/ten/.ctx/packs"
rm -f "$work/ten/.ctx/packs/$hash"
find "$work/ten/.ctx/objects" -type f | sort | awk 'NR % 997 == 1' | head -10 | xargs rm -f

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# requests: the access log lines since mark, by method.
mark() { wc -l <"$work/registry/access.log"; }
requests() {
	tail -n +"$(($1 + 1))" "$work/registry/access.log" | { grep -oE '"(GET|HEAD|POST|PUT|PATCH|DELETE) /v2/[^ ]*' || true; } |
		awk '{split($1, m, "\""); n[m[2]]++; t++} END {printf "%d (", t; s=""; for (k in n) {printf "%s%s %d", s, k, n[k]; s=", "}; printf ")"}'
}

# run NAME SETUP CMD: time CMD (after SETUP, untimed) RUNS times; print
# the median wall time and the client's CPU time (user + system) in ms,
# and the requests of the first run.
run() {
	local name=$1 setup=$2 cmd=$3 t=() c=() reqs=
	for i in $(seq "$runs"); do
		eval "$setup" >/dev/null
		local m a b
		m=$(mark)
		a=$(now); eval "/usr/bin/time -f '%U %S' -o '$work/cpu' $cmd" >"$work/out.json"; b=$(now)
		[ "$i" = 1 ] && reqs=$(requests "$m")
		t+=("$(echo "($b - $a) * 1000" | bc -l)")
		c+=("$(awk '{print ($1 + $2) * 1000}' "$work/cpu")")
	done
	printf '%-16s %9.1f ms  cpu %7.1f ms  requests %s\n' "$name" "$(printf '%s\n' "${t[@]}" | median)" "$(printf '%s\n' "${c[@]}" | median)" "$reqs"
	sed 's/^/                 /' "$work/out.json" | cut -c1-220
}

n=0
fresh() { n=$((n + 1)); repo="$reg/w3-$n"; }
empty() { rm -rf "$work/b" && mkdir -p "$work/b" && (cd "$work/b" && ctx-init); }
ten() { chmod -R u+w "$work/c" 2>/dev/null || true; rm -rf "$work/c" && cp -a "$work/ten" "$work/c"; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run push 'fresh' 'ctx-push --store "$work/a" "$repo" "$hash"'
run repush ':' 'ctx-push --store "$work/a" "$reg/prep" "$hash"'
run repush-nocache ':' 'env CTX_OCI_CACHE=off ctx-push --store "$work/a" "$reg/prep" "$hash"'
run pull 'empty' 'ctx-pull --store "$work/b" "$reg/prep" "$hash"'
run pull-10 'ten' 'ctx-pull --store "$work/c" "$reg/prep" "$hash"'
run pack-W3 'empty' 'ctx-pack --store "$work/b" "$work/w3.json"'
# The same layers from a layout directory, and the anchor on them. The
# anchor's tar reads the layers one after another (--ignore-zeros), as
# one archive; the file list for sha256sum comes from find.
ctx-push --store "$work/a" "oci-layout:$work/layout" "$hash" >/dev/null
man=$(sed 's/.*"digest":"sha256:\([0-9a-f]*\)".*/\1/' "$work/layout/index.json")
sed 's/.*"layers":\[//' "$work/layout/blobs/sha256/$man" | grep -oE '"digest":"sha256:[0-9a-f]{64}"' |
	sed "s|.*sha256:\([0-9a-f]*\)\"|$work/layout/blobs/sha256/\1|" >"$work/layers.txt"
cat >"$work/anchor.sh" <<'SH'
#!/bin/sh
# anchor.sh LAYERS DIR: extract the layers into DIR, hash every file, sync.
xargs cat <"$1" | tar -x -i -C "$2" -f - &&
	find "$2" -type f -print0 | xargs -0 sha256sum >/dev/null &&
	sync -f "$2"
SH
chmod +x "$work/anchor.sh"
run pull-layout 'empty' 'ctx-pull --store "$work/b" "oci-layout:$work/layout" "$hash"'
run tar-anchor 'rm -rf "$work/x" && mkdir -p "$work/x"' '"$work/anchor.sh" "$work/layers.txt" "$work/x"'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
