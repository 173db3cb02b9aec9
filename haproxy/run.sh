#!/usr/bin/env bash
# Runs HAProxy in the foreground in master-worker mode (what supervisord and the
# container run). Reload without dropping connections: SIGUSR2 to this process
# (`bin/prutor reload haproxy`); the master re-reads the same files.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cfgs=()
if [ -n "${PRUTOR_VAR:-}" ]; then
  # The admin socket lives with the other runtime files.
  export HAPROXY_RUN_DIR=${HAPROXY_RUN_DIR:-$PRUTOR_VAR/run}
  # `tuning apply` writes `setenv` lines here and reloads; the file is read before
  # haproxy.cfg (whose presetenv defaults then leave those values alone). It must
  # be on the command line from the start, since a reload re-reads the same files.
  tuning_cfg=$PRUTOR_VAR/tuning/haproxy-tuning.cfg
  mkdir -p "$(dirname "$tuning_cfg")"
  [ -f "$tuning_cfg" ] || printf '# tuning overrides (written by `tuning apply`); none yet\n' >"$tuning_cfg"
  cfgs+=(-f "$tuning_cfg")
fi
[ -z "${HAPROXY_RUN_DIR:-}" ] || mkdir -p "$HAPROXY_RUN_DIR"
cfgs+=(-f "${HAPROXY_CFG:-$HERE/haproxy.cfg}")
haproxy -c -q "${cfgs[@]}"
exec haproxy -W -db "${cfgs[@]}"
