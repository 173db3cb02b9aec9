#!/usr/bin/env bash
# Tests of jmeter-plans (what `make test` runs for this folder):
#  1. static: every .jmx is well-formed with a sibling <hashTree> per element, no saved
#     listeners, every property has a default; the scripts parse; report.py detects a
#     lost save and a stored-but-unacknowledged one on synthetic results;
#  2. JMeter 5.6.3 is assembled (from Maven Central, cached in ~/.cache/prutor);
#  3. live: with 4 load users created for the test (and removed at the end), each plan
#     runs smoke-sized (2 users, 1 iteration, short think) against the running stack;
#     fails if any sample failed or acknowledged and stored saves differ.
#     Capacity figures are never asserted.
# Env: TEST_STATIC_ONLY=1 skips 3 (for machines without the stack); HOST, PORT, DB_*.
# The live part uses its own section LOADTEST (users ltest00001..), created and removed
# here, so it never touches the load data of a benchmark (section LOAD).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$PLANS_DIR"

fail=0
ok()   { echo "ok   $*"; }
bad()  { echo "FAIL $*"; fail=1; }

# --- 1. static checks
if python3 bench/validate_jmx.py webapp.jmx engine.jmx combined.jmx assembly/selfcheck.jmx >/tmp/prutor-jmx.$$ 2>&1; then
  ok "plans well-formed (hashTree per element, no listeners, property defaults)"
else
  cat /tmp/prutor-jmx.$$; bad "plan validation"
fi
rm -f /tmp/prutor-jmx.$$
for s in *.sh lib/common.sh; do bash -n "$s" || bad "syntax of $s"; done
python3 -c 'import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]' bench/*.py && ok "scripts parse" || bad "python syntax"
grep -q 'testname="login"' webapp.jmx && grep -q 'OnceOnlyController' webapp.jmx \
  && grep -q 'CSVDataSet' webapp.jmx && grep -q 'ConstantTimer' webapp.jmx \
  && ok "webapp plan: CSV users, login once, constant timer" || bad "webapp plan structure"
for l in home codebook editor save; do grep -q "testname=\"$l\"" webapp.jmx || bad "webapp plan lacks $l"; done
for l in login compile execute evaluate; do grep -q "testname=\"$l\"" engine.jmx || bad "engine plan lacks $l"; done
[ "$(grep -c 'testclass="ThreadGroup"' combined.jmx)" = 2 ] && ok "combined plan: two thread groups" || bad "combined plan"

# report.py on synthetic results: 3 acknowledged saves (ids 11, 12, 13) and 1 failed one
t=$(mktemp -d)
cat > "$t/r.csv" <<'EOF'
timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect,"code_id","variant"
1000,100,login,302,Found,t 1-1,text,true,,1,1,1,1,u,1,0,1,,
1100,20,save,200,OK,t 1-1,text,true,,1,1,1,1,u,1,0,1,11,
1200,30,save,200,OK,t 1-1,text,true,,1,1,1,1,u,1,0,1,12,
1300,40,save,200,OK,t 1-1,text,true,,1,1,1,1,u,1,0,1,13,
1400,50,save,503,Service Unavailable,t 1-1,text,false,save not acknowledged,1,1,1,1,u,1,0,1,,
EOF
echo '{"plan":"test"}' > "$t/m.json"
check_report() {  # expected-rc db-ids... (id<TAB>trigger lines)
  local want=$1; shift; printf '%s\n' "$@" > "$t/db.tsv"
  local rc=0; python3 bench/report.py --results "$t/r.csv" --meta "$t/m.json" --db-saves "$t/db.tsv" --out "$t/s.json" >/dev/null || rc=$?
  [ "$rc" = "$want" ]
}
check_report 0 $'11\tmanual' $'12\tmanual' $'13\tsubmit' && ok "report: equal saves pass" || bad "report: equal saves"
check_report 3 $'11\tmanual' $'13\tsubmit' && ok "report: a lost save fails" || bad "report: lost save not detected"
check_report 3 $'11\tmanual' $'12\tmanual' $'13\tsubmit' $'14\tmanual' && ok "report: an unacknowledged stored save fails" \
  || bad "report: unacknowledged save not detected"
python3 - "$t/s.json" <<'EOF' && ok "report: table figures" || bad "report: table figures"
import json, sys
s = json.load(open(sys.argv[1]))
save = s["labels"]["save"]
assert save["samples"] == 4 and save["errors"] == 1 and save["error_pct"] == 25.0, save
assert save["p90_ms"] == 50 and save["average_ms"] == 35.0, save
assert s["login_error_pct"] == 0.0 and s["total"]["samples"] == 5
EOF
rm -rf "$t"

# --- 2. JMeter
JM_HOME=$(./install-jmeter.sh) && [ -f "$JM_HOME/bin/ApacheJMeter-$JMETER_VERSION.jar" ] \
  && ok "JMeter $JMETER_VERSION at $JM_HOME" || bad "JMeter assembly"

# --- 2b. the webapp plan honours Retry-After as the login page does, against the mock
# stack (bench/mock_stack.py): each user's first 2 sign-ins are answered 503 with
# Retry-After: 1; the plan waits, signs in again and goes on ("login busy" samples,
# then one "login"). With fewer retries allowed than the refusals, the sign-in fails
# and that student stops (no page or save after it).
mock_run() {  # busy_logins login_retries -> prints "label success" per sample
  local dir port mpid
  dir=$(mktemp -d)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  python3 bench/mock_stack.py "$port" "$1" 2>/dev/null &
  mpid=$!
  printf 'username,password,assignment_id,problem\nmock1,load-pass,1,1\nmock2,load-pass,2,1\n' > "$dir/users.csv"
  for _ in $(seq 50); do curl -sf -m 1 -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
  java -Xmx256m -jar "$JM_HOME/bin/ApacheJMeter-$JMETER_VERSION.jar" -n -t webapp.jmx -Jport="$port" -Jusers=2 -Jrampup=1 \
    -Jiterations=1 -Jthink=50 -Jcsv="$dir/users.csv" -Jlogin_retries="$2" -l "$dir/r.csv" -j "$dir/jmeter.log" >/dev/null 2>&1 || true
  kill "$mpid" 2>/dev/null || true
  python3 -c 'import csv, sys; [print(r["label"], r["success"]) for r in csv.DictReader(open(sys.argv[1]))]' "$dir/r.csv"
  rm -rf "$dir"
}
r=$(mock_run 2 10)
[ "$(grep -c '^login busy true$' <<<"$r")" = 4 ] && [ "$(grep -c '^login true$' <<<"$r")" = 2 ] \
  && [ "$(grep -c '^save true$' <<<"$r")" = 8 ] && ! grep -q ' false$' <<<"$r" \
  && ok "webapp plan: 503 + Retry-After at sign-in is waited out and retried, then the student works" \
  || { echo "$r" | sort | uniq -c; bad "webapp plan: sign-in retry after Retry-After"; }
r=$(mock_run 5 2)
[ "$(grep -c '^login busy true$' <<<"$r")" = 4 ] && [ "$(grep -c '^login false$' <<<"$r")" = 2 ] \
  && ! grep -qE '^(home|codebook|editor|save) ' <<<"$r" \
  && ok "webapp plan: a sign-in still refused after login_retries fails, and that student stops" \
  || { echo "$r" | sort | uniq -c; bad "webapp plan: sign-in given up after login_retries"; }

# --- 3. live smoke runs
if [ "${TEST_STATIC_ONLY:-0}" = 1 ]; then
  echo "skip live runs (TEST_STATIC_ONLY=1)"
  exit $fail
fi
HOST=${HOST:-127.0.0.1}; PORT=${PORT:-${HAPROXY_PORT:-8080}}
if ! curl -sf -m 5 -o /dev/null "http://$HOST:$PORT/healthz"; then
  bad "the stack does not answer on http://$HOST:$PORT/healthz (make up; or TEST_STATIC_ONLY=1)"
  exit 1
fi
work=$(mktemp -d)
# a section of its own: never touches the data of a benchmark running at the same time
export LOAD_CSV="$work/users.csv" LOAD_SECTION=LOADTEST LOAD_PREFIX=ltest
cleanup() { "$PLANS_DIR/load-data.sh" --remove >/dev/null 2>&1 || echo "warning: load data not removed"; rm -rf "$work"; }
trap cleanup EXIT
USERS=4 ./load-data.sh >/dev/null && ok "load data created (4 users)" || { bad "load-data.sh"; exit 1; }
# only connection-level failures (e.g. a keep-alive connection closed by an HAProxy
# reload of another suite at that moment): worth one retry; anything else fails at once
only_connection_errors() {
  python3 - "$1" <<'PY'
import json, sys
f = json.load(open(sys.argv[1])).get("failures") or {}
sys.exit(0 if f and all("Non HTTP response code" in k for k in f) else 1)
PY
}
for plan in webapp engine combined; do
  for attempt in 1 2; do
    rc=0
    PLAN=$plan USERS=2 ITERATIONS=1 THINK=${THINK:-200} RAMPUP=1 LOAD_AUTO=0 FAIL_ON_ERRORS=1 \
      RESULTS_DIR="$work/results" RUN_NAME="$plan-$attempt" ./bench.sh > "$work/$plan.out" 2>&1 || rc=$?
    if [ "$rc" = 5 ] && [ "$attempt" = 1 ] && only_connection_errors "$work/results/$plan-1/summary.json"; then
      echo "note: $plan run had only connection-level failures ($(grep -m1 'x .*Non HTTP' "$work/$plan.out" | sed 's/^ *//')); retrying once"
      continue
    fi
    break
  done
  if [ "$rc" = 0 ]; then
    ok "$plan plan smoke run: $(grep -E '^TOTAL' "$work/$plan.out" | awk '{print $2" samples, "$6" errors"}');" \
       "$(grep -E '^nothing lost' "$work/$plan.out" | sed 's/ (submits.*-> / -> /')"
  else
    sed -n '/^plan=/,$p' "$work/$plan.out" | head -40
    bad "$plan plan smoke run (exit $rc)"
  fi
done
exit $fail
