#!/usr/bin/env bash
# Runs HAProxy in the foreground in master-worker mode (what supervisord and the
# container run). Reload without dropping connections: send SIGUSR2 to this
# process (`supervisorctl signal USR2 haproxy`).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
# The admin socket lives with the other runtime files.
if [ -n "${PRUTOR_VAR:-}" ]; then export HAPROXY_RUN_DIR=${HAPROXY_RUN_DIR:-$PRUTOR_VAR/run}; fi
[ -z "${HAPROXY_RUN_DIR:-}" ] || mkdir -p "$HAPROXY_RUN_DIR"
cfg=${HAPROXY_CFG:-$HERE/haproxy.cfg}
haproxy -c -q -f "$cfg"
exec haproxy -W -db -f "$cfg"
