#!/usr/bin/env bash
# The launcher on its own, without the engine: who may call it, what argv it refuses,
# and that a program runs, is contained and leaves nothing behind, in both modes.
# (The hostile suite runs end to end through HAProxy and the engine in engine/test.sh.)
# Needs root (it plays www-data and an outsider with su). Registers a throwaway box
# with two slots far from the engine's and removes it afterwards.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAUNCHER=${SANDBOX_LAUNCHER:-/usr/local/lib/prutor/prutor-box}
FIRST_SLOT=${SANDBOX_TEST_FIRST_SLOT:-60}
CPU_MS=1000 WALL_MS=3000 MEMORY_KB=65536 FILE_SIZE_KB=1024 NPROC=8 NOFILE=16 OUTPUT_BYTES=65536

[ "$(id -u)" = 0 ] || { echo "sandbox/test.sh: run as root" >&2; exit 2; }
[ -x "$LAUNCHER" ] || "$HERE/install.sh" >/dev/null

root=$(mktemp -d /tmp/prutor-sandbox-test.XXXXXX)
chmod 0711 "$root"
box=$root/box
slot=$box/$FIRST_SLOT
cleanup() {
  local tmp
  tmp=$(mktemp /etc/prutor/.conf.XXXXXX)
  grep -v "^box $box " /etc/prutor/sandbox.conf > "$tmp" || true
  chmod 0600 "$tmp" && mv -f "$tmp" /etc/prutor/sandbox.conf
  rm -rf "$root"
}
trap cleanup EXIT
"$HERE/setup-box.sh" "$box" "$FIRST_SLOT" 2 >/dev/null

passed=0 failed=0
check() { # name, then a command that must succeed
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); echo "ok   $name"
  else failed=$((failed + 1)); echo "FAIL $name"; fi
}
as_engine() { su -s /bin/bash www-data -c "$1"; }
# launcher argv: step workdir limits... mode - -- cmd; the status line is on fd 3
box_cmd() { # step mode workdir cmd...
  local step=$1 mode=$2 dir=$3; shift 3
  echo "$LAUNCHER $step $dir $CPU_MS $WALL_MS $MEMORY_KB $FILE_SIZE_KB $NPROC $NOFILE $OUTPUT_BYTES $mode - -- $*"
}
program() { # name, C source: compiled in the slot (inside the sandbox)
  printf '%s\n' "$2" > "$slot/$1.c"
  chown www-data "$slot/$1.c"
  as_engine "$(box_cmd compile ns "$slot" /usr/bin/gcc -O2 -o "$1" "$1.c") 3>/dev/null" >/dev/null 2>&1
}
status_of() { as_engine "$(box_cmd run "$1" "$slot" "./$2") 3>&1 1>/dev/null 2>/dev/null </dev/null"; }
no_leftovers() { ! pgrep -u "prutor-box$FIRST_SLOT" >/dev/null; }

check "an outsider cannot run the launcher" \
  bash -c "! su -s /bin/bash nobody -c '$LAUNCHER probe $slot' 2>/dev/null"
check "the engine user can probe a registered slot" \
  bash -c "$(declare -f as_engine); as_engine '$LAUNCHER probe $slot 3>&1' | grep -q '\"status\":\"ok\"'"
check "an unregistered work dir is refused" \
  bash -c "$(declare -f as_engine); as_engine '$LAUNCHER probe $root 3>&1' 2>/dev/null | grep -q setup_error"
check "a path escaping the box root is refused" \
  bash -c "$(declare -f as_engine); as_engine '$LAUNCHER probe $slot/../$((FIRST_SLOT + 1))/.. 3>&1' 2>/dev/null | grep -q setup_error"
check "a slot outside the registered range is refused" \
  bash -c "$(declare -f as_engine); mkdir -p $box/$((FIRST_SLOT + 2)); as_engine '$LAUNCHER probe $box/$((FIRST_SLOT + 2)) 3>&1' 2>/dev/null | grep -q setup_error"
check "a non-numeric limit is refused" \
  bash -c "$(declare -f as_engine); as_engine '$LAUNCHER run $slot 1e3 $WALL_MS $MEMORY_KB $FILE_SIZE_KB $NPROC $NOFILE $OUTPUT_BYTES ns - -- ./x 3>&1' 2>/dev/null | grep -q setup_error"
check "a command outside the work dir and /usr is refused" \
  bash -c "$(declare -f as_engine); as_engine '$LAUNCHER run $slot $CPU_MS $WALL_MS $MEMORY_KB $FILE_SIZE_KB $NPROC $NOFILE $OUTPUT_BYTES ns - -- /bin/../tmp/x 3>&1' 2>/dev/null | grep -q setup_error"

program echo '#include <stdio.h>
int main(void) { char s[32]; if (scanf("%31s", s) == 1) printf("hi %s\n", s); return 0; }'
for mode in ns plain; do
  out=$(as_engine "echo world | $(box_cmd run $mode "$slot" ./echo) 2>/dev/null 3>/dev/null")
  check "[$mode] a program reads stdin and writes stdout" test "$out" = "hi world"
done

program net '#include <sys/socket.h>
int main(void) { return socket(AF_INET, SOCK_STREAM, 0) < 0 ? 3 : 0; }'
program loop 'int main(void) { for (;;) ; }'
program spawn '#include <unistd.h>
int main(void) { if (fork() == 0) { setsid(); for (;;) sleep(1); } return 0; }'
program shadow '#include <stdio.h>
int main(void) { return fopen("/etc/shadow", "r") ? 0 : 4; }'
for mode in ns plain; do
  check "[$mode] a socket is a forbidden system call (SIGSYS)" \
    bash -c "$(declare -f as_engine box_cmd status_of); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot); status_of $mode net | grep -q '\"signal\":31'"
  check "[$mode] an infinite loop is stopped by the CPU limit" \
    bash -c "$(declare -f as_engine box_cmd status_of); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot); status_of $mode loop | grep -Eq '\"signal\":(24|9)|\"status\":\"timeout\"'"
  check "[$mode] /etc/shadow cannot be read" \
    bash -c "$(declare -f as_engine box_cmd status_of); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot); status_of $mode shadow | grep -q '\"exit\":4'"
  status_of $mode spawn >/dev/null
  check "[$mode] a background child is killed when the run ends" no_leftovers
done

echo "sandbox: $passed passed, $failed failed"
[ "$failed" = 0 ]
