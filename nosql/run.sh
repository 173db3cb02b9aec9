#!/usr/bin/env bash
# Runs FerretDB (the MongoDB wire protocol over SQLite) in the foreground: the
# local stand-in for MongoDB, which Debian does not package. Compose runs mongo:7
# (its test override this same script in nosql/ferretdb/Dockerfile). Never as root.
set -euo pipefail
[ "$(id -u)" != 0 ] || { echo "nosql/run.sh: refusing to run FerretDB as root" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PRUTOR_VAR:=$(cd "$HERE/.." && pwd)/var}"
: "${FERRETDB_VERSION:=v1.24.0}"
: "${FERRETDB_BIN:=/usr/local/bin/ferretdb-$FERRETDB_VERSION}"
: "${MONGO_HOST:=127.0.0.1}" "${MONGO_PORT:=27017}" "${FERRETDB_DEBUG_ADDR:=127.0.0.1:8088}"
[ -x "$FERRETDB_BIN" ] || { echo "nosql/run.sh: $FERRETDB_BIN missing: run nosql/install.sh" >&2; exit 1; }
mkdir -p "$PRUTOR_VAR/ferretdb/data" "$PRUTOR_VAR/ferretdb/state"
exec "$FERRETDB_BIN" --handler=sqlite --sqlite-url="file:$PRUTOR_VAR/ferretdb/data/" \
  --state-dir="$PRUTOR_VAR/ferretdb/state" --listen-addr="$MONGO_HOST:$MONGO_PORT" \
  --debug-addr="$FERRETDB_DEBUG_ADDR" --telemetry=disable --log-level="${FERRETDB_LOG_LEVEL:-WARN}"
