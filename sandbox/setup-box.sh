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
# SANDBOX_SLOT_MB (default 256): each slot dir is a tmpfs of this size, so that what a step
# writes into its /box (a compile, a Jobe run) fills that and never the host's disk.
# SANDBOX_CGROUP2 (default /sys/fs/cgroup/prutor): on a cgroup v2 host, the subtree delegated
# to the launcher ("cgroup2 <dir>" in the config; sandbox/README.md, cgroups).
# usage: sandbox/setup-box.sh BOX_ROOT FIRST COUNT
set -eu
[ "$#" = 3 ] || { echo "usage: $0 BOX_ROOT FIRST COUNT" >&2; exit 2; }
ROOT=$1 FIRST=$2 COUNT=$3
ENGINE_USER=${ENGINE_USER:-www-data}
SLOT_MB=${SANDBOX_SLOT_MB:-256}
case "$SLOT_MB" in ''|*[!0-9]*|0) echo "SANDBOX_SLOT_MB must be a positive number of MB" >&2; exit 2 ;; esac
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
  # emptied first: nothing stays hidden under a new mount, and a resize finds room
  find "$d" -mindepth 1 -delete
  # a capped tmpfs, not the host's disk (a slot already mounted keeps its tmpfs, resized)
  if [ "$(findmnt -n -o FSTYPE --mountpoint "$d" 2>/dev/null)" = tmpfs ]; then
    mount -o remount,size="${SLOT_MB}m" "$d"
  elif ! mount -t tmpfs -o size="${SLOT_MB}m",mode=2770,nosuid,nodev tmpfs "$d" 2>/dev/null && [ -z "${warned_fs:-}" ]; then
    echo "setup-box.sh: cannot mount a tmpfs on $d (no CAP_SYS_ADMIN here?): the slots stay directories on" \
         "$(df --output=target "$d" | tail -1), so a step can fill that disk up to its free space" >&2
    warned_fs=1
  fi
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

# cgroup v2 (the unified hierarchy alone, as every current distribution boots): a subtree for
# the launcher, which makes one child per slot and a leaf per step below it. A cgroup that
# passes controllers on to its children may hold no process itself ("no internal processes",
# the hierarchy's root excepted), so where this script's own cgroup is the parent (a
# container's cgroup namespace, or a service with Delegate=yes) its processes move to a leaf
# "init" first. Never processes of another cgroup.
cg_enable() { # DIR: its children get the memory and pids controllers (cpu too where it can)
  local d=$1 self pid
  if ! { grep -qw memory "$d/cgroup.subtree_control" && grep -qw pids "$d/cgroup.subtree_control"; } &&
     ! echo "+memory +pids" > "$d/cgroup.subtree_control" 2>/dev/null; then
    self=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
    [ "${self%/}" = "$d" ] || return 1
    mkdir -p "$d/init"
    for _ in 1 2 3; do
      for pid in $(cat "$d/cgroup.procs"); do echo "$pid" > "$d/init/cgroup.procs" 2>/dev/null || true; done
    done
    echo "+memory +pids" > "$d/cgroup.subtree_control" 2>/dev/null || return 1
  fi
  echo "+cpu" > "$d/cgroup.subtree_control" 2>/dev/null || true   # cpu.max only; usage is counted without it
}
cg_line=
if [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
  cg=${SANDBOX_CGROUP2:-/sys/fs/cgroup/prutor}
  parent=$(dirname "$cg")
  if ! grep -qw memory "$parent/cgroup.controllers" 2>/dev/null || ! grep -qw pids "$parent/cgroup.controllers"; then
    echo "setup-box.sh: cgroup v2: $parent is not given the memory and pids controllers (delegate them," \
         "e.g. Delegate=yes): steps are bound by rlimits only" >&2
  elif ! cg_enable "$parent" || ! mkdir -p "$cg" || ! cg_enable "$cg"; then
    echo "setup-box.sh: cgroup v2: cannot enable memory and pids below $parent: steps are bound by rlimits only" >&2
  elif [ ! -e "$cg/memory.peak" ] || [ ! -e "$cg/cgroup.kill" ]; then
    echo "setup-box.sh: cgroup v2: this kernel lacks memory.peak or cgroup.kill (5.19 has both): steps are bound by rlimits only" >&2
  else
    cg_line="cgroup2 $cg"
  fi
fi
conf=/etc/prutor/sandbox.conf
line="box $ROOT $FIRST $COUNT"
[ "${SANDBOX_NAMESPACES:-direct}" = bwrap ] && line="$line bwrap"
want_plain=$([ "${SANDBOX_ALLOW_PLAIN:-0}" = 1 ] && echo yes || echo no)
has_plain=$(grep -qx "allow_plain 1" "$conf" && echo yes || echo no)
want_float=$([ "${SANDBOX_PIN_CPUS:-1}" = 0 ] && echo yes || echo no)
has_float=$(grep -qx "pin_cpus 0" "$conf" && echo yes || echo no)
if ! grep -qxF "$line" "$conf" || [ "$want_plain" != "$has_plain" ] || [ "$want_float" != "$has_float" ] \
   || [ "$netns_line" != "$(grep '^netns ' "$conf" || true)" ] || [ "$cg_line" != "$(grep '^cgroup2 ' "$conf" || true)" ]; then
  tmp=$(mktemp /etc/prutor/.conf.XXXXXX)
  grep -v -e "^box $ROOT " -e "^allow_plain " -e "^pin_cpus " -e "^netns " -e "^cgroup2 " "$conf" > "$tmp" || true
  echo "$line" >> "$tmp"
  [ "$want_plain" = yes ] && echo "allow_plain 1" >> "$tmp"
  [ "$want_float" = yes ] && echo "pin_cpus 0" >> "$tmp"
  [ -n "$netns_line" ] && echo "$netns_line" >> "$tmp"
  [ -n "$cg_line" ] && echo "$cg_line" >> "$tmp"
  chmod 0600 "$tmp"
  mv -f "$tmp" "$conf"
fi
