#!/bin/sh
# Prepares a box root with COUNT slots starting at FIRST and registers it with the
# privileged launcher (/etc/prutor/sandbox.conf). Run as root before the engine starts.
# Slots start empty (a step cut short by a crash leaves nothing for the next one).
# SANDBOX_ALLOW_PLAIN=1 writes "allow_plain 1": the admin's opt-in to the weaker plain
# isolation (uid + rlimits + seccomp, no namespaces); any other value removes it.
# SANDBOX_NAMESPACES=bwrap makes this box's sandboxes always use bubblewrap, as where
# root may not make namespaces itself (the launcher's direct namespaces are the default).
# SANDBOX_PIN_CPUS=0 writes "pin_cpus 0": sandboxes float over the CPUs instead of each
# running on one of its own (sandbox/README.md); any other value removes it.
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
  find "$d" -mindepth 1 -delete
  chown "$ENGINE_USER:prutor-box$i" "$d"
  chmod 2770 "$d"
  i=$((i + 1))
done
# One persistent, empty network namespace that every sandbox joins (sandbox/README.md):
# made once per boot; where it cannot be made (no CAP_SYS_ADMIN) each sandbox makes its own.
netns=/run/prutor/netns
if ! findmnt -n "$netns" >/dev/null 2>&1; then
  mkdir -p /run/prutor && chmod 0755 /run/prutor && touch "$netns"
  unshare --net="$netns" true 2>/dev/null || rm -f "$netns"
fi
netns_line=$(findmnt -n "$netns" >/dev/null 2>&1 && echo "netns $netns" || true)
conf=/etc/prutor/sandbox.conf
line="box $ROOT $FIRST $COUNT"
[ "${SANDBOX_NAMESPACES:-direct}" = bwrap ] && line="$line bwrap"
want_plain=$([ "${SANDBOX_ALLOW_PLAIN:-0}" = 1 ] && echo yes || echo no)
has_plain=$(grep -qx "allow_plain 1" "$conf" && echo yes || echo no)
want_float=$([ "${SANDBOX_PIN_CPUS:-1}" = 0 ] && echo yes || echo no)
has_float=$(grep -qx "pin_cpus 0" "$conf" && echo yes || echo no)
if ! grep -qxF "$line" "$conf" || [ "$want_plain" != "$has_plain" ] || [ "$want_float" != "$has_float" ] \
   || [ "$netns_line" != "$(grep '^netns ' "$conf" || true)" ]; then
  tmp=$(mktemp /etc/prutor/.conf.XXXXXX)
  grep -v -e "^box $ROOT " -e "^allow_plain " -e "^pin_cpus " -e "^netns " "$conf" > "$tmp" || true
  echo "$line" >> "$tmp"
  [ "$want_plain" = yes ] && echo "allow_plain 1" >> "$tmp"
  [ "$want_float" = yes ] && echo "pin_cpus 0" >> "$tmp"
  [ -n "$netns_line" ] && echo "$netns_line" >> "$tmp"
  chmod 0600 "$tmp"
  mv -f "$tmp" "$conf"
fi
