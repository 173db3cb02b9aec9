#!/bin/sh
# The engine's suites: PHPUnit unit tests, then integration tests against the running
# engine (the hostile suite, verdicts, query counts, compile-once, busy, Jobe).
# Integration tests go through HAProxy when it answers /engine/healthz
# (http://127.0.0.1:$HAPROXY_PORT), else straight to the engine; they need the stack's
# environment (DB_*, MEMCACHED_*, SESSION_SECRET), which bin/prutor exports.
# Exits non-zero on failure; ends with PHPUnit's summary.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$HERE")
if [ -z "${SESSION_SECRET:-}" ] && [ -f "${PRUTOR_VAR:-$REPO/var}/prutor.env" ]; then
  set -a
  # shellcheck disable=SC1091
  . "${PRUTOR_VAR:-$REPO/var}/prutor.env"
  set +a
fi
export ENGINE_URL=${ENGINE_URL:-http://127.0.0.1:${ENGINE_PORT:-8081}}
if [ -z "${ENGINE_TEST_URL:-}" ]; then
  hp="http://127.0.0.1:${HAPROXY_PORT:-8080}"
  if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$hp/engine/healthz" || true)" = 200 ]; then
    ENGINE_TEST_URL=$hp
  else
    ENGINE_TEST_URL=$ENGINE_URL
  fi
fi
export ENGINE_TEST_URL
echo "engine/test.sh: integration tests through $ENGINE_TEST_URL (engine $ENGINE_URL)"
cd "$HERE"
# APCu on in the CLI: the unit tests of the caches' shared totals (LruFolder) need it
exec php -d apc.enable_cli=1 "$(command -v phpunit)" --do-not-cache-result "$@"
