#!/usr/bin/env bash
# Behaviour of haproxy/haproxy.cfg itself, with no other service: a second
# HAProxy from the same file on free ports, in front of two stand-in backends
# (tests/fake-backend.js) that say who answered and can be slow.
#
#   routing     exact /compile /execute /evaluate, prefix /jobe/, /engine/healthz
#               rewritten to /healthz -> engine; /compilex, /compile/, /jobe ... -> webapp
#   admission   engine maxconn + maxqueue + queue timeout: extras get a fast JSON 503
#   errors      HAProxy's own 503 is short JSON with Retry-After
#   logs        the HTTP log line carries timers and the termination state
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

passed=0 failed=0
ok()  { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }

tmp=$(mktemp -d)
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() { local p; for p in $(seq "$1" $(($1 + 200))); do port_free "$p" && { echo "$p"; return; }; done; return 1; }
FRONT=$(pick_port 18480); STATS=$(pick_port $((FRONT + 1))); WEB=$(pick_port $((STATS + 1))); ENG=$(pick_port $((WEB + 1)))

node "$ROOT/tests/fake-backend.js" webapp "$WEB" 0 >"$tmp/web.log" 2>&1 & pids+=($!); WEB_PID=$!
# the engine stand-in takes 1.5 s per request, like a compile under load
node "$ROOT/tests/fake-backend.js" engine "$ENG" 1500 >"$tmp/eng.log" 2>&1 & pids+=($!)

env HAPROXY_PORT="$FRONT" HAPROXY_STATS_PORT="$STATS" HAPROXY_RUN_DIR="$tmp" \
    WEBAPP_HOST=127.0.0.1 WEBAPP_PORT="$WEB" WEBAPP_HEALTH_PORT="$WEB" ENGINE_HOST=127.0.0.1 ENGINE_PORT="$ENG" \
    ENGINE_MAXCONN=1 ENGINE_MAXQUEUE=1 ENGINE_TIMEOUT_QUEUE=1s HAPROXY_CHECK_INTER=200ms \
  haproxy -W -db -f "$ROOT/haproxy/haproxy.cfg" >"$tmp/access.log" 2>"$tmp/haproxy.err" & pids+=($!)

# Both servers UP in the stats CSV (column 18 is the status).
up=0
for _ in $(seq 1 50); do
  up=$(curl -s "http://127.0.0.1:$STATS/;csv" 2>/dev/null | awk -F, '$2 ~ /^(webapp1|engine1)$/ && $18 == "UP"' | wc -l || true)
  [ "$up" = 2 ] && break; sleep 0.2
done
[ "$up" = 2 ] && ok "both backends UP by health check" || { bad "backends not UP"; cat "$tmp/haproxy.err"; exit 1; }

who() { curl -s --max-time 10 -X "$1" "http://127.0.0.1:$FRONT$2" | jq -r '"\(.backend) \(.path)"' 2>/dev/null || echo "none"; }
route() { # route METHOD PATH EXPECTED_BACKEND [EXPECTED_PATH]
  local got; got=$(who "$1" "$2")
  [ "$got" = "$3 ${4:-$2}" ] && ok "$1 $2 -> $3${4:+ as $4}" || bad "$1 $2 -> $got (want $3 ${4:-$2})"
}
route POST /compile engine
route POST /execute engine
route POST /evaluate engine
route POST "/compile?x=1" engine /compile?x=1
route GET /jobe/index.php/restapi/languages engine
route GET /engine/healthz engine /healthz
route GET /compilex webapp
route POST /compile/ webapp
route POST /evaluatex webapp
route GET /jobe webapp
route GET /engine/other webapp
route GET / webapp
route GET /home webapp
route GET /healthz webapp

xff=$(curl -s "http://127.0.0.1:$FRONT/home" | jq -r '.xff // empty')
[ "$xff" = 127.0.0.1 ] && ok "X-Forwarded-For is set" || bad "X-Forwarded-For: '$xff'"
# a client's own X-Forwarded-For never reaches a backend (the lab lock-down trusts it)
for p in /home /compile; do
  xff=$(curl -s -X POST -H 'X-Forwarded-For: 10.1.2.3' -H 'X-Forwarded-For: 10.4.5.6' "http://127.0.0.1:$FRONT$p" | jq -r '.xff // empty')
  [ "$xff" = 127.0.0.1 ] && ok "a forged X-Forwarded-For is replaced ($p)" || bad "forged X-Forwarded-For reached the backend on $p: '$xff'"
done

# Admission control: 1 running + 1 queued; the other 4 are refused at once, the
# queued one waits at most the 1 s queue timeout.
for i in 1 2 3 4 5 6; do
  curl -s -o "$tmp/adm$i.body" -w '%{http_code} %{time_total}\n' --max-time 10 -X POST \
    "http://127.0.0.1:$FRONT/compile" >"$tmp/adm$i.out" &
  sleep 0.05
done
wait_curls() { local i; for i in 1 2 3 4 5 6; do while [ ! -s "$tmp/adm$i.out" ]; do sleep 0.1; done; done; }
wait_curls
n200=$(cat "$tmp"/adm*.out | awk '$1 == 200' | wc -l)
fast503=$(cat "$tmp"/adm*.out | awk '$1 == 503 && $2 < 0.5' | wc -l)
all503=$(cat "$tmp"/adm*.out | awk '$1 == 503' | wc -l)
[ "$n200" -ge 1 ] && [ "$fast503" -ge 3 ] && [ $((n200 + all503)) = 6 ] &&
  ok "engine admission: $n200 served, $all503 refused with 503 ($fast503 within 0.5 s)" ||
  bad "engine admission: $(tr '\n' ';' < <(cat "$tmp"/adm*.out))"
body=$(for i in 1 2 3 4 5 6; do grep -l . "$tmp/adm$i.body" >/dev/null && cat "$tmp/adm$i.body" && echo; done | grep -m1 'busy' || true)
[[ $body == *'"error":'*'busy'* ]] && ok "the engine's 503 is JSON: $body" || bad "engine 503 body: $body"

# HAProxy's own 503 when the webapp is gone: short JSON with Retry-After.
kill "$WEB_PID"; sleep 1
hdrs=$(curl -s -D - -o "$tmp/503.body" "http://127.0.0.1:$FRONT/home" | tr -d '\r')
[[ $hdrs == "HTTP/1.1 503"* && ${hdrs,,} == *"content-type: application/json"* && ${hdrs,,} == *"retry-after: "* ]] &&
  jq -e .error "$tmp/503.body" >/dev/null && ok "webapp down: 503 JSON with Retry-After" ||
  bad "webapp down answer: $hdrs $(cat "$tmp/503.body")"

sleep 0.3
re=' www [a-z]+/[^ ]+ [-0-9]+/[-0-9]+/[-0-9]+/[-0-9]+/[-0-9]+ [0-9]{3} [0-9]+ .* [-A-Za-z]{4} [0-9]+/[0-9]+/[0-9]+/[0-9]+/[0-9]+ [0-9]+/[0-9]+ "'
lines=$(grep -c '"' "$tmp/access.log" || true)
good=$(grep -cE "$re" "$tmp/access.log" || true)
[ "$lines" -gt 10 ] && [ "$lines" = "$good" ] && ok "every access log line is an HTTP log line ($lines)" ||
  { bad "access log: $good of $lines lines match"; head -n 3 "$tmp/access.log"; }
grep -qE ' 503 [0-9]+ .* s[QC]-- ' "$tmp/access.log" && ok "a queue timeout is logged with termination state sQ--" ||
  bad "no sQ-- line in the access log"
grep -q 'webapp1 is DOWN' "$tmp/haproxy.err" && ! grep -q 'is DOWN' "$tmp/access.log" &&
  ok "server state changes go to stderr, not the access log" || bad "server state messages misplaced"

echo "haproxy: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
