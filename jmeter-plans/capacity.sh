#!/usr/bin/env bash
# Capacity search at the thesis' arrival rate: runs bench.sh with more and more users
# until the login error % or the 99% line of all requests crosses its threshold (or the
# error % of all requests does, or a save is lost: a login that succeeds but whose
# session is lost later is a failure too), then narrows down between the last passing
# and the first failing load, and prints the largest passing load with its table.
#
# The arrival rate is the thesis' table 3.19 by default: 3,000 users logged in over
# about 141 s (21.3 logins/s, RAMP_PER_USER=0.047 s per user) and five iterations of
# the workload with a 2 s think time (498 requests/s there). A gentler ramp
# (e.g. RAMP_PER_USER=0.1 and ITERATIONS=1: ~104 requests/s) is not comparable.
#
#   PLAN=webapp ./capacity.sh                  (what `make capacity` runs)
#
# Env (defaults): PLAN (webapp), START users (webapp 3000: the thesis' load first,
# engine 10, combined 50), FACTOR growth per step (webapp 1.25, else 2), MAX users
# (webapp 5000, engine 1000, combined 2000), REFINE bisection steps after the first
# failure (2), RAMP_PER_USER seconds of ramp-up per user (0.047), MAX_LOGIN_ERR %
# (1.0), MAX_ERR % of all requests (1.0), MAX_P99 ms (webapp 10000, engine/combined
# 30000), ITERATIONS (5), THINK (2000), COOLDOWN seconds between steps (10), then
# until the host is at most QUIET_BUSY_PCT % busy (20) for at most QUIET_WAIT s (600),
# plus whatever bench.sh reads (HOST, PORT, ENGINE_SHARE, JMETER_HEAP...).
# Output: $RESULTS_DIR/capacity-<plan>-<time>/ with one bench run per step and
# capacity.json. Exit: 0 when some load passed, 1 when even START failed, 2 setup.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

PLAN=${PLAN:-webapp}
case "$PLAN" in
  webapp)   d_start=3000; d_max=5000; d_factor=1.25; d_p99=10000 ;;
  engine)   d_start=10;   d_max=1000; d_factor=2;    d_p99=30000 ;;
  combined) d_start=50;   d_max=2000; d_factor=2;    d_p99=30000 ;;
  *) die "PLAN must be webapp, engine or combined" ;;
esac
START=${START:-$d_start}
MAX=${MAX:-$d_max}
FACTOR=${FACTOR:-$d_factor}
REFINE=${REFINE:-2}
# the thesis' table 3.19: 3,000 logins in ~141 s
THESIS_RAMP_PER_USER=0.047
RAMP_PER_USER=${RAMP_PER_USER:-$THESIS_RAMP_PER_USER}
MAX_LOGIN_ERR=${MAX_LOGIN_ERR:-1.0}
MAX_ERR=${MAX_ERR:-1.0}
MAX_P99=${MAX_P99:-$d_p99}
COOLDOWN=${COOLDOWN:-10}
QUIET_BUSY_PCT=${QUIET_BUSY_PCT:-20}
QUIET_WAIT=${QUIET_WAIT:-600}
# checked now, not after the first step's minutes of load
for v in QUIET_BUSY_PCT QUIET_WAIT; do
  [[ ${!v} =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "error: $v must be a number (got '${!v}')" >&2; exit 2; }
done
export ITERATIONS=${ITERATIONS:-5} THINK=${THINK:-2000} PLAN

HOST=${HOST:-127.0.0.1}; PORT=${PORT:-${HAPROXY_PORT:-8080}}
curl -sf -m 5 -o /dev/null "http://$HOST:$PORT/healthz" \
  || { echo "error: http://$HOST:$PORT/healthz does not answer 200: start the stack first (make up)" >&2; exit 2; }

dir_name=capacity-$PLAN-$(date -u +%Y%m%d-%H%M%S)
cap="$RESULTS_ROOT/$dir_name"
mkdir -p "$cap"
echo "capacity search for $PLAN: from $START users x$FACTOR up to $MAX, then $REFINE refinements;" \
     "pass = login error % <= $MAX_LOGIN_ERR, 99% line <= $MAX_P99 ms, all errors <= $MAX_ERR %, no save lost"
rate=$(python3 -c "print('%.1f' % (1 / $RAMP_PER_USER))")
if [ "$RAMP_PER_USER" = "$THESIS_RAMP_PER_USER" ] && [ "$ITERATIONS" = 5 ] && [ "$THINK" = 2000 ]; then
  echo "arrival rate: the thesis' (table 3.19): $rate logins/s (ramp-up ${RAMP_PER_USER}s per user), $ITERATIONS iterations, think ${THINK}ms"
else
  echo "arrival rate: $rate logins/s (ramp-up ${RAMP_PER_USER}s per user), $ITERATIONS iterations, think ${THINK}ms;" \
       "NOT the thesis' (0.047 s per user, 5 iterations, 2000 ms): not comparable with its table 3.19"
fi

# load users for the largest step once (each bench run then reuses them)
USERS=$MAX "$PLANS_DIR/load-data.sh" >/dev/null || exit 2

steps_file="$cap/steps.tsv"
: > "$steps_file"

# Each step starts on a quiet host: after a step the automatic grader still evaluates its
# thousands of submissions (it yields while the host is saturated), and a step started
# then measured the grader's backlog too (0.3 of a core in the refinement steps of a run).
# Waits until the machine is at most QUIET_BUSY_PCT % busy over 5 s, at most QUIET_WAIT s.
wait_quiet() {
  python3 - "$QUIET_BUSY_PCT" "$QUIET_WAIT" "$PLANS_DIR/bench" <<'PY'
import sys, time
limit, wait_s = float(sys.argv[1]), float(sys.argv[2])
sys.path.insert(0, sys.argv[3])
from cpu_sampler import machine   # (busy ticks, all ticks) of the whole host, as each step reports
t0 = time.time()
while True:
    b0, a0 = machine(); time.sleep(5); b1, a1 = machine()
    busy = 100.0 * (b1 - b0) / max(1, a1 - a0)
    if busy <= limit:
        print("host quiet (%.0f%% busy) after %.0f s" % (busy, time.time() - t0)); break
    if time.time() - t0 >= wait_s:
        print("host still %.0f%% busy after %.0f s: the next step starts anyway" % (busy, time.time() - t0)); break
PY
}

# run_step USERS -> 0 pass, 1 fail
run_step() {
  local u=$1 ramp rc=0
  ramp=$(python3 -c "import math,sys; print(max(1, math.ceil($u * $RAMP_PER_USER)))")
  echo
  echo "=== step: $u users, ramp-up ${ramp}s ==="
  USERS=$u RAMPUP=$ramp LOAD_AUTO=0 RESULTS_DIR="$cap" RUN_NAME="$PLAN-${u}u" \
    "$PLANS_DIR/bench.sh" > "$cap/$PLAN-${u}u.out" 2>&1 || rc=$?
  sed -n '/^plan=/,/^dashboard:/p' "$cap/$PLAN-${u}u.out" | grep -v '^dashboard:' || tail -5 "$cap/$PLAN-${u}u.out"
  local verdict
  verdict=$(python3 - "$cap/$PLAN-${u}u/summary.json" "$rc" <<EOF
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("fail\t-\t-\t-\t-\t-\t-\t-\tno summary (bench exit %s)" % sys.argv[2]); sys.exit()
t = s.get("total") or {}
le = s.get("login_error_pct")
le = 100.0 if le is None else le
p99 = t.get("p99_ms", 10**9)
lost = not s.get("nothing_lost", {}).get("ok", False)
why = []
if le > $MAX_LOGIN_ERR: why.append("login errors %.2f%% > $MAX_LOGIN_ERR%%" % le)
if p99 > $MAX_P99: why.append("99%% line %d ms > $MAX_P99" % p99)
if t.get("error_pct", 100) > $MAX_ERR: why.append("errors %.2f%% > $MAX_ERR%%" % t.get("error_pct", 100))
if lost: why.append("saves lost or unacknowledged")
print("\t".join(["fail" if why else "pass", "%.3f" % le, "%.3f" % t.get("error_pct", 100), str(p99),
                 "%.0f" % t.get("average_ms", 0), "%.1f" % t.get("throughput_per_s", 0),
                 # how quiet the host was (other stacks share it): other processes' cores, max 1-min load
                 "%.2f" % s.get("cpu", {}).get("others", {}).get("avg_cores", -1),
                 "%.1f" % s.get("cpu", {}).get("loadavg_1m", {}).get("max", -1),
                 "; ".join(why) or "ok"]))
EOF
)
  printf '%s\t%s\n' "$u" "$verdict" >> "$steps_file"
  echo "=> $u users: $(echo "$verdict" | cut -f1,9)"
  sleep "$COOLDOWN"
  wait_quiet
  [ "$(echo "$verdict" | cut -f1)" = pass ]
}

best=0; worst=0; u=$START
while :; do
  if run_step "$u"; then
    best=$u
    [ "$u" -ge "$MAX" ] && break
    u=$(python3 -c "print(min($MAX, max($u + 1, int($u * $FACTOR))))")
  else
    worst=$u; break
  fi
done
if [ "$best" -gt 0 ] && [ "$worst" -gt 0 ]; then
  for _ in $(seq "$REFINE"); do
    mid=$(( (best + worst) / 2 ))
    [ "$mid" -le "$best" ] && break
    if run_step "$mid"; then best=$mid; else worst=$mid; fi
  done
fi

echo
echo "=== capacity of $PLAN on this machine ($(nproc) cores) ==="
printf '%-7s %-5s %9s %9s %9s %9s %11s %7s %5s  %s\n' users pass "login err" "err %" "99% line" average throughput others load reason
sort -n "$steps_file" | while IFS=$'\t' read -r u v le te p99 avg thr oth la why; do
  printf '%-7s %-5s %8s%% %8s%% %9s %9s %9s/s %7s %5s  %s\n' "$u" "$v" "$le" "$te" "$p99" "$avg" "$thr" "$oth" "$la" "$why"
done
echo "(others: average cores used by other processes on the host during the step; load: highest 1-minute load average)"
python3 - "$steps_file" "$cap/capacity.json" "$PLAN" "$best" <<EOF
import json, sys
steps = []
for line in open(sys.argv[1]):
    u, v, le, te, p99, avg, thr, oth, la, why = line.rstrip("\n").split("\t")
    steps.append({"users": int(u), "pass": v == "pass", "login_error_pct": le, "error_pct": te,
                  "p99_ms": p99, "average_ms": avg, "throughput_per_s": thr,
                  "other_processes_cores": oth, "max_loadavg_1m": la, "reason": why})
json.dump({"plan": sys.argv[3], "largest_passing_users": int(sys.argv[4]),
           "thresholds": {"max_login_error_pct": $MAX_LOGIN_ERR, "max_p99_ms": $MAX_P99, "max_error_pct": $MAX_ERR},
           "iterations": $ITERATIONS, "think_ms": $THINK, "ramp_per_user_s": $RAMP_PER_USER,
           "steps": sorted(steps, key=lambda s: s["users"])}, open(sys.argv[2], "w"), indent=1)
EOF
echo
if [ "$best" -gt 0 ]; then
  echo "largest passing load: $best users ($PLAN)"
  sed -n '/^plan=/,/^nothing lost/p' "$cap/$PLAN-${best}u.out"
  echo "results: $cap"
  exit 0
fi
echo "no passing load: even $START users crossed a threshold (see $cap)"
exit 1
