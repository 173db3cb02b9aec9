#!/bin/bash
# The engine's hostile and integrity tests on the cgroup v2 guest (guest.sh runs this inside
# the guest; README.md beside it). Only what those tests need runs, each started by the
# project's own run script with small settings for a 2-CPU, 2 GB guest: MariaDB (rdb/run.sh,
# the schema by rdb/migrate.sh, no seed), memcached (memcached/run.sh) and the engine's Apache
# (engine/run.sh, which registers its slots with setup-box.sh); no webapp, HAProxy or
# FerretDB: the tests go straight to the engine (ENGINE_TEST_URL), through engine/test.sh.
#   engine.sh db OUT     MariaDB up and migrated (guest.sh runs it while sandbox/install.sh builds)
#   engine.sh test OUT   memcached and the engine up, then PHPUnit on the hostile and integrity tests
# Summary lines go to stdout (the serial console), the rest to files in OUT:
# engine-setup.log (migrations, waits), engine-{mariadb,memcached,apache}.log (the services),
# engine-health.json (/healthz), engine-guest.log (PHPUnit), engine.rc (its exit status).
# OUT/engine.conf (written by test.sh) may set GUEST_ENGINE_FILTER and GUEST_ENGINE_TEST_TIMEOUT.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
phase=${1:?db or test} out=${2:?output folder}
GUEST_ENGINE_FILTER='/^(?!.*::testAFreshExecuteIsOneLaunch)(?=.*(testHostileProgramIsContained|IntegrityTest))/'
GUEST_ENGINE_TEST_TIMEOUT=420
# shellcheck disable=SC1091
[ -f "$out/engine.conf" ] && . "$out/engine.conf"
say() { echo "guest: engine: $*"; }
log=$out/engine-setup.log

# (PID 1's children get no PATH from the kernel)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# a var folder of the guest's own (a tmpfs), and its secrets as bin/prutor keeps them
export PRUTOR_VAR=/run/prutor-var
mkdir -p "$PRUTOR_VAR" && chmod 0711 "$PRUTOR_VAR"
hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
[ -f "$PRUTOR_VAR/prutor.env" ] ||
  ( umask 077; printf 'SESSION_SECRET=%s\nDB_PASSWORD=%s\n' "$(hex 32)" "$(hex 16)" > "$PRUTOR_VAR/prutor.env" )
set -a
# shellcheck disable=SC1091
. "$PRUTOR_VAR/prutor.env"
set +a
export DB_HOST=127.0.0.1 DB_PORT=3307 DB_BIND=127.0.0.1 DB_NAME=prutor DB_USER=prutor
export DB_SOCKET=$PRUTOR_VAR/run/mariadb.sock DB_BUFFER_POOL_SIZE=32M DB_LOG_FILE_SIZE=16M
export DB_MAX_CONNECTIONS=100 DB_FLUSH_LOG_AT_TRX_COMMIT=2
export MEMCACHED_HOST=127.0.0.1 MEMCACHED_PORT=11211 MEMCACHED_MEMORY_MB=32 MEMCACHED_THREADS=2
export ENGINE_PORT=8081 ENGINE_URL=http://127.0.0.1:8081 ENGINE_TEST_URL=http://127.0.0.1:8081
export ENGINE_SLOTS=2 SANDBOX_SLOT_BASE=0 ENGINE_MAX_WORKERS=8
start() { # start NAME SCRIPT: a service in the background (its own session), its output in OUT/engine-NAME.log
  setsid "$2" > "$out/engine-$1.log" 2>&1 < /dev/null &
}

case $phase in
db)
  t=$SECONDS
  ip link set lo up
  # what udev or systemd make on a real host: bash's <(...) (rdb/migrate.sh) needs /dev/fd
  for fd in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 stderr:/proc/self/fd/2; do
    [ -e "/dev/${fd%%:*}" ] || ln -s "${fd#*:}" "/dev/${fd%%:*}"
  done
  # as `make up` does (bin/prutor): rdb/run.sh (it initialises the data folder on its first
  # start), then root over the unix socket runs rdb/bootstrap.sh (database, user), then the
  # migrations as the app user
  start mariadb "$REPO/rdb/run.sh"
  mkdir -p "$PRUTOR_VAR/conf"
  printf '[client]\nuser=root\nsocket=%s\n' "$DB_SOCKET" > "$PRUTOR_VAR/conf/root.cnf"
  for _ in $(seq 300); do
    mariadb-admin --defaults-extra-file="$PRUTOR_VAR/conf/root.cnf" --connect-timeout=2 ping > /dev/null 2>&1 && break
    sleep 1
  done
  if ! bash "$REPO/rdb/bootstrap.sh" --defaults-file "$PRUTOR_VAR/conf/root.cnf" >> "$log" 2>&1 ||
     ! bash "$REPO/rdb/migrate.sh" >> "$log" 2>&1; then
    say "MariaDB, rdb/bootstrap.sh or rdb/migrate.sh failed:"; tail -5 "$log" | sed 's/^/guest:   /'; tail -5 "$out/engine-mariadb.log" | sed 's/^/guest:   /'
    exit 1
  fi
  say "MariaDB initialised and migrated ($(ls "$REPO"/rdb/migrations/*.sql | wc -l) files): $((SECONDS - t)) s"
  ;;
test)
  t=$SECONDS
  start memcached "$REPO/memcached/run.sh"
  start apache "$REPO/engine/run.sh"
  code=
  for _ in $(seq 240); do
    code=$(curl -s -o "$out/engine-health.json" -w '%{http_code}' --max-time 5 "$ENGINE_URL/healthz" 2>/dev/null)
    # (memcached is not fatal to /healthz, but the tests' sessions live there)
    [ "$code" = 200 ] && grep -q '"memcached":"ok"' "$out/engine-health.json" && break
    sleep 0.5
  done
  if [ "$code" != 200 ] || ! grep -q '"memcached":"ok"' "$out/engine-health.json"; then
    say "the engine did not come up (/healthz: ${code:-no answer}):"
    tail -5 "$out/engine-apache.log" "$PRUTOR_VAR/engine/logs/error.log" 2>/dev/null | sed 's/^/guest:   /'
    echo 1 > "$out/engine.rc"; exit 1
  fi
  say "memcached and the engine up: $((SECONDS - t)) s; /healthz: $(grep -o '"sandbox":{[^}]*}' "$out/engine-health.json")"
  t=$SECONDS
  timeout -k 5 "$GUEST_ENGINE_TEST_TIMEOUT" sh "$REPO/engine/test.sh" --filter "$GUEST_ENGINE_FILTER" > "$out/engine-guest.log" 2>&1
  rc=$?
  echo "$rc" > "$out/engine.rc"
  [ "$rc" = 124 ] && echo "engine/test.sh timed out after $GUEST_ENGINE_TEST_TIMEOUT s" >> "$out/engine-guest.log"
  say "engine/test.sh --filter '$GUEST_ENGINE_FILTER': $((SECONDS - t)) s, exit $rc, $(grep -E '^(OK|Tests:)' "$out/engine-guest.log" | tail -1)"
  cp "$PRUTOR_VAR/engine/logs/error.log" "$out/engine-apache-error.log" 2>/dev/null
  cp "$PRUTOR_VAR/engine/logs/php-error.log" "$out/engine-php-error.log" 2>/dev/null
  exit "$rc"
  ;;
*) echo "usage: $0 db|test OUT" >&2; exit 2 ;;
esac
