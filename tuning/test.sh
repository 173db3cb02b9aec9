#!/usr/bin/env bash
# tuning/test.sh: unit tests (profiles, HAProxy log analysis, recommend rule) and, when the
# stack is up, the live tests (apply during a stream of requests; a smoke-sized sweep with
# report). Exits non-zero on any failure.
#   TUNING_REQUIRE_STACK=1  fail instead of skipping the live tests when the stack is down
#   TUNING_SKIP_SWEEP=1     skip the smoke sweep (a few minutes)
#   TUNING_UNIT_ONLY=1      only the tests that need no stack
set -euo pipefail
cd "$(dirname "$0")"
if [ "${TUNING_UNIT_ONLY:-0}" = 1 ]; then
  cd tests && exec python3 -m unittest -v test_profile test_haplog test_recommend test_plan
fi
cd tests && exec python3 -m unittest -v test_profile test_haplog test_recommend test_plan test_live
