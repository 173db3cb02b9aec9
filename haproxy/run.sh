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
# tuning/ (issue 7): `tuning apply` writes the active profile's HAProxy tunables as
# `setenv` lines into this file, parsed before haproxy.cfg. A reload re-execs the
# master with its old environment, so this file is how new values reach a reload.
tuning=()
if [ -n "${PRUTOR_VAR:-}" ]; then
  tcfg=${HAPROXY_TUNING_CFG:-$PRUTOR_VAR/tuning/haproxy-tuning.cfg}
  mkdir -p "$(dirname "$tcfg")"
  [ -f "$tcfg" ] || printf '# HAProxy tunables of the active tuning profile (tuning apply writes them)\n' >"$tcfg"
  tuning=(-f "$tcfg")
fi
haproxy -c -q "${tuning[@]}" -f "$cfg"
exec haproxy -W -db "${tuning[@]}" -f "$cfg"
