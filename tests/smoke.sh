#!/usr/bin/env bash
# Integration test of the thin slice, through HAProxy (as a browser sees it):
# health, login, home, compile, and the error answers of CONTRACTS.md; plus the
# front door itself (routing by exact path, JSON errors, stats, access log).
# Needs the stack up (make up). Parts whose component has no run.sh are skipped.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$ROOT/bin/prutor" env)"
BASE=http://127.0.0.1:$HAPROXY_PORT
STATS=http://127.0.0.1:$HAPROXY_STATS_PORT

passed=0 failed=0 skipped=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
bad()  { failed=$((failed + 1)); echo "FAIL $*"; [ -z "${DETAIL:-}" ] || sed 's/^/       /' <<<"${DETAIL:0:600}"; DETAIL=; }
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
has()  { [ -f "$ROOT/$1/run.sh" ]; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
jar=$tmp/cookies
# req METHOD PATH [curl args...] -> sets CODE, BODY, HDRS
req() {
  local m=$1 p=$2; shift 2
  CODE=$(curl -s -o "$tmp/body" -D "$tmp/hdrs" -w '%{http_code}' --max-time 30 -X "$m" "$@" "$BASE$p" || echo 000)
  BODY=$(cat "$tmp/body"); HDRS=$(tr -d '\r' <"$tmp/hdrs")
}
HELLO='#include <stdio.h>

int main(void)
{
    printf("Hello, World!\n");
    return 0;
}
'

# ---------------------------------------------------------------- front door
echo "# HAProxy"
c=$(curl -s -o /dev/null -w '%{http_code}' "$STATS/;csv" || true)
[ "$c" = 200 ] && ok "stats page on :$HAPROXY_STATS_PORT" || bad "stats page answers $c"
metrics=$(curl -s "$STATS/metrics" || true)
grep -q '^haproxy_process_' <<<"$metrics" && ok "Prometheus metrics on :$HAPROXY_STATS_PORT/metrics" ||
  bad "no Prometheus metrics"

# Attack: the metrics (queue, slots, sign-in figures) are for the scraper on the services' own
# addresses, never for anyone through the public front door, whatever the path's spelling.
# First each endpoint answers where Prometheus scrapes it (so the refusals below mean something).
if has engine && has webapp; then
  grep -q '^prutor_engine_slots_busy' <<<"$(curl -s "$ENGINE_URL/metrics" || true)" &&
    grep -q '^prutor_webapp_http_requests_total' <<<"$(curl -s "http://$WEBAPP_HOST:$WEBAPP_HEALTH_PORT/metrics" || true)" &&
    ok "engine and webapp metrics on their own addresses" || bad "engine or webapp metrics missing on their own addresses"
  leaked=
  for p in /metrics /metrics/ /METRICS //metrics /metrics?format=json /jobe/../metrics /jobe/%2e%2e/metrics \
           /jobe/index.php/../../metrics /engine/healthz/../../metrics /compile/../metrics /engine/metrics /stats /haproxy/metrics; do
    for hdr in "Accept: text/plain" "X-API-KEY: $(sed -n 's/^ENGINE_JOBE_KEYS=\([0-9a-f]*\):.*/\1/p' "$PRUTOR_VAR/prutor.env")"; do
      b=$(curl -s --path-as-is --max-time 10 -H "$hdr" "$BASE$p" || true)
      grep -qE '^(prutor_engine_|prutor_webapp_|haproxy_|process_cpu)|"counters"' <<<"$b" && leaked+=" $p"
    done
  done
  [ -z "$leaked" ] && ok "attack: no metrics through the public front door (13 spellings, with and without a Jobe key)" ||
    bad "metrics leaked through HAProxy at:$leaked"
  c=$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Forwarded-For: 203.0.113.9' "$ENGINE_URL/metrics" || true)
  [ "$c" = 404 ] && ok "engine refuses /metrics to what came through a proxy (X-Forwarded-For)" || bad "engine /metrics with X-Forwarded-For: $c"
else
  skip "metrics attack (engine or webapp run.sh missing)"
fi

marker=smoke-$RANDOM$RANDOM
req GET "/$marker"
sleep 0.5
if grep -q "\"GET /$marker HTTP/1.1\"" "$PRUTOR_VAR/log/haproxy.log" 2>/dev/null; then
  line=$(grep "\"GET /$marker HTTP/1.1\"" "$PRUTOR_VAR/log/haproxy.log" | tail -n1)
  # HTTP log format: ... frontend backend/server TR/Tw/Tc/Tr/Ta status bytes - - TERM conns queues "request"
  re=' www [a-z]+/[^ ]+ [-0-9]+/[-0-9]+/[-0-9]+/[-0-9]+/[0-9]+ [0-9]{3} [0-9]+ .* [-A-Za-z]{4} [0-9]+/[0-9]+/[0-9]+/[0-9]+/[0-9]+ [0-9]+/[0-9]+ "'
  [[ $line =~ $re ]] &&
    ok "access log: HTTP log line with timers and termination state" || { DETAIL=$line; bad "access log format"; }
else
  bad "request not in $PRUTOR_VAR/log/haproxy.log"
fi

# ---------------------------------------------------------------- webapp
echo "# webapp through HAProxy"
if ! has webapp; then
  skip "webapp/run.sh missing: login, home and compile not tested"
else
  req GET /healthz
  if [ "$CODE" = 200 ] && jq -e '.status == "ok"' <<<"$BODY" >/dev/null 2>&1; then
    bad_parts=$(jq -r '.components | to_entries[]
      | select((.value == "ok" or .value == true or ((.value | type) == "object" and .value.status == "ok")) | not) | .key' <<<"$BODY")
    n=$(jq '.components | length' <<<"$BODY")
    [ -z "$bad_parts" ] && [ "$n" -ge 4 ] && ok "GET /healthz: every component healthy ($(jq -r '.components | keys | join(", ")' <<<"$BODY"))" ||
      { DETAIL=$BODY; bad "GET /healthz components: ${bad_parts:-fewer than 4}"; }
  elif ! has engine && [ "$CODE" = 503 ] &&
       [ "$(jq -r '[.components | to_entries[] | select(.key != "engine" and .value.status != "ok")] | length' <<<"$BODY" 2>/dev/null)" = 0 ]; then
    skip "GET /healthz: every component but the engine healthy (engine/run.sh missing)"
  else
    DETAIL=$BODY; bad "GET /healthz answers $CODE"
  fi

  req GET /accounts/login
  [ "$CODE" = 200 ] && [[ $BODY == *"<form"* && $BODY == *'name="password"'* ]] &&
    ok "login page renders" || { DETAIL=$BODY; bad "login page: $CODE"; }

  req POST /accounts/login -c "$jar" --data-urlencode username=student01 --data-urlencode password=prutor-demo
  if [[ $CODE =~ ^30[23]$ ]] && grep -qi '^set-cookie: prutor\.sid=' <<<"$HDRS"; then
    cookie=$(grep -i '^set-cookie: prutor\.sid=' <<<"$HDRS")
    [[ ${cookie,,} == *httponly* && ${cookie,,} == *samesite=lax* ]] &&
      ok "POST /accounts/login as student01: $CODE with an HttpOnly SameSite=Lax prutor.sid" ||
      { DETAIL=$cookie; bad "session cookie attributes"; }
  else
    DETAIL="$HDRS"; bad "POST /accounts/login as student01 answers $CODE without prutor.sid"
  fi

  req GET /home -b "$jar"
  csrf=$(grep -o '<meta name="csrf-token" content="[^"]*"' <<<"$BODY" | sed 's/.*content="//; s/"$//' | head -n1)
  aid=$(grep -o '/editor/[0-9]\+' <<<"$BODY" | head -n1 | cut -d/ -f3)
  [ "$CODE" = 200 ] && [[ $BODY == *"Lab 1"* ]] && ok "GET /home lists Lab 1" || { DETAIL=$BODY; bad "GET /home: $CODE"; }
  [ -n "$csrf" ] && ok "home page carries the CSRF token" || bad "no <meta name=\"csrf-token\"> on /home"

  req POST /accounts/login --data-urlencode username=student01 --data-urlencode password=wrong-password -H 'Accept: application/json'
  [[ $CODE =~ ^4[0-9][0-9]$ ]] && ok "wrong password: $CODE" || { DETAIL=$BODY; bad "wrong password answers $CODE (want 4xx)"; }

  req GET "/no-such-page-$marker" -b "$jar"
  [ "$CODE" = 404 ] && ok "unknown route: 404" || bad "unknown route answers $CODE"

  # /compilex must reach the webapp (404), not the engine: exact paths in HAProxy.
  req GET /compilex -b "$jar"
  [ "$CODE" = 404 ] && ! grep -qi '^x-engine-' <<<"$HDRS" && ok "/compilex goes to the webapp (404), not the engine" ||
    { DETAIL=$HDRS; bad "/compilex answers $CODE"; }

  # ------------------------------------------------------------ engine
  echo "# engine through HAProxy"
  if ! has engine; then
    skip "engine/run.sh missing: compile not tested"
  else
    req GET /engine/healthz
    [ "$CODE" = 200 ] && jq -e '.status == "ok"' <<<"$BODY" >/dev/null 2>&1 &&
      ok "GET /engine/healthz (rewritten to the engine's /healthz): ok, sandbox $(jq -r '.components.sandbox.mode // "?"' <<<"$BODY")" ||
      { DETAIL=$BODY; bad "GET /engine/healthz answers $CODE"; }

    if [ -n "$csrf" ] && [ -n "$aid" ]; then
      payload=$(jq -n --argjson a "$aid" --arg c "$HELLO" '{assignment_id: $a, code: $c}')
      req POST /compile -b "$jar" -H 'Content-Type: application/json' -H 'Accept: application/json' \
        -H "X-CSRF-Token: $csrf" --data "$payload"
      [ "$CODE" = 200 ] && jq -e '.compiled == true' <<<"$BODY" >/dev/null 2>&1 &&
        ok "POST /compile hello world: compiled=true" || { DETAIL=$BODY; bad "POST /compile answers $CODE"; }
      grep -qi '^x-engine-' <<<"$HDRS" && ok "/compile is served by the engine" || bad "/compile not answered by the engine"
    else
      bad "POST /compile not tried: no CSRF token or assignment id from /home"
    fi

    req POST /compile -H 'Content-Type: application/json' -H 'Accept: application/json' \
      --data '{"assignment_id": 1, "code": "int main(void){return 0;}"}'
    [ "$CODE" = 401 ] && jq -e '.error' <<<"$BODY" >/dev/null 2>&1 && ok "POST /compile without a session: 401 JSON" ||
      { DETAIL=$BODY; bad "compile without a session answers $CODE"; }
  fi
fi

echo "smoke: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
