#!/usr/bin/env bash
# monitoring's test, against the running stack (make up): a real Prometheus (monitoring/run.sh,
# its own port and data folder, scraping every second, each alert's `for:` shortened to 5 s)
# and, through its HTTP API:
#   targets    engine, webapp and haproxy all up
#   rules      both groups loaded, every rule evaluated without error
#   alerts     PrutorEngineSlotsSaturated inactive while the engine idles, firing while
#              students hold every slot with programs that sleep to their wall limit
#              (real /execute calls through HAProxy: monitoring/traffic.js hold);
#              PrutorSigninRefusing firing while a script guessing a password gets 429s
#   dashboard  every query of grafana/prutor.json answers with data after real sign-ins,
#              pages, saves, compiles, executes and evaluations (traffic.js work)
# Without prometheus installed it says SKIP and passes (tests/run.sh reports the suite skipped).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
command -v prometheus >/dev/null || { echo "SKIP: prometheus is not installed (monitoring/install.sh)"; exit 0; }
[ -n "${ENGINE_PORT:-}" ] || eval "$("$ROOT/bin/prutor" env)"

passed=0 failed=0
ok()  { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }

tmp=$(mktemp -d)
pids=()
cleanup() { local p; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
PORT=
for p in $(seq $((${PROMETHEUS_PORT:-9090} + 1)) $((${PROMETHEUS_PORT:-9090} + 100))); do port_free "$p" && { PORT=$p; break; }; done
[ -n "$PORT" ] || { echo "no free port for the test's Prometheus"; exit 1; }
API=http://127.0.0.1:$PORT/api/v1

# the rules as shipped, with every `for:` at 5 s so an alert fires within the test
sed -E 's/^( +for: ).*/\15s/' "$HERE/rules/prutor.yml" >"$tmp/rules.yml"
promtool check rules "$tmp/rules.yml" >/dev/null && ok "promtool accepts the rules" || bad "promtool rejects the rules"

PROMETHEUS_DIR=$tmp PROMETHEUS_PORT=$PORT PROMETHEUS_RULES=$tmp/rules.yml PROMETHEUS_SCRAPE_INTERVAL=1s \
  bash "$HERE/run.sh" >"$tmp/prometheus.log" 2>&1 & pids+=($!)
for _ in $(seq 1 60); do [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/-/ready" || true)" = 200 ] && break; sleep 0.5; done
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/-/ready" || true)" = 200 ] ||
  { bad "Prometheus did not become ready"; tail -n 20 "$tmp/prometheus.log"; exit 1; }

# until SECONDS CMD...: retry CMD every second for at most SECONDS (generous: the host is shared)
until_ok() { local n=$1; shift; local i; for i in $(seq 1 "$n"); do "$@" && return 0; sleep 1; done; return 1; }
query() { curl -s --get --data-urlencode "query=$1" "$API/query"; }

# ---------------------------------------------------------------- targets
targets_up() {
  curl -s "$API/targets" >"$tmp/targets.json"
  [ "$(jq '[.data.activeTargets[] | select(.health == "up") | .labels.job] | sort | join(",")' -r "$tmp/targets.json")" = "engine,haproxy,webapp" ]
}
until_ok 30 targets_up && ok "targets engine, webapp and haproxy all up" ||
  bad "targets: $(jq -c '[.data.activeTargets[] | {job: .labels.job, health, lastError}]' "$tmp/targets.json")"

# ---------------------------------------------------------------- rules
want_rules=$(grep -cE '^ +- (record|alert):' "$HERE/rules/prutor.yml")
rules_ok() {
  curl -s "$API/rules" >"$tmp/rules.json"
  [ "$(jq '[.data.groups[].rules[] | select(.health == "ok")] | length' "$tmp/rules.json")" = "$want_rules" ]
}
until_ok 30 rules_ok && ok "rules loaded: $(jq -r '[.data.groups[].name] | join(", ")' "$tmp/rules.json"), all $want_rules evaluated" ||
  bad "rules: $(jq -c '[.data.groups[].rules[] | select(.health != "ok") | {name, health, lastError}]' "$tmp/rules.json" 2>/dev/null)"

alert_state() { # alert_state NAME -> firing | pending | inactive
  curl -s "$API/alerts" | jq -r --arg n "$1" '[.data.alerts[] | select(.labels.alertname == $n) | .state] | if length == 0 then "inactive" else (if index("firing") then "firing" else .[0] end) end'
}

# ---------------------------------------------------------------- traffic, then the alert
node "$HERE/traffic.js" work >"$tmp/work1.json" && ok "traffic: $(cat "$tmp/work1.json")" || bad "traffic failed: $(cat "$tmp/work1.json")"
s=$(alert_state PrutorEngineSlotsSaturated)
[ "$s" = inactive ] && ok "PrutorEngineSlotsSaturated inactive while the engine is not saturated" || bad "PrutorEngineSlotsSaturated is $s before any slot is held"

# every slot held: twice as many students as slots, each running a program that sleeps
TRAFFIC_STUDENTS=$((${ENGINE_SLOTS:-2} * 2)) node "$HERE/traffic.js" hold 40 >"$tmp/hold.json" 2>&1 & hold=$!; pids+=($hold)
fired() { [ "$(alert_state PrutorEngineSlotsSaturated)" = firing ]; }
if until_ok 60 fired; then
  ok "PrutorEngineSlotsSaturated firing while students hold every slot (busy ratio $(query 'prutor:engine_slots_busy:ratio' | jq -r '.data.result[0].value[1]'))"
else
  bad "PrutorEngineSlotsSaturated did not fire: $(curl -s "$API/alerts" | jq -c '.data.alerts')"
fi
q=$(query 'max_over_time(prutor:engine_queue:length[30s])' | jq -r '.data.result[0].value[1] // 0')
[ "${q%.*}" -ge 1 ] && ok "the engine's queue in view while the slots are held (up to $q waiting)" || bad "queue length at most $q while every slot is held"
wait "$hold" && ok "hold: $(cat "$tmp/hold.json")" || bad "hold traffic failed: $(cat "$tmp/hold.json")"

# ---------------------------------------------------------------- the dashboard's queries
node "$HERE/traffic.js" work >"$tmp/work2.json" || bad "traffic failed: $(cat "$tmp/work2.json")"
sleep 3 # a few scrapes and evaluations after the traffic
empty=()
n=0
while IFS= read -r expr; do
  n=$((n + 1))
  has_data() { [ "$(query "$expr" | jq '.data.result | length')" -gt 0 ]; }
  until_ok 20 has_data || empty+=("$expr")
done < <(jq -r '.panels[].targets[].expr' "$HERE/grafana/prutor.json")
[ ${#empty[@]} -eq 0 ] && ok "all $n dashboard queries answer with data" || bad "dashboard queries without data: ${empty[*]}"
jq -r '.panels[].targets[].expr' "$HERE/grafana/prutor.json" | grep -oE '[a-z_]+:[a-z0-9_:]+' | sort -u >"$tmp/used"
grep -oE 'record: [a-z_:0-9]+' "$HERE/rules/prutor.yml" | cut -d' ' -f2 | sort -u >"$tmp/recorded"
[ -z "$(comm -23 "$tmp/used" "$tmp/recorded")" ] && ok "the dashboard reads only recorded series" ||
  bad "the dashboard reads unrecorded series: $(comm -23 "$tmp/used" "$tmp/recorded" | tr '\n' ' ')"
has_series() { [ "$(query "$1" | jq '.data.result | length')" -gt 0 ]; }
until_ok 10 has_series 'prutor:engine_runs:rate1m{kind="execute",language="c",verdict="accepted"} > 0' &&
  ok "runs counted by kind, language and verdict" ||
  bad "no accepted execute in prutor:engine_runs:rate1m: $(query 'prutor:engine_runs:rate1m' | jq -c '[.data.result[].metric]')"
until_ok 10 has_series 'prutor:webapp_requests:rate1m{route="/home",status="200"} > 0' &&
  until_ok 10 has_series 'prutor:webapp_requests:rate1m{route="/editor/save",status="200"} > 0' &&
  ok "pages and saves counted by route and status" ||
  bad "no /home or /editor/save 200 in prutor:webapp_requests:rate1m: $(query 'prutor:webapp_requests:rate1m' | jq -c '[.data.result[].metric.route] | unique')"

# ---------------------------------------------------------------- sign-ins turned away
# a script guessing one account's password: the limiter answers 429 after a few tries.
# The guesses are spread over a few seconds: a counter series born with all its 429s
# between two scrapes has one value only, and rate() of it is 0.
guess=$(printf 'nobody-%s' "$RANDOM$RANDOM")
limited=0
for i in $(seq 1 24); do
  sleep 0.3
  c=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Origin: http://127.0.0.1:$HAPROXY_PORT" \
        --data-urlencode "username=$guess" --data-urlencode "password=guess$i" "http://127.0.0.1:$HAPROXY_PORT/accounts/login" || true)
  [ "$c" = 429 ] && limited=$((limited + 1))
done
signin_fired() { [ "$(alert_state PrutorSigninRefusing)" = firing ]; }
[ "$limited" -ge 8 ] && until_ok 60 signin_fired &&
  ok "PrutorSigninRefusing firing after $limited of 24 guesses were refused (429)" ||
  bad "PrutorSigninRefusing not firing ($limited refused; rate $(query 'prutor:signin_refused:rate1m' | jq -r '.data.result[0].value[1]'))"

echo "monitoring: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
