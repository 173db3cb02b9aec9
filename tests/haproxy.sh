#!/usr/bin/env bash
# Behaviour of haproxy/haproxy.cfg itself, with no other service: a second
# HAProxy from the same file on free ports, in front of two stand-in backends
# (tests/fake-backend.js) that say who answered and can be slow.
#
#   routing     exact /compile /execute /evaluate, prefix /jobe/, /engine/healthz
#               rewritten to /healthz -> engine; /compilex, /compile/, /jobe ... -> webapp
#   admission   engine maxconn + maxqueue + queue timeout: extras get a fast JSON 503
#   bodies      slow bodies get 408 and never hold the engine's connection (a student's
#               run is served meanwhile); bodies over the limit 413; no cookie 401,
#               a Jobe call without a key 403
#   jobe lane   the Jobe API has its own connections: with them all busy a student's
#               compile is served; an extra run gets Jobe's overload outcome 21 (finding 6)
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

# bodies: at most 64 KiB, 2 s to arrive; a buffer that holds that and the headers
env -u ENGINE_JOBE_OPEN_ADDRESSES HAPROXY_PORT="$FRONT" HAPROXY_STATS_PORT="$STATS" HAPROXY_RUN_DIR="$tmp" \
    WEBAPP_HOST=127.0.0.1 WEBAPP_PORT="$WEB" WEBAPP_HEALTH_PORT="$WEB" ENGINE_HOST=127.0.0.1 ENGINE_PORT="$ENG" \
    ENGINE_MAXCONN=1 ENGINE_MAXQUEUE=1 ENGINE_TIMEOUT_QUEUE=1s HAPROXY_CHECK_INTER=200ms \
    ENGINE_JOBE_MAXCONN=1 ENGINE_JOBE_MAXQUEUE=1 \
    ENGINE_MAX_BODY_BYTES=65536 ENGINE_JOBE_MAX_BODY_BYTES=1048576 ENGINE_BODY_TIMEOUT_S=2 HAPROXY_BUFSIZE=98304 \
  haproxy -W -db -f "$ROOT/haproxy/haproxy.cfg" >"$tmp/access.log" 2>"$tmp/haproxy.err" & pids+=($!)

# Every backend's server UP in the stats CSV (column 18 is the status).
up=0
for _ in $(seq 1 50); do
  up=$(curl -s "http://127.0.0.1:$STATS/;csv" 2>/dev/null | awk -F, '$2 ~ /^(webapp1|engine1|jobe1)$/ && $18 == "UP"' | wc -l || true)
  [ "$up" = 3 ] && break; sleep 0.2
done
[ "$up" = 3 ] && ok "every backend UP by health check" || { bad "backends not UP"; cat "$tmp/haproxy.err"; exit 1; }

# What a signed-in student and a CodeRunner send (HAProxy checks the cookie's form and
# the key's presence only; the engine checks both).
SID="Cookie: prutor.sid=$(printf 'a%.0s' $(seq 1 43)).$(printf 'b%.0s' $(seq 1 43))"
KEY='X-API-KEY: some-key'
who() { curl -s --max-time 10 -X "$1" -H "$SID" -H "$KEY" "http://127.0.0.1:$FRONT$2" | jq -r '"\(.backend) \(.path)"' 2>/dev/null || echo "none"; }
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
  xff=$(curl -s -X POST -H "$SID" -H 'X-Forwarded-For: 10.1.2.3' -H 'X-Forwarded-For: 10.4.5.6' "http://127.0.0.1:$FRONT$p" | jq -r '.xff // empty')
  [ "$xff" = 127.0.0.1 ] && ok "a forged X-Forwarded-For is replaced ($p)" || bad "forged X-Forwarded-For reached the backend on $p: '$xff'"
done

# Admission control: 1 running + 1 queued; the other 4 are refused at once, the
# queued one waits at most the 1 s queue timeout.
for i in 1 2 3 4 5 6; do
  curl -s -o "$tmp/adm$i.body" -w '%{http_code} %{time_total}\n' --max-time 10 -X POST -H "$SID" \
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

# Bodies. Refused before any body is read: no session cookie
# (the stand-in engine would answer 200), a Jobe call without a key, a declared body
# over the limit.
code() { curl -s -o "$tmp/code.body" -w '%{http_code}' --max-time 10 "$@" || true; }
c=$(code -X POST -d '{}' "http://127.0.0.1:$FRONT/execute")
[ "$c" = 401 ] && grep -q '"error"' "$tmp/code.body" && ok "no session cookie: 401 from HAProxy" || bad "no cookie: $c $(cat "$tmp/code.body")"
c=$(code -X POST -d '{}' "http://127.0.0.1:$FRONT/jobe/index.php/restapi/runs")
[ "$c" = 403 ] && [ "$(cat "$tmp/code.body")" = '"Missing API key"' ] && ok "Jobe call without a key: 403 from HAProxy" ||
  bad "Jobe without key: $c $(cat "$tmp/code.body")"
c=$(code -X POST -H "$SID" -H 'Content-Length: 70000' --data-binary @<(head -c 100 /dev/zero) "http://127.0.0.1:$FRONT/compile")
[ "$c" = 413 ] && ok "a declared body over ENGINE_MAX_BODY_BYTES: 413 at once" || bad "over-limit Content-Length: $c"
c=$(code -X POST -H "$SID" -H 'Transfer-Encoding: chunked' --data-binary @<(head -c 70000 /dev/zero) "http://127.0.0.1:$FRONT/compile")
[ "$c" = 413 ] && ok "a chunked body over the limit: 413" || bad "chunked over-limit body: $c"
got=$(curl -s --max-time 10 -X POST -H "$SID" --data-binary @<(head -c 60000 /dev/zero) "http://127.0.0.1:$FRONT/compile" | jq -r .bytes || true)
[ "$got" = 60000 ] && ok "a body within the limit reaches the engine whole" || bad "60000-byte body: engine got '$got'"

# Four connections trickle a body (a byte every 0.5 s) into the engine's only
# connection (ENGINE_MAXCONN=1), two more into the Jobe lane's. Meanwhile a
# student's run is served (before the fix: queued behind them, 503 after the 1 s
# queue timeout) and a Jobe run too; the slow ones get 408 after the 2 s allowed.
node "$ROOT/tests/slow-body.js" "http://127.0.0.1:$FRONT/compile" 4 1000 500 10 -H "$SID" >"$tmp/slow.out" & slow=$!
node "$ROOT/tests/slow-body.js" "http://127.0.0.1:$FRONT/jobe/index.php/restapi/runs" 2 1000 500 10 -H "$KEY" >"$tmp/slowjobe.out" & slowjobe=$!
sleep 0.5
student=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 -X POST -H "$SID" -d '{"code":"x"}' "http://127.0.0.1:$FRONT/execute" || true)
jobe=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 -X POST -H "$KEY" -d '{"run_spec":{}}' "http://127.0.0.1:$FRONT/jobe/index.php/restapi/runs" || true)
wait "$slow" "$slowjobe"
[[ $student == 200\ * ]] && awk -v t="${student#* }" 'BEGIN { exit !(t < 2.5) }' &&
  ok "slow bodies held nothing: a student's /execute answered 200 in ${student#* } s (engine 1.5 s)" ||
  bad "student's /execute during slow bodies: $student"
[[ $jobe == 200\ * ]] && ok "and a Jobe run 200 in ${jobe#* } s" || bad "Jobe run during slow bodies: $jobe"
n408=$(cat "$tmp/slow.out" "$tmp/slowjobe.out" | awk '$1 == 408 && $2 >= 1.9 && $2 < 3' | wc -l)
[ "$n408" = 6 ] && ok "the 6 slow bodies got 408 after the 2 s allowed" ||
  bad "slow bodies: $(cat "$tmp/slow.out" "$tmp/slowjobe.out" | tr '\n' ';')"

# The Jobe lane: one run in the engine, one queued fill the lane
# (ENGINE_JOBE_MAXCONN=1, ENGINE_JOBE_MAXQUEUE=1); a third run gets Jobe's overload
# outcome at once, and a student's compile is served all the same.
lane=()
for i in 1 2; do
  curl -s -o /dev/null --max-time 10 -X POST -H "$KEY" -d '{}' "http://127.0.0.1:$FRONT/jobe/index.php/restapi/runs" & lane+=($!)
  sleep 0.1
done
extra=$(curl -s -w ' %{http_code} %{time_total}' --max-time 10 -X POST -H "$KEY" -d '{}' "http://127.0.0.1:$FRONT/jobe/index.php/restapi/runs" || true)
student=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 10 -X POST -H "$SID" -d '{}' "http://127.0.0.1:$FRONT/compile" || true)
wait "${lane[@]}"
[[ $extra == *'"outcome":21'*' 200 '* ]] && awk -v t="${extra##* }" 'BEGIN { exit !(t < 0.5) }' &&
  ok "Jobe lane full: an extra run gets outcome 21 (server overload) at once" || bad "extra Jobe run: $extra"
[[ $student == 200\ * ]] && awk -v t="${student#* }" 'BEGIN { exit !(t < 2.5) }' &&
  ok "Jobe lane full: a student's /compile answered 200 in ${student#* } s" || bad "student's /compile with the Jobe lane full: $student"
grep -q '"POST /jobe/index.php/restapi/runs ' <(grep ' jobe/jobe1 ' "$tmp/access.log") &&
  ok "Jobe calls go through backend jobe, students' through backend engine" || bad "no jobe/jobe1 line in the access log"

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
