#!/bin/sh
# Prepares a box root with COUNT slots starting at FIRST and registers it with the
# privileged launcher (/etc/prutor/sandbox.conf). Run as root before the engine starts.
# usage: sandbox/setup-box.sh BOX_ROOT FIRST COUNT
set -eu
[ "$#" = 3 ] || { echo "usage: $0 BOX_ROOT FIRST COUNT" >&2; exit 2; }
ROOT=$1 FIRST=$2 COUNT=$3
ENGINE_USER=${ENGINE_USER:-www-data}
case "$ROOT" in /*) ;; *) echo "BOX_ROOT must be absolute" >&2; exit 2 ;; esac
mkdir -p "$ROOT"
ROOT=$(cd "$ROOT" && pwd -P)
chown root:root "$ROOT"
chmod 0711 "$ROOT"
last=$((FIRST + COUNT - 1))
i=$FIRST
while [ "$i" -le "$last" ]; do
  getent passwd "prutor-box$i" >/dev/null || SANDBOX_USERS=$((last + 1)) "$(dirname "$0")/install.sh"
  d="$ROOT/$i"
  mkdir -p "$d"
  chown "$ENGINE_USER:prutor-box$i" "$d"
  chmod 2770 "$d"
  i=$((i + 1))
done
conf=/etc/prutor/sandbox.conf
line="box $ROOT $FIRST $COUNT"
if ! grep -qxF "$line" "$conf"; then
  tmp=$(mktemp /etc/prutor/.conf.XXXXXX)
  grep -v "^box $ROOT " "$conf" > "$tmp" || true
  echo "$line" >> "$tmp"
  chmod 0600 "$tmp"
  mv -f "$tmp" "$conf"
fi
