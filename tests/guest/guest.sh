#!/bin/bash
# PID 1 of the cgroup v2 guest (tests/guest/test.sh boots it): the host's root filesystem
# under an overlay, a kernel with the unified hierarchy alone (cgroup_no_v1=all). It gives
# the project's sandbox a host of that kind, as an engine container would see one (its own
# cgroup namespace, whose root holds the engine's processes), installs the sandbox with the
# project's own scripts and runs the sandbox suite, then (unless OUT/engine.conf says
# GUEST_ENGINE=0) the engine's hostile and integrity tests against the engine started there
# (engine.sh: its MariaDB is made while the launcher builds); results go to the output folder
# (the second 9p share), progress to the serial console. Then it powers the guest off.
# Kernel command line: prutor.out=<output folder>
set -u
if [ "${1:-}" != inside ]; then
  mount -t proc proc /proc
  mount -t sysfs sysfs /sys
  mount -t devtmpfs devtmpfs /dev
fi
REPO=$(cd "$(dirname "$0")/../.." && pwd)
out=$(sed -n 's/.*prutor\.out=\([^ ]*\).*/\1/p' /proc/cmdline)
say() { echo "guest: $*"; }
finish() { sync; echo o > /proc/sysrq-trigger; sleep 30; }

if [ "${1:-}" != inside ]; then
  mount -t tmpfs -o mode=0755 tmpfs /run
  mount -t cgroup2 cgroup2 /sys/fs/cgroup || { say "no cgroup2"; echo 1 > "$out/guest.rc"; finish; }
  say "kernel $(uname -r), cgroup controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
  # an engine container's view: a cgroup of its own with memory, pids and cpu, seen as the
  # root of a new cgroup namespace, its processes in it
  echo "+memory +pids +cpu" > /sys/fs/cgroup/cgroup.subtree_control
  mkdir /sys/fs/cgroup/engine
  echo $$ > /sys/fs/cgroup/engine/cgroup.procs
  exec unshare --cgroup "$0" inside
fi
# the hierarchy as the new namespace sees it (the guest has nothing else to keep it for)
umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup
say "own cgroup namespace: $(cat /proc/self/cgroup), controllers $(cat /sys/fs/cgroup/cgroup.controllers)"
GUEST_ENGINE=1 GUEST_SANDBOX=1
# shellcheck disable=SC1091
[ -f "$out/engine.conf" ] && . "$out/engine.conf"
# installed from scratch by the project's scripts, not what the host has
rm -rf /etc/prutor /usr/local/lib/prutor
t=$SECONDS
# the engine's MariaDB is initialised and migrated meanwhile (done before the sandbox suite
# starts: only an idle server is left running during it)
[ "$GUEST_ENGINE" = 1 ] && { bash "$REPO/tests/guest/engine.sh" db "$out" 2>> "$out/engine-setup.log" & db_job=$!; }
if ! bash "$REPO/sandbox/install.sh" > "$out/guest-install.log" 2>&1; then
  say "sandbox/install.sh failed:"; tail -5 "$out/guest-install.log"
  echo 1 > "$out/guest.rc"; finish
fi
say "sandbox/install.sh: $((SECONDS - t)) s"
db_rc=0
[ "$GUEST_ENGINE" = 1 ] && { wait "$db_job"; db_rc=$?; }
if [ "$GUEST_SANDBOX" = 1 ]; then
  t=$SECONDS
  SANDBOX_VERDICTS=$out/guest.verdicts SANDBOX_TEST_PROGRAMS=$out/programs \
    bash "$REPO/sandbox/test.sh" > "$out/guest.log" 2>&1
  echo $? > "$out/guest.rc"
  say "sandbox/test.sh: $((SECONDS - t)) s, $(tail -1 "$out/guest.log")"
  grep -E '^(FAIL|SKIP)' "$out/guest.log" | sed 's/^/guest: /'
fi
if [ "$GUEST_ENGINE" = 1 ]; then
  if [ "$db_rc" = 0 ]; then
    bash "$REPO/tests/guest/engine.sh" test "$out" 2>> "$out/engine-setup.log"
  else
    echo 1 > "$out/engine.rc"
  fi
  grep -E '^[0-9]+\) ' "$out/engine-guest.log" 2>/dev/null | sed 's/^/guest: engine FAIL /'
fi
finish
