#!/usr/bin/env bash
# Creates the database and the application user, and (re)sets the user's
# password from DB_PASSWORD. Idempotent; runs on every `make up` with an admin
# connection (root over the unix socket). In a container, rdb/run.sh gives the same
# statements to the server as its init file at every start (DB_BOOTSTRAP_ON_START=1).
#   rdb/bootstrap.sh --defaults-file ADMIN.cnf     apply them
#   rdb/bootstrap.sh --sql                         print them
# DB_CLIENT_HOSTS: the hosts the app user may connect from (default "127.0.0.1 localhost";
# the compose file's "%": any container of the internal data network).
set -euo pipefail
case "${1:-}" in
  --defaults-file) [ -n "${2:-}" ] || { echo "usage: $0 --defaults-file ADMIN.cnf | --sql" >&2; exit 2; }; admin_cnf=$2 ;;
  --sql) admin_cnf= ;;
  *) echo "usage: $0 --defaults-file ADMIN.cnf | --sql" >&2; exit 2 ;;
esac
: "${DB_NAME:=prutor}" "${DB_USER:=prutor}" "${DB_PASSWORD:=prutor-local}" "${DB_CLIENT_HOSTS:=127.0.0.1 localhost}"

sql_str() { local s=${1//\\/\\\\}; s=${s//\'/\\\'}; printf "'%s'" "$s"; }
sql_id() { [[ $1 =~ ^[A-Za-z0-9_]+$ ]] || { echo "bad identifier: $1" >&2; exit 2; }; printf '`%s`' "$1"; }

db=$(sql_id "$DB_NAME"); user=$(sql_str "$DB_USER"); pw=$(sql_str "$DB_PASSWORD")
statements() {
  local h host
  echo "CREATE DATABASE IF NOT EXISTS $db CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;"
  # skip-name-resolve: TCP clients match '127.0.0.1', socket clients 'localhost'.
  for h in $DB_CLIENT_HOSTS; do
    host=$(sql_str "$h")
    echo "CREATE USER IF NOT EXISTS $user@$host IDENTIFIED BY $pw;"
    echo "ALTER USER $user@$host IDENTIFIED BY $pw;"
    echo "GRANT ALL PRIVILEGES ON $db.* TO $user@$host;"
  done
}
if [ -z "$admin_cnf" ]; then statements; exit 0; fi
statements | mariadb --defaults-extra-file="$admin_cnf" --batch
echo "rdb/bootstrap.sh: database $DB_NAME and user $DB_USER ready"
