#!/usr/bin/env bash
# `make test`: brings the stack up (or reuses a running one), then runs every
# suite in order and closes with one line "N passed, M failed, K skipped"
# (suites, not cases). Exits non-zero if any suite failed.
#
#   1. stack up           bin/prutor up
#   2. static checks      docker compose config, hadolint, haproxy -c, apache2 -t,
#                         docker stack config (deploy/swarm), helm lint + template (deploy/helm),
#                         the webapp's dependency rules (dependency-cruiser)
#   3. haproxy behaviour  tests/haproxy.sh (routing, admission control, errors, logs)
#      overload           tests/overload.sh (a busy webapp stays UP; fast 503s with Retry-After)
#   4. rdb                rdb/test.sh (migration runner, materialized views)
#   5. folders            <folder>/test.sh for engine sandbox webapp jmeter-plans tuning nosql memcached
#      cgroup2-guest      tests/guest/test.sh (the sandbox suite and the engine's hostile and
#                         integrity tests in a cgroup v2-only QEMU guest, their verdicts
#                         compared with this host's, case by case)
#      monitoring         monitoring/test.sh (a real Prometheus against the stack: targets, rules,
#                         an alert while the slots are held, the dashboard's queries); skipped
#                         without prometheus, which CI installs (monitoring/install.sh, ~10 s)
#   6. smoke              tests/smoke.sh (the thin slice through HAProxy)
#   7. containers         containers/test.sh (`make containers-test`: the compose stack
#                         built and run with Podman, the suites again against it)
#   8. backup             backup/test.sh (retention, encryption; the restore drill: saves
#                         under load, a full mid-run, the data directory deleted, restored
#                         to the last second, to a point in time, and without one mistaken
#                         delete; a standby and make failover; an exam archive round trip)
#   9. chaos              tests/chaos/run.sh --quick (20 students, one fault of each kind;
#                         last: it restarts components)
#
# Each suite's output is shown and kept in var/log/test-<suite>.log. A suite that
# runs longer than SUITE_TIMEOUT seconds (default 1200) fails.
# TEST_ONLY="rdb smoke" runs only the named suites (after bringing the stack up).
# With CI=true the stack is stopped at the end (PRUTOR_KEEP_UP=1 keeps it).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export PRUTOR_VAR=${PRUTOR_VAR:-$ROOT/var}
mkdir -p "$PRUTOR_VAR/log"
SUITE_TIMEOUT=${SUITE_TIMEOUT:-1200}
FOLDERS=(engine sandbox webapp jmeter-plans tuning nosql memcached)

if [ -t 1 ]; then B=$'\e[1m' R=$'\e[31m' G=$'\e[32m' Y=$'\e[33m' N=$'\e[0m'; else B= R= G= Y= N=; fi
passed=0 failed=0 skipped=0
results=() failed_logs=()
t_all=$SECONDS

wanted() { [ -z "${TEST_ONLY:-}" ] || [[ " $TEST_ONLY " == *" $1 "* ]]; }

# Suites share one stack and all log in from 127.0.0.1, so the webapp's failed-login
# counters (per account and per address) of one suite would lock out the next:
# each suite starts with an empty memcached (sessions included).
flush_memcached() {
  [ "$1" = up ] && return 0
  local port host
  host=$(bin/prutor env | sed -n "s/^export MEMCACHED_HOST=//p"); port=$(bin/prutor env | sed -n "s/^export MEMCACHED_PORT=//p")
  { exec 3<>"/dev/tcp/${host:-127.0.0.1}/${port:-11211}" && printf 'flush_all\r\n' >&3 && timeout 2 head -n1 <&3 >/dev/null; exec 3<&- 3>&-; } 2>/dev/null || true
}

suite() { # suite NAME COMMAND...
  local name=$1; shift
  [ "$name" = up ] || wanted "$name" || return 0
  flush_memcached "$name"
  local log="$PRUTOR_VAR/log/test-$name.log" t=$SECONDS rc
  printf '\n%s======== %s%s\n' "$B" "$name" "$N"
  timeout --foreground -k 10 "$SUITE_TIMEOUT" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1)); results+=("${G}PASS${N}  $name ($((SECONDS - t))s)")
  else
    [ "$rc" -eq 124 ] && echo "suite $name timed out after ${SUITE_TIMEOUT}s" | tee -a "$log"
    failed=$((failed + 1)); results+=("${R}FAIL${N}  $name ($((SECONDS - t))s, exit $rc, log $log)")
    failed_logs+=("$name:$log")
  fi
}
skip() { wanted "$1" || return 0; skipped=$((skipped + 1)); results+=("${Y}SKIP${N}  $1 ($2)"); printf '\n%s======== %s%s: SKIP (%s)\n' "$B" "$1" "$N" "$2"; }

suite up bin/prutor up
suite static-compose bash tests/static.sh compose
suite static-hadolint bash tests/static.sh hadolint
suite static-haproxy bash tests/static.sh haproxy
suite static-swarm bash tests/static.sh swarm
suite static-helm bash tests/static.sh helm
suite static-monitoring bash tests/static.sh monitoring
suite static-deps bash tests/static.sh deps
if [ -x engine/render-config.sh ]; then
  suite static-apache bash tests/static.sh apache
else
  skip static-apache "engine/render-config.sh missing"
fi
suite haproxy bash tests/haproxy.sh
suite overload bash tests/overload.sh
suite rdb bash rdb/test.sh
for d in "${FOLDERS[@]}"; do
  if [ -f "$d/test.sh" ]; then
    # Each folder's tests see the same environment as its service.
    suite "$d" bash -c 'eval "$(bin/prutor env)" && exec bash "$0/test.sh"' "$d"
  else
    skip "$d" "$d/test.sh missing"
  fi
done
if command -v prometheus >/dev/null || [ "${CI:-}" = true ]; then
  suite monitoring bash -c 'command -v prometheus >/dev/null || bash monitoring/install.sh; eval "$(bin/prutor env)" && exec bash monitoring/test.sh'
else
  skip monitoring "prometheus not installed: monitoring/install.sh"
fi
# The sandbox suite again on a cgroup v2-only host (a QEMU guest), verdicts compared with this host's.
SUITE_TIMEOUT=900 suite cgroup2-guest bash tests/guest/test.sh
suite smoke bash tests/smoke.sh
# Builds every image and runs the compose stack beside the native one (its own ports).
SUITE_TIMEOUT=${CONTAINERS_TEST_TIMEOUT:-1800} suite containers bash containers/test.sh
# Destroys this stack's database and restores it (leaves it healthy): after the suites
# that need their own data, before chaos.
suite backup bash -c 'eval "$(bin/prutor env)" && exec bash backup/test.sh'
suite chaos bash tests/chaos/run.sh --quick

if [ "${CI:-}" = true ] && [ "${PRUTOR_KEEP_UP:-}" != 1 ]; then
  printf '\n'; bin/prutor down || true
fi

# Why each failed suite failed, in a few lines, printed last: a CI log is often read
# only by its tail, and there the summary alone says which suite but not why.
failure_digest() { # failure_digest LOG
  local log=$1
  if grep -qE '^There (was|were) [0-9]+ (failure|error)' "$log"; then        # PHPUnit
    sed -n '/^There \(was\|were\) [0-9]* \(failure\|error\)/,$p' "$log" | grep -v '^\s*$' | head -14
  elif grep -q '^✖ failing tests:' "$log"; then                                # node --test, spec reporter
    sed -n '/^✖ failing tests:/,$p' "$log" | grep -v '^\s*$' | head -14
  else
    grep -E 'FAIL|✖|not ok|[Ee]rror' "$log" | tail -8
    tail -n 3 "$log"
  fi | cut -c1-220 | sed 's/^/    /'
}

printf '\n%s======== summary (%ss)%s\n' "$B" "$((SECONDS - t_all))" "$N"
printf '  %s\n' "${results[@]}"
for entry in "${failed_logs[@]}"; do
  printf '%s-------- why %s failed%s\n' "$B" "${entry%%:*}" "$N"
  failure_digest "${entry#*:}"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
