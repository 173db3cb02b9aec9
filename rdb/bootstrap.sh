#!/usr/bin/env bash
# Creates the database and the application user, and (re)sets the user's
# password from DB_PASSWORD. Idempotent; runs on every `make up` with an admin
# connection (root over the unix socket). Compose does the same through the
# mariadb image's MARIADB_DATABASE / MARIADB_USER variables.
#   rdb/bootstrap.sh --defaults-file ADMIN.cnf
set -euo pipefail
[ "${1:-}" = --defaults-file ] && [ -n "${2:-}" ] || { echo "usage: $0 --defaults-file ADMIN.cnf" >&2; exit 2; }
admin_cnf=$2
: "${DB_NAME:=prutor}" "${DB_USER:=prutor}" "${DB_PASSWORD:=prutor-local}"

sql_str() { local s=${1//\\/\\\\}; s=${s//\'/\\\'}; printf "'%s'" "$s"; }
sql_id() { [[ $1 =~ ^[A-Za-z0-9_]+$ ]] || { echo "bad identifier: $1" >&2; exit 2; }; printf '`%s`' "$1"; }

db=$(sql_id "$DB_NAME"); user=$(sql_str "$DB_USER"); pw=$(sql_str "$DB_PASSWORD")
# skip-name-resolve: TCP clients match '127.0.0.1', socket clients 'localhost'.
mariadb --defaults-extra-file="$admin_cnf" --batch <<SQL
CREATE DATABASE IF NOT EXISTS $db CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS $user@'127.0.0.1' IDENTIFIED BY $pw;
CREATE USER IF NOT EXISTS $user@'localhost' IDENTIFIED BY $pw;
ALTER USER $user@'127.0.0.1' IDENTIFIED BY $pw;
ALTER USER $user@'localhost' IDENTIFIED BY $pw;
GRANT ALL PRIVILEGES ON $db.* TO $user@'127.0.0.1';
GRANT ALL PRIVILEGES ON $db.* TO $user@'localhost';
SQL
echo "rdb/bootstrap.sh: database $DB_NAME and user $DB_USER ready"
