#!/usr/bin/env bash
# Overload degrades, never fails over (issue 17), on real parts: a second webapp
# cluster (2 workers, this checkout's code, the stack's MariaDB and memcached) and a
# second HAProxy from haproxy/haproxy.cfg, on free ports, so that the shared stack
# keeps its settings. The webapp gets a short sign-in wait (SIGNIN_MAX_WAIT_S=1)
# so its queue fills within seconds; then tests/overload-load.js sends more
# sign-ins than it can hash plus page loads for OVERLOAD_SECONDS (20) and asserts
# that HAProxy never reports the webapp DOWN and every request gets its answer or
# a fast 503 with Retry-After. Afterwards HAProxy's own logs must hold no server
# DOWN event and no request answered for want of a server (<NOSRV>).
# Needs the stack up (MariaDB, memcached, the seeded demo course); ~35 s.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# the stack's environment (bin/prutor test exports PRUTOR_ROOT but not the secrets)
[ -n "${SESSION_SECRET:-}" ] || eval "$("$ROOT/bin/prutor" env)"
SECONDS_UNDER_LOAD=${OVERLOAD_SECONDS:-20}
MAX_WAIT_S=1

tmp=$(mktemp -d)
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() { local p; for p in $(seq "$1" $(($1 + 300))); do port_free "$p" && { echo "$p"; return; }; done; return 1; }
WEB=$(pick_port 18600); HEALTH=$(pick_port $((WEB + 1))); FRONT=$(pick_port $((HEALTH + 1))); STATS=$(pick_port $((FRONT + 1)))

mkdir -p "$tmp/run"
(cd "$ROOT/webapp" && exec env WEBAPP_HOST=127.0.0.1 WEBAPP_PORT="$WEB" WEBAPP_HEALTH_PORT="$HEALTH" WEB_WORKERS=2 \
   SIGNIN_CONCURRENCY=1 SIGNIN_MAX_WAIT_S=$MAX_WAIT_S TELEMETRY=0 PRUTOR_VAR="$tmp" NODE_ENV=production \
   node src/server.js) >"$tmp/webapp.log" 2>&1 & pids+=($!)
env HAPROXY_PORT="$FRONT" HAPROXY_STATS_PORT="$STATS" HAPROXY_RUN_DIR="$tmp/run" \
    WEBAPP_HOST=127.0.0.1 WEBAPP_PORT="$WEB" WEBAPP_HEALTH_PORT="$HEALTH" \
  haproxy -W -db -f "$ROOT/haproxy/haproxy.cfg" >"$tmp/access.log" 2>"$tmp/haproxy.err" & pids+=($!)

up=0
for _ in $(seq 1 300); do  # 60 s: the primary answers 503 until its workers beat, slow on a busy host
  up=$(curl -s "http://127.0.0.1:$STATS/;csv" 2>/dev/null | awk -F, '$1 == "webapp" && $2 == "webapp1" && $18 == "UP"' | wc -l || true)
  [ "$up" = 1 ] && break; sleep 0.2
done
if [ "$up" != 1 ]; then
  echo "FAIL the test webapp never came UP behind the test HAProxy"; tail -n 20 "$tmp/webapp.log" "$tmp/haproxy.err"; exit 1
fi
# the first checks, before the webapp listened, may have failed: count from here
err_from=$(( $(wc -l < "$tmp/haproxy.err") + 1 ))
echo "webapp (2 workers, sign-in wait <= ${MAX_WAIT_S}s) on :$WEB, health :$HEALTH, HAProxy :$FRONT; ${SECONDS_UNDER_LOAD}s of overload"

rc=0
node "$ROOT/tests/overload-load.js" "http://127.0.0.1:$FRONT" "http://127.0.0.1:$STATS" "$SECONDS_UNDER_LOAD" "$MAX_WAIT_S" || rc=1
sleep 0.5
if tail -n +"$err_from" "$tmp/haproxy.err" | grep -q 'is DOWN'; then
  echo "FAIL HAProxy marked a server DOWN:"; tail -n +"$err_from" "$tmp/haproxy.err" | grep 'is DOWN' | head -3; rc=1
fi
nosrv=$(grep -c '<NOSRV>' "$tmp/access.log" || true)
if [ "$nosrv" -gt 0 ]; then echo "FAIL $nosrv requests answered for want of a server (<NOSRV>)"; rc=1; fi
echo "access log: $(grep -c '"' "$tmp/access.log" || true) requests, <NOSRV> $nosrv; 503 by status: $(awk '$6 == 503' "$tmp/access.log" | wc -l)"
[ "$rc" = 0 ] && echo "ok   overload: the webapp stayed UP; every request got its answer or a fast 503 with Retry-After"
exit "$rc"
