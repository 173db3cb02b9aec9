#!/usr/bin/env bash
# Runs MariaDB in the foreground (what supervisord runs). Renders my.cnf from the
# environment and creates the data directory on first start.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PRUTOR_VAR:=$(cd "$HERE/.." && pwd)/var}"
: "${DB_PORT:=3307}" "${DB_BIND:=127.0.0.1}" "${DB_SOCKET:=$PRUTOR_VAR/run/mariadb.sock}"
: "${DB_MAX_CONNECTIONS:=500}" "${DB_BUFFER_POOL_SIZE:=256M}" "${DB_LOG_FILE_SIZE:=128M}"
: "${DB_FLUSH_LOG_AT_TRX_COMMIT:=1}"
: "${DB_SERVER_ID:=1}" "${DB_SYNC_BINLOG:=1}" "${DB_BINLOG_EXPIRE_S:=604800}"
export PRUTOR_VAR DB_PORT DB_BIND DB_SOCKET DB_MAX_CONNECTIONS DB_BUFFER_POOL_SIZE DB_LOG_FILE_SIZE \
  DB_FLUSH_LOG_AT_TRX_COMMIT DB_SERVER_ID DB_SYNC_BINLOG DB_BINLOG_EXPIRE_S

data=$PRUTOR_VAR/mariadb/data
mkdir -p "$PRUTOR_VAR/conf" "$PRUTOR_VAR/run" "$PRUTOR_VAR/mariadb/tmp" "$PRUTOR_VAR/mariadb/binlog" "$(dirname "$DB_SOCKET")"

# mariadbd drops to the `mysql` user, which must be able to reach the data
# directory; a checkout under a private home (e.g. /root) is not reachable, and
# then the server runs as root (a development machine only; containers never do).
DB_OS_USER=mysql
if [ "$(id -u)" -ne 0 ]; then
  DB_OS_USER=$(id -un)
elif ! id mysql >/dev/null 2>&1 || ! setpriv --reuid=mysql --regid=mysql --clear-groups test -x "$PRUTOR_VAR"; then
  DB_OS_USER=root
  echo "rdb/run.sh: user mysql cannot reach $PRUTOR_VAR; running mariadbd as root" >&2
fi
export DB_OS_USER

tmp=$(mktemp "$PRUTOR_VAR/conf/my.cnf.XXXXXX")
envsubst '${DB_OS_USER} ${PRUTOR_VAR} ${DB_SOCKET} ${DB_PORT} ${DB_BIND} ${DB_MAX_CONNECTIONS} ${DB_BUFFER_POOL_SIZE} ${DB_LOG_FILE_SIZE} ${DB_FLUSH_LOG_AT_TRX_COMMIT} ${DB_SERVER_ID} ${DB_SYNC_BINLOG} ${DB_BINLOG_EXPIRE_S}' \
  <"$HERE/my.cnf.tmpl" >"$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$PRUTOR_VAR/conf/my.cnf"

if [ "$DB_OS_USER" != root ]; then
  chown "$DB_OS_USER": "$PRUTOR_VAR/mariadb" "$PRUTOR_VAR/mariadb/tmp" "$PRUTOR_VAR/mariadb/binlog" "$(dirname "$DB_SOCKET")"
fi
if [ ! -d "$data/mysql" ]; then
  echo "rdb/run.sh: initialising $data"
  rm -rf "$data" && mkdir -p "$data" && chown "$DB_OS_USER": "$data"
  # root authenticates by unix socket only (its uid), never by a password
  mariadb-install-db --defaults-file="$PRUTOR_VAR/conf/my.cnf" --user="$DB_OS_USER" \
    --auth-root-authentication-method=socket --skip-test-db >/dev/null
fi
# In a container nobody runs bootstrap.sh from outside: the server applies its
# statements (database, app user, password from DB_PASSWORD) at every start.
init=()
if [ "${DB_BOOTSTRAP_ON_START:-0}" = 1 ]; then
  ( umask 077; bash "$HERE/bootstrap.sh" --sql >"$PRUTOR_VAR/run/bootstrap.sql" )
  init=(--init-file="$PRUTOR_VAR/run/bootstrap.sql")
fi
# Semi-synchronous replication while a standby exists (backup/standby.sh writes the
# options; without a standby there is nothing to wait for).
semi=()
[ -f "$PRUTOR_VAR/mariadb/semi-sync.flags" ] && read -r -a semi <"$PRUTOR_VAR/mariadb/semi-sync.flags"
exec mariadbd --defaults-file="$PRUTOR_VAR/conf/my.cnf" "${init[@]}" "${semi[@]}"
