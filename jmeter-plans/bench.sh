#!/usr/bin/env bash
# One load run of a plan against the running stack (starts nothing but JMeter), then
# the thesis' aggregate table, the login error % (the capacity figure), the CPU of each
# component during the run, and the nothing-lost check of the saves.
#
#   PLAN=webapp USERS=200 ./bench.sh          (what `make bench` runs)
#
# Env (defaults): PLAN webapp|engine|combined (webapp), USERS (2), RAMPUP seconds
# (USERS/10, at least 1), ITERATIONS (5, the thesis'), THINK ms (2000), HOST (127.0.0.1),
# PORT ($HAPROXY_PORT or 8080), ENGINE_SHARE % of USERS on the engine in the combined
# plan (50), LOAD_AUTO (1: create load data with load-data.sh when the CSV or the
# database has fewer load users than USERS), JMETER_HEAP (1g), JMETER_ARGS (extra
# -J... for JMeter), RESULTS_DIR (<repo>/results), RUN_NAME, FAIL_ON_ERRORS (0; 1: exit
# 5 when any sample failed), SETTLE seconds before counting rows (2).
# Output: $RESULTS_DIR/<run>/{results.csv, dashboard/index.html, summary.json,
# cpu.json, jmeter.log, meta.json}; $RESULTS_DIR/latest points to the last run.
# Exit: 0 ok, 2 stack not reachable or setup failed, 3 saves lost/unacknowledged,
# 4 no samples, 5 failed samples (FAIL_ON_ERRORS=1).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

PLAN=${PLAN:-webapp}
USERS=${USERS:-2}
RAMPUP=${RAMPUP:-$(( USERS / 10 > 0 ? USERS / 10 : 1 ))}
ITERATIONS=${ITERATIONS:-5}
THINK=${THINK:-2000}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-${HAPROXY_PORT:-8080}}
ENGINE_SHARE=${ENGINE_SHARE:-50}
LOAD_AUTO=${LOAD_AUTO:-1}
JMETER_HEAP=${JMETER_HEAP:-1g}
SETTLE=${SETTLE:-2}

plan_file="$PLANS_DIR/$PLAN.jmx"
[ -f "$plan_file" ] || die "no plan $PLAN (webapp, engine or combined)"
for v in USERS RAMPUP ITERATIONS THINK ENGINE_SHARE; do
  case "${!v}" in ''|*[!0-9]*) die "$v must be a whole number";; esac
done
[ "$USERS" -ge 1 ] || die "USERS must be at least 1"

# the stack must be up: we start nothing but JMeter. A stack just started or scaled may fail
# a check or two while its new servers warm up (their first PHP requests): 30 s to answer 200.
healthy=0
for _ in $(seq 30); do
  curl -sf -m 5 -o /dev/null "http://$HOST:$PORT/healthz" && { healthy=1; break; }
  sleep 1
done
if [ "$healthy" = 0 ]; then
  echo "error: http://$HOST:$PORT/healthz has not answered 200 for 30 s: start the stack first (make up)" >&2
  exit 2
fi

JM_HOME=$("$PLANS_DIR/install-jmeter.sh") || exit 2
JM_JAR="$JM_HOME/bin/ApacheJMeter-$JMETER_VERSION.jar"

# load users: enough of them in the CSV and in the database
csv_users=0; [ -f "$LOAD_CSV" ] && csv_users=$(( $(wc -l < "$LOAD_CSV") - 1 ))
db_users=$(sql "SELECT COUNT(*) FROM users u JOIN sections s ON s.id = u.section_id AND s.code = '$LOAD_SECTION'") \
  || { echo "error: cannot query the database at $DB_HOST:$DB_PORT" >&2; exit 2; }
if [ "$csv_users" -lt "$USERS" ] || [ "$db_users" -ne "$csv_users" ]; then
  if [ "$LOAD_AUTO" = 1 ]; then
    echo "creating $USERS load users (CSV has $csv_users, database $db_users)..."
    USERS=$USERS "$PLANS_DIR/load-data.sh" || exit 2
  else
    die "need $USERS load users (CSV has $csv_users, database $db_users): run load-data.sh USERS=$USERS"
  fi
fi

engine_users=0; webapp_users=$USERS
if [ "$PLAN" = combined ]; then
  engine_users=$(( (USERS * ENGINE_SHARE + 50) / 100 ))
  [ "$USERS" -ge 2 ] && [ "$engine_users" -lt 1 ] && engine_users=1
  [ "$engine_users" -ge "$USERS" ] && [ "$USERS" -ge 2 ] && engine_users=$(( USERS - 1 ))
  webapp_users=$(( USERS - engine_users ))
fi

run=${RUN_NAME:-$PLAN-${USERS}u-$(date -u +%Y%m%d-%H%M%S)}
case "$run" in *[!A-Za-z0-9._-]*) die "RUN_NAME: letters, digits, . _ - only";; esac
out="$RESULTS_ROOT/$run"
mkdir -p "$out"
ln -sfn "$run" "$RESULTS_ROOT/latest"

code_start=$(sql "SELECT COALESCE(MAX(id), 0) FROM code")
started=$(date -u +%Y-%m-%dT%H:%M:%SZ); t0=$(date +%s)
echo "run $run: $PLAN, $USERS users (webapp $webapp_users, engine $engine_users), ramp-up ${RAMPUP}s," \
     "$ITERATIONS iterations, think ${THINK}ms, http://$HOST:$PORT -> $out"

# httpclient4.idletimeout: JMeter drops a keep-alive connection idle for 5 s itself, before
# HAProxy's http-keep-alive timeout (10 s) does; otherwise a request sent just as HAProxy
# closes the idle connection fails with NoHttpResponseException (browsers resend such a
# request, JMeter does not), which a starved JMeter thread made happen in overloaded runs.
# shellcheck disable=SC2086
java -Xms256m -Xmx"$JMETER_HEAP" -XX:+UseG1GC -jar "$JM_JAR" -n -t "$plan_file" \
  -Jhost="$HOST" -Jport="$PORT" -Jusers="$USERS" -Jwebapp_users="$webapp_users" -Jengine_users="$engine_users" \
  -Jrampup="$RAMPUP" -Jiterations="$ITERATIONS" -Jthink="$THINK" -Jcsv="$LOAD_CSV" \
  -Jsample_variables=code_id,variant -Jsummariser.interval=30 -Jrun_id="$run" -Jhttpclient4.idletimeout=5000 \
  -l "$out/results.csv" -j "$out/jmeter.log" -e -o "$out/dashboard" ${JMETER_ARGS:-} &
jpid=$!
python3 "$PLANS_DIR/bench/cpu_sampler.py" --out "$out/cpu.json" --jmeter-pid "$jpid" &
spid=$!
trap 'kill "$jpid" "$spid" 2>/dev/null || true' INT TERM
jrc=0; wait "$jpid" || jrc=$?
kill -TERM "$spid" 2>/dev/null || true; wait "$spid" || true
trap - INT TERM
finished=$(date -u +%Y-%m-%dT%H:%M:%SZ); t1=$(date +%s)
[ "$jrc" -eq 0 ] || echo "warning: JMeter exited with $jrc (see $out/jmeter.log)" >&2

sleep "$SETTLE"   # a save that timed out on the client may still commit: count it too
# this run's saves only: the plan writes "(run <name>)" into every saved program, so
# other runs on the same load users at the same time are not counted
sql "SELECT c.id, c.save_trigger FROM code c
       JOIN assignments a ON a.id = c.assignment_id
       JOIN users u ON u.id = a.user_id
       JOIN sections s ON s.id = u.section_id AND s.code = '$LOAD_SECTION'
      WHERE c.id > $code_start AND c.save_trigger IN ('manual', 'auto', 'submit')
        AND c.code LIKE '%(run $run)%'" > "$out/db_saves.tsv"

python3 - "$out/meta.json" <<EOF
import json, sys
json.dump({"plan": "$PLAN", "users": $USERS, "webapp_users": $webapp_users, "engine_users": $engine_users,
           "rampup": $RAMPUP, "iterations": $ITERATIONS, "think": $THINK, "host": "$HOST", "port": $PORT,
           "started": "$started", "finished": "$finished", "duration_s": $((t1 - t0)),
           "jmeter": "$JMETER_VERSION", "jmeter_exit": $jrc, "code_id_before": $code_start,
           "commit": "$(git -C "$REPO_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)"},
          open(sys.argv[1], "w"), indent=1)
EOF

rc=0
python3 "$PLANS_DIR/bench/report.py" --results "$out/results.csv" --meta "$out/meta.json" \
  --cpu "$out/cpu.json" --db-saves "$out/db_saves.tsv" --out "$out/summary.json" \
  $([ "${FAIL_ON_ERRORS:-0}" = 1 ] && echo --fail-on-errors) || rc=$?
echo
echo "dashboard: $out/dashboard/index.html   summary: $out/summary.json"
exit "$rc"
