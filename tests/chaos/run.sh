#!/usr/bin/env bash
# `make chaos` (and, with --quick, the chaos suite of `make test`): USERS students
# (section CHAOS, usernames chaos00001.., made by jmeter-plans/load-data.sh) work
# through HAProxy while tests/chaos/chaos.js injects each fault of FAULTS in turn
# and reports, per fault, the failed requests by status, acknowledged saves against
# rows, students signed out and the time until everything was healthy again.
#
#   tests/chaos/run.sh            USERS=300 SETTLE_S=10 (the full run)
#   tests/chaos/run.sh --quick    USERS=20  SETTLE_S=3  (one fault of each kind, ~2-3 min)
#
# Env: USERS, FAULTS, SETTLE_S, THINK_MS, ENGINE_EVERY; the report goes to
# $PRUTOR_VAR/chaos/report-<time>.json (and the table to stdout). Restarts this
# checkout's own components only (its supervisord); leaves them healthy.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
eval "$("$ROOT/bin/prutor" env)"
quick=0
[ "${1:-}" = --quick ] && quick=1
if [ $quick = 1 ]; then : "${USERS:=20}" "${SETTLE_S:=3}"; else : "${USERS:=300}" "${SETTLE_S:=10}"; fi
export USERS SETTLE_S
export BASE_URL=${BASE_URL:-http://127.0.0.1:$HAPROXY_PORT}
mkdir -p "$PRUTOR_VAR/chaos"
export USERS_CSV=$PRUTOR_VAR/chaos/users.csv
export REPORT=$PRUTOR_VAR/chaos/report-$(date -u +%Y%m%dT%H%M%SZ).json

# The chaos students and their exam (replacing an earlier run's); removed at the end.
LOAD_PREFIX=chaos LOAD_SECTION=CHAOS LOAD_CSV=$USERS_CSV HOURS=2 bash "$ROOT/jmeter-plans/load-data.sh" >/dev/null
cleanup() { LOAD_PREFIX=chaos LOAD_SECTION=CHAOS bash "$ROOT/jmeter-plans/load-data.sh" --remove >/dev/null 2>&1 || true; }
trap cleanup EXIT
rc=0
node "$ROOT/tests/chaos/chaos.js" || rc=$?
echo "report: $REPORT"
exit $rc
