#!/usr/bin/env bash
# nosql tests: nosql/load.js against the running MongoDB API (make up), in a
# throwaway database. node's test runner.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
eval "$("$HERE/../bin/prutor" env)"
[ -d "$HERE/node_modules/mongodb" ] || bash "$HERE/install.sh"
cd "$HERE" && exec node --test test/
