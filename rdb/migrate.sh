#!/usr/bin/env bash
# Forward-only migration runner for MariaDB.
#
#   rdb/migrate.sh            apply the migrations not yet applied, in order
#   rdb/migrate.sh --seed     the same, then the seed files not yet applied
#   rdb/migrate.sh --status   list what is applied and what is pending
#
# Each file of rdb/migrations/*.sql (then rdb/seed/*.sql) is applied once, in
# name order, through the `mariadb` client (the files use DELIMITER), in one
# session that ends by recording the file in `schema_migrations`: a file that
# fails leaves no record, and the runner stops there. A new file that sorts
# before one already applied is refused (rename it to come last), and an applied
# file whose content changed is reported: migrations are never edited once shipped.
#
# Connection: DB_HOST, DB_PORT, DB_NAME, DB_USER, DB_PASSWORD (CONTRACTS.md), or
# DB_DEFAULTS_FILE, a client option file (e.g. root over the socket) with DB_NAME.
# MIGRATIONS_DIR and SEED_DIR override the folders (the tests use that);
# MIGRATE_SEED=1 means --seed; MIGRATE_CONNECT_TIMEOUT (60 s) is how long an
# unreachable server is waited for.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${DB_HOST:=127.0.0.1}" "${DB_PORT:=3307}" "${DB_NAME:=prutor}" "${DB_USER:=prutor}" "${DB_PASSWORD:=prutor-local}"
: "${MIGRATIONS_DIR:=$HERE/migrations}" "${SEED_DIR:=$HERE/seed}"
: "${MIGRATE_LOCK_TIMEOUT:=300}" "${MIGRATE_CONNECT_TIMEOUT:=60}"

mode=migrate
case ${1:-} in
  "") ;;
  --seed) mode=seed ;;
  --status) mode=status ;;
  -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [--seed|--status]" >&2; exit 2 ;;
esac
# MIGRATE_SEED=1 is --seed for runners that pass no arguments (the compose job).
[ "$mode" = migrate ] && [ "${MIGRATE_SEED:-0}" = 1 ] && mode=seed
[[ $DB_NAME =~ ^[A-Za-z0-9_]+$ ]] || { echo "migrate: bad DB_NAME '$DB_NAME'" >&2; exit 2; }

log() { echo "migrate[$DB_NAME]: $*"; }
die() { echo "migrate[$DB_NAME]: ERROR: $*" >&2; exit 1; }

workdir=$(mktemp -d)
cleanup() {
  # closing the lock session's stdin ends it, which releases the lock
  if [ -n "${lock_in:-}" ]; then exec {lock_in}>&- || true; wait "${LOCKER_PID:-}" 2>/dev/null || true; fi
  rm -rf "$workdir"
}
trap cleanup EXIT

# The password goes through an option file, never the command line (ps shows it).
if [ -n "${DB_DEFAULTS_FILE:-}" ]; then
  cnf=$DB_DEFAULTS_FILE
else
  cnf=$workdir/client.cnf
fi
write_cnf() { # write_cnf HOST: the client's option file for DB_HOST's address
  local pw=${DB_PASSWORD//\\/\\\\}; pw=${pw//\"/\\\"}
  ( umask 077; printf '[client]\nhost=%s\nport=%s\nuser=%s\npassword="%s"\n' "$1" "$DB_PORT" "$DB_USER" "$pw" >"$cnf" )
}
sql() { mariadb --defaults-extra-file="$cnf" --database="$DB_NAME" --batch --skip-column-names "$@"; }

# A job started as soon as the server is healthy may still not reach it: a listener not
# up yet, or a name that does not resolve for a moment. Podman's DNS (aardvark-dns before
# 1.11) drops queries while it reloads, which it does each time a container joins or
# leaves the network, i.e. while `up` starts the other containers next to this job. CI
# saw "Unknown server host 'mariadb' (-3)" once right after MariaDB's health check passed
# and once after six of eleven files had been applied. So the name is looked up here,
# until it resolves and the server answers (MIGRATE_CONNECT_TIMEOUT seconds at most),
# and every later connection goes to that address; any other error (a wrong password, no
# such database) stops at once. "localhost" stays a name: to the client it is the socket.
reach() { # prints why the server cannot be reached yet, if it cannot
  if [ -z "${DB_DEFAULTS_FILE:-}" ]; then
    local addr=$DB_HOST
    if [ "$DB_HOST" != localhost ]; then
      addr=$(getent ahosts "$DB_HOST" | awk '{ print $1; exit }') || true
      [ -n "$addr" ] || { echo "ERROR 2005: '$DB_HOST' does not resolve"; return 1; }
    fi
    write_cnf "$addr"
  fi
  sql --connect-timeout=5 -e "SELECT 1" 2>&1 >/dev/null
}
deadline=$((SECONDS + MIGRATE_CONNECT_TIMEOUT))
until err=$(reach); do
  case $err in
    *"ERROR 2002"* | *"ERROR 2003"* | *"ERROR 2005"* | *"ERROR 2013"*) ;;
    *) die "cannot connect to $DB_HOST:$DB_PORT: $err" ;;
  esac
  [ "$SECONDS" -lt "$deadline" ] || die "no database server after ${MIGRATE_CONNECT_TIMEOUT} s: $err"
  sleep 1
done

sql -e "CREATE TABLE IF NOT EXISTS schema_migrations (
  kind        ENUM('migration','seed') NOT NULL,
  name        VARCHAR(190) NOT NULL,
  checksum    CHAR(64)     NOT NULL,
  applied_at  DATETIME(3)  NOT NULL DEFAULT UTC_TIMESTAMP(3),
  duration_ms INT UNSIGNED NOT NULL DEFAULT 0,
  PRIMARY KEY (kind, name)
) ENGINE=InnoDB" || die "cannot reach database $DB_NAME"

# One runner at a time per database: a named lock held by a session that lives
# as long as this script (two `make up`s, or two migrate jobs, cannot interleave).
if [ "$mode" != status ]; then
  coproc LOCKER { mariadb --defaults-extra-file="$cnf" --batch --skip-column-names --unbuffered 2>&1; }
  LOCKER_PID=$LOCKER_PID
  lock_in=${LOCKER[1]} lock_out=${LOCKER[0]}
  echo "SELECT GET_LOCK('prutor_migrate.$DB_NAME', $MIGRATE_LOCK_TIMEOUT);" >&"$lock_in"
  read -r -t $((MIGRATE_LOCK_TIMEOUT + 10)) got <&"$lock_out" || got=
  [ "$got" = 1 ] || die "could not take the migration lock (another runner busy?): ${got:-timeout}"
fi

declare -A applied_sum=()
last_applied_migration= last_applied_seed=
while IFS=$'\t' read -r kind name sum; do
  [ -n "$kind" ] || continue
  applied_sum["$kind/$name"]=$sum
  if [ "$kind" = migration ]; then last_applied_migration=$name; else last_applied_seed=$name; fi
done < <(sql -e "SELECT kind, name, checksum FROM schema_migrations ORDER BY kind, name COLLATE utf8mb4_bin")

files_of() { [ -d "$1" ] && find "$1" -maxdepth 1 -type f -name '*.sql' -printf '%f\n' | LC_ALL=C sort || true; }

pending_count=0
check_kind() { # check_kind KIND DIR LAST_APPLIED -> prints pending names
  local kind=$1 dir=$2 last=$3 f sum
  declare -A present=()
  for f in $(files_of "$dir"); do
    present[$f]=1
    sum=$(sha256sum "$dir/$f" | cut -c1-64)
    if [ -n "${applied_sum["$kind/$f"]+x}" ]; then
      [ "${applied_sum["$kind/$f"]}" = "$sum" ] ||
        echo "migrate[$DB_NAME]: WARNING: $kind $f changed after it was applied; add a new file instead" >&2
    else
      if [ -n "$last" ] && [[ "$f" < "$last" ]]; then
        die "$kind $f sorts before $last, which is already applied; rename it to come after (forward-only)"
      fi
      echo "$f"
    fi
  done
  local key
  for key in "${!applied_sum[@]}"; do
    [ "${key%%/*}" = "$kind" ] || continue
    [ -n "${present[${key#*/}]+x}" ] || echo "migrate[$DB_NAME]: WARNING: applied $kind ${key#*/} has no file any more" >&2
  done
}

apply() { # apply KIND DIR FILE
  local kind=$1 dir=$2 f=$3 sum t0
  sum=$(sha256sum "$dir/$f" | cut -c1-64)
  t0=$(date +%s%3N)
  # cd: a migration may `source views/x.sql` relative to rdb/.
  if ! ( cd "$dir/.." && {
           printf "SET time_zone = '+00:00';\n"
           cat "$dir/$f"
           printf "\nDELIMITER ;\nINSERT INTO schema_migrations (kind, name, checksum, duration_ms) VALUES ('%s', '%s', '%s', %d);\n" \
             "$kind" "$f" "$sum" 0
         } | sql ); then
    die "$kind $f failed; nothing recorded for it. Fix the cause, then rerun (statements before the failure may have run: DDL is not transactional)."
  fi
  sql -e "UPDATE schema_migrations SET duration_ms = $(( $(date +%s%3N) - t0 )) WHERE kind = '$kind' AND name = '$f'"
  log "applied $kind $f ($(( $(date +%s%3N) - t0 )) ms)"
}

check_kind migration "$MIGRATIONS_DIR" "$last_applied_migration" >"$workdir/pending_m"
mapfile -t pending_m <"$workdir/pending_m"
pending_s=()
if [ "$mode" != migrate ]; then
  check_kind seed "$SEED_DIR" "$last_applied_seed" >"$workdir/pending_s"
  mapfile -t pending_s <"$workdir/pending_s"
fi

if [ "$mode" = status ]; then
  sql -e "SELECT kind, name, applied_at, duration_ms FROM schema_migrations ORDER BY kind, name" |
    awk -F'\t' '{printf "applied  %-9s %-40s %s (%s ms)\n", $1, $2, $3, $4}'
  for f in "${pending_m[@]}"; do [ -n "$f" ] && printf 'pending  %-9s %s\n' migration "$f"; done
  for f in "${pending_s[@]}"; do [ -n "$f" ] && printf 'pending  %-9s %s\n' seed "$f"; done
  exit 0
fi

for f in "${pending_m[@]}"; do [ -n "$f" ] && { apply migration "$MIGRATIONS_DIR" "$f"; pending_count=$((pending_count + 1)); }; done
if [ "$mode" = seed ]; then
  for f in "${pending_s[@]}"; do [ -n "$f" ] && { apply seed "$SEED_DIR" "$f"; pending_count=$((pending_count + 1)); }; done
fi
[ $pending_count -gt 0 ] || log "up to date"
