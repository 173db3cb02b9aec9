#!/usr/bin/env bash
# Runs the webapp in the foreground (supervisord, the Dockerfile's CMD) from the
# environment of CONTRACTS.md. exec: signals reach node directly (SIGTERM drains).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -f public/dist/manifest.json ] || [ ! -d node_modules ]; then
  echo "webapp/run.sh: not installed; run webapp/install.sh first" >&2
  exit 1
fi
export NODE_ENV=${NODE_ENV:-production}
exec node src/server.js
