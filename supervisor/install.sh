#!/usr/bin/env bash
# Installs supervisord and the tools bin/prutor uses (the native runner only).
# Idempotent and quick when everything is present (used by make up and the Dockerfile).
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
  # Packages must not start their system-wide daemons (they would take our ports).
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  # A fresh machine or image may have no package lists yet.
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# supervisord runs the stack; bin/prutor itself needs curl, jq and envsubst.
apt_install supervisor curl jq gettext-base ca-certificates

# The unprivileged user (and group) supervisord runs the webapp and FerretDB as.
getent passwd prutor >/dev/null ||
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin prutor
