#!/usr/bin/env bash
# Installs what backup/ uses: mariabackup (Debian's mariadb-backup, the same 10.11 as
# rdb/install.sh's server: it refuses another server version), age (encryption),
# zstd, jq, zip and unzip (exam archives). Idempotent and quick when everything is present (make up, the Dockerfile).
# The MongoDB dump uses nosql/'s node driver (nosql/install.sh).
set -euo pipefail

# Kept inline (not shared) so the folder is self-contained for its Dockerfile.
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

apt_install mariadb-backup mariadb-client age zstd jq zip unzip util-linux
# mariabackup must match the server it copies
server=$(dpkg-query -W -f='${Version}' mariadb-server 2>/dev/null || true)
tool=$(dpkg-query -W -f='${Version}' mariadb-backup)
if [ -n "$server" ] && [ "$server" != "$tool" ]; then
  echo "backup/install.sh: mariadb-backup $tool differs from mariadb-server $server; upgrading both" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --only-upgrade mariadb-server mariadb-backup
fi
