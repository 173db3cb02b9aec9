#!/bin/sh
# Renders the engine's Apache config into OUTDIR (default $PRUTOR_VAR/engine):
#   engine/render-config.sh [OUTDIR]  ->  OUTDIR/httpd.conf (check: apache2 -t -d OUTDIR -f OUTDIR/httpd.conf)
# Settings (environment): ENGINE_PORT (8081), ENGINE_BIND (127.0.0.1), ENGINE_MAX_WORKERS
# (MaxRequestWorkers = ServerLimit, default 8 x cores), ENGINE_START_SERVERS, ENGINE_USER (www-data),
# ENGINE_BODY_TIMEOUT_S (10: seconds a request body may take) and ENGINE_JOBE_MAX_BODY_BYTES
# (4194304: the largest body, a Jobe call's).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
PRUTOR_VAR=${PRUTOR_VAR:-$REPO/var}
OUT=${1:-${ENGINE_VAR:-$PRUTOR_VAR/engine}}
mkdir -p "$OUT/run" "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
cores=$(nproc 2>/dev/null || echo 2)
ENGINE_PORT=${ENGINE_PORT:-8081}
ENGINE_BIND=${ENGINE_BIND:-127.0.0.1}
ENGINE_MAX_WORKERS=${ENGINE_MAX_WORKERS:-$((cores * 8))}
ENGINE_START_SERVERS=${ENGINE_START_SERVERS:-$(( ENGINE_MAX_WORKERS < cores * 2 ? ENGINE_MAX_WORKERS : cores * 2 ))}
# tuning/ (issue 7): ServerLimit (default MaxRequestWorkers) and MaxConnectionsPerChild (default 0)
ENGINE_SERVER_LIMIT=${ENGINE_SERVER_LIMIT:-$ENGINE_MAX_WORKERS}
ENGINE_MAX_CONNECTIONS_PER_CHILD=${ENGINE_MAX_CONNECTIONS_PER_CHILD:-0}
ENGINE_USER=${ENGINE_USER:-www-data}
ENGINE_GROUP=${ENGINE_GROUP:-$(id -gn "$ENGINE_USER" 2>/dev/null || echo www-data)}
ERROR_LOG=${ENGINE_ERROR_LOG:-$OUT/logs/error.log}
ENGINE_BODY_TIMEOUT_S=${ENGINE_BODY_TIMEOUT_S:-10}
ENGINE_JOBE_MAX_BODY_BYTES=${ENGINE_JOBE_MAX_BODY_BYTES:-4194304}
for v in "$ENGINE_PORT" "$ENGINE_MAX_WORKERS" "$ENGINE_START_SERVERS" "$ENGINE_SERVER_LIMIT" "$ENGINE_MAX_CONNECTIONS_PER_CHILD" \
         "$ENGINE_BODY_TIMEOUT_S" "$ENGINE_JOBE_MAX_BODY_BYTES"; do
  case "$v" in ''|*[!0-9]*) echo "render-config.sh: not a number: $v" >&2; exit 2 ;; esac
done
sed -e "s|@OUTDIR@|$OUT|g" -e "s|@ENGINE_ROOT@|$HERE|g" -e "s|@ENGINE_PORT@|$ENGINE_PORT|g" \
    -e "s|@ENGINE_BIND@|$ENGINE_BIND|g" -e "s|@MAX_WORKERS@|$ENGINE_MAX_WORKERS|g" \
    -e "s|@START_SERVERS@|$ENGINE_START_SERVERS|g" -e "s|@SERVER_LIMIT@|$ENGINE_SERVER_LIMIT|g" \
    -e "s|@MAX_CONN_PER_CHILD@|$ENGINE_MAX_CONNECTIONS_PER_CHILD|g" -e "s|@ENGINE_USER@|$ENGINE_USER|g" \
    -e "s|@ENGINE_GROUP@|$ENGINE_GROUP|g" -e "s|@ERROR_LOG@|$ERROR_LOG|g" \
    -e "s|@ENGINE_BODY_TIMEOUT_S@|$ENGINE_BODY_TIMEOUT_S|g" -e "s|@ENGINE_JOBE_MAX_BODY_BYTES@|$ENGINE_JOBE_MAX_BODY_BYTES|g" \
    "$HERE/httpd.conf.tmpl" > "$OUT/httpd.conf.new"
mv -f "$OUT/httpd.conf.new" "$OUT/httpd.conf"
echo "$OUT/httpd.conf"
