#!/usr/bin/env bash
# Installs Prometheus from Debian (bookworm: 2.42, with promtool) for monitoring/.
# Idempotent and quick when present; `make up` runs it only with MONITORING=1, CI before
# the monitoring suite, the Dockerfile at build. About 10-25 s fresh (21.8 MB of packages).
set -euo pipefail

# Installs the Debian packages not yet installed. Kept inline (not shared) so the
# folder is self-contained for its Dockerfile.
apt_install() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  export DEBIAN_FRONTEND=noninteractive
  # The package must not start its system-wide Prometheus (it would take port 9090).
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

apt_install prometheus curl ca-certificates
prometheus --version 2>&1 | head -n1
