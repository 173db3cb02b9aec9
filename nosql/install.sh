#!/usr/bin/env bash
# Installs what nosql/ needs: the FerretDB binary (built once from the Go module
# proxy and cached outside the work tree, so every checkout and CI run reuses
# it; installed from there into /usr/local/bin, where the unprivileged user that
# runs it can reach it) and the loader's npm dependencies. Idempotent; quick when
# both are present.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PRUTOR_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/prutor}" "${FERRETDB_VERSION:=v1.24.0}"
: "${FERRETDB_CACHED:=$PRUTOR_CACHE/ferretdb-$FERRETDB_VERSION}"
: "${FERRETDB_BIN:=/usr/local/bin/ferretdb-$FERRETDB_VERSION}"

build_ferretdb() {
  command -v go >/dev/null || { echo "nosql/install.sh: Go is needed to build FerretDB" >&2; exit 1; }
  echo "nosql/install.sh: building FerretDB $FERRETDB_VERSION (about 2 minutes, once)"
  local work src dir
  mkdir -p "$PRUTOR_CACHE"
  work=$(mktemp -d "$PRUTOR_CACHE/ferretdb-build.XXXXXX")
  trap 'rm -rf "$work"' RETURN
  # `go install` fails here (the proxy refuses version lists); download the
  # module, then build it with the version file its build expects.
  export GOFLAGS=-mod=mod
  dir=$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  src=$work/src
  cp -r "$dir" "$src" && chmod -R u+w "$src"
  echo "$FERRETDB_VERSION" >"$src/build/version/version.txt"
  (cd "$src" && go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb)
  "$work/ferretdb" --version >/dev/null
  mv -f "$work/ferretdb" "$FERRETDB_CACHED"   # atomic: a half-built binary is never cached
}

[ -x "$FERRETDB_CACHED" ] || build_ferretdb
cmp -s "$FERRETDB_CACHED" "$FERRETDB_BIN" || install -m 0755 "$FERRETDB_CACHED" "$FERRETDB_BIN"

# npm ci only when the lock file changed since the last install.
if [ ! -f "$HERE/node_modules/.package-lock.json" ] || [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)
fi
