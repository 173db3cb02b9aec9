#!/bin/sh
# Installs the sandbox: Debian packages, the two launchers, the slot users.
# Idempotent and quick when everything is present. Must run as root.
#   SANDBOX_USERS   number of slot users prutor-box0..N-1 to create (default 64)
#   SANDBOX_UID_BASE first uid (and gid) of the slot users (default 70000)
#   ENGINE_USER     the only user allowed to run the privileged launcher (default www-data)
#   SANDBOX_LIBDIR  root-owned folder of the two launchers (default /usr/local/lib/prutor);
#                   a second checkout on the same host can keep its own launchers apart
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SANDBOX_USERS=${SANDBOX_USERS:-64}
SANDBOX_UID_BASE=${SANDBOX_UID_BASE:-70000}
ENGINE_USER=${ENGINE_USER:-www-data}
LIBDIR=${SANDBOX_LIBDIR:-/usr/local/lib/prutor}
case "$LIBDIR" in /usr/local/lib/*) ;; *) echo "sandbox/install.sh: SANDBOX_LIBDIR must be under /usr/local/lib" >&2; exit 1 ;; esac

[ "$(id -u)" = 0 ] || { echo "sandbox/install.sh: must run as root" >&2; exit 1; }

need=""
for p in bubblewrap libseccomp-dev gcc libc6-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "sandbox/install.sh: installing$need"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y --no-install-recommends $need
fi

getent passwd "$ENGINE_USER" >/dev/null || useradd --system --no-create-home --shell /usr/sbin/nologin "$ENGINE_USER"

# Build both launchers; reinstall only when the source (or this script) changed.
mkdir -p "$LIBDIR"
chmod 0755 "$LIBDIR"
sum=$( (echo "$LIBDIR"; cat "$HERE/src/prutor-box.c" "$HERE/src/prutor-run.c" "$HERE/src/confine.h" "$HERE/src/syscalls.h" "$HERE/install.sh") | sha256sum | cut -c1-64)
if [ "$(cat "$LIBDIR/.src.sha256" 2>/dev/null || true)" != "$sum" ] || [ ! -x "$LIBDIR/prutor-box" ]; then
  tmp=$(mktemp -d)
  # Linked statically, as position-independent executables (ASLR kept): the setuid
  # launcher loads no shared object (no dynamic loader, no NSS module) and neither pays
  # the dynamic link in every step (0.26 ms a start here)
  gcc -O2 -Wall -Wextra -D_FORTIFY_SOURCE=2 -static-pie -DINNER="\"$LIBDIR/prutor-run\"" -o "$tmp/prutor-box" "$HERE/src/prutor-box.c" -lseccomp
  gcc -O2 -Wall -Wextra -D_FORTIFY_SOURCE=2 -static-pie -o "$tmp/prutor-run" "$HERE/src/prutor-run.c" -lseccomp
  install -o root -g root -m 0755 "$tmp/prutor-run" "$LIBDIR/prutor-run"
  install -o root -g "$(id -gn "$ENGINE_USER")" -m 0750 "$tmp/prutor-box" "$LIBDIR/prutor-box.new"
  chmod 4750 "$LIBDIR/prutor-box.new"
  mv -f "$LIBDIR/prutor-box.new" "$LIBDIR/prutor-box"
  echo "$sum" > "$LIBDIR/.src.sha256"
  rm -rf "$tmp"
  echo "sandbox/install.sh: launchers installed in $LIBDIR"
fi

# One dedicated non-root user (and group) per concurrent slot, with ids of their own
# (SANDBOX_UID_BASE + slot, default 70000 +): the launcher kills every process of a slot's
# uid after each step, so that uid must not be shared with anything else on the host,
# such as a container's system user (999, 998, ... are taken by images as by the host).
i=0
while [ "$i" -lt "$SANDBOX_USERS" ]; do
  u=prutor-box$i id=$((SANDBOX_UID_BASE + i))
  if ! getent passwd "$u" >/dev/null; then
    getent group "$u" >/dev/null || groupadd --system --gid "$id" "$u"
    useradd --system --uid "$id" --gid "$u" --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$u"
  elif [ "$(id -u "$u")" != "$id" ]; then
    # an older install gave it a uid from the shared system range: move it (not while it runs a step)
    { groupmod --gid "$id" "$u" && usermod --uid "$id" --gid "$id" "$u"; } 2>/dev/null ||
      echo "sandbox/install.sh: warning: $u keeps uid $(id -u "$u") (busy now); the next install moves it to $id" >&2
  fi
  i=$((i + 1))
done

mkdir -p /etc/prutor
[ -f /etc/prutor/sandbox.conf ] || printf '# box <root> <first_slot> <count>: written by sandbox/setup-box.sh\n' > /etc/prutor/sandbox.conf
chown root:root /etc/prutor /etc/prutor/sandbox.conf
chmod 0755 /etc/prutor
chmod 0600 /etc/prutor/sandbox.conf
