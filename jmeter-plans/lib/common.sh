# Shared helpers of the jmeter-plans scripts (sourced, not executed).
# Run directly (not through `bin/prutor run`, as the Makefile does), a script gets
# the services' environment from bin/prutor, with the same precedence.

PLANS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_DIR=$(cd "$PLANS_DIR/.." && pwd)
PRUTOR_VAR=${PRUTOR_VAR:-$REPO_DIR/var}

[ -n "${PRUTOR_ROOT:-}" ] || eval "$("$REPO_DIR/bin/prutor" env)"
DB_HOST=${DB_HOST:-127.0.0.1}
DB_PORT=${DB_PORT:-3307}
DB_NAME=${DB_NAME:-prutor}
DB_USER=${DB_USER:-prutor}
DB_PASSWORD=${DB_PASSWORD:-prutor-local}
export DB_HOST DB_PORT DB_NAME DB_USER DB_PASSWORD

JMETER_VERSION=5.6.3
JMETER_CACHE=${JMETER_CACHE:-$HOME/.cache/prutor/jmeter-$JMETER_VERSION}
RESULTS_ROOT=${RESULTS_DIR:-$REPO_DIR/results}
# the load students: section LOAD_SECTION, usernames LOAD_PREFIX00001.. (test.sh uses its
# own section so that it never touches the data of a benchmark run at the same time)
LOAD_SECTION=${LOAD_SECTION:-LOAD}
LOAD_PREFIX=${LOAD_PREFIX:-load}
case "$LOAD_SECTION$LOAD_PREFIX" in *[!A-Za-z0-9_-]*) echo "LOAD_SECTION and LOAD_PREFIX: letters, digits, - and _ only" >&2; exit 2;; esac
LOAD_CSV=${LOAD_CSV:-$PRUTOR_VAR/jmeter/users.csv}

# sql "STATEMENTS": batch mode, tab separated, no column names
sql() {
  MYSQL_PWD="$DB_PASSWORD" mariadb --protocol=tcp -h "$DB_HOST" -P "$DB_PORT" -u "$DB_USER" \
    -N -B --init-command="SET time_zone='+00:00'" "$DB_NAME" -e "$1"
}

die() { echo "error: $*" >&2; exit 1; }
