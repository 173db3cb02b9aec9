#!/usr/bin/env bash
# The webapp's suites (called by `make test`); exits non-zero on any failure.
#   unit  : no services needed
#   api   : through HAProxy (BASE_URL, default http://127.0.0.1:$HAPROXY_PORT) against the real stack
#   e2e   : headless Debian chromium through HAProxy; needs the engine too
# WEBAPP_TEST_SUITES="unit api e2e" picks suites (default: all three).
set -euo pipefail
cd "$(dirname "$0")"

suites=${WEBAPP_TEST_SUITES:-unit api e2e}
case " $suites " in *" e2e "*) export WEBAPP_TEST_BROWSER=1 ;; esac
case " $suites " in *" api "*) export WEBAPP_TEST_TOOLS=1 ;; esac
./install.sh

# The environment bin/prutor generates, when the caller did not export it.
VARDIR=${PRUTOR_VAR:-$(cd .. && pwd)/var}
if [ -f "$VARDIR/prutor.env" ]; then
  while IFS='=' read -r k v; do
    [[ "$k" =~ ^[A-Z_][A-Z0-9_]*$ ]] || continue
    [ -n "${!k:-}" ] || export "$k=${v%\"}"
  done < <(sed -e 's/^export //' -e 's/="/=/' "$VARDIR/prutor.env")
fi
export BASE_URL=${BASE_URL:-http://127.0.0.1:${HAPROXY_PORT:-8080}}

files=()
for s in $suites; do files+=("test/$s/"); done
# WEBAPP_TEST_FILES (space-separated paths under webapp/) replaces the suites' folders
[ -z "${WEBAPP_TEST_FILES:-}" ] || read -r -a files <<<"$WEBAPP_TEST_FILES"

if [[ " $suites " == *" api "* || " $suites " == *" e2e "* ]]; then
  if ! curl -fsS -o /dev/null --max-time 5 "$BASE_URL/accounts/login"; then
    echo "webapp/test.sh: the stack does not answer at $BASE_URL (run \`make up\` first)" >&2
    exit 1
  fi
fi

# WEBAPP_TEST_NAME_PATTERN (a regular expression) runs only the tests whose names match
pattern=()
[ -z "${WEBAPP_TEST_NAME_PATTERN:-}" ] || pattern=("--test-name-pattern=$WEBAPP_TEST_NAME_PATTERN")

# Suites share the demo database: one file at a time.
exec node --test --test-concurrency=1 --test-reporter=spec "${pattern[@]}" "${files[@]}"
