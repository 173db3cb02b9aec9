#!/usr/bin/env bash
# The launcher on its own, without the engine: who may call it, what argv it refuses,
# and that a program runs, is contained and leaves nothing behind, in both modes.
# (The hostile suite runs end to end through HAProxy and the engine in engine/test.sh.)
# Needs root (it plays www-data and an outsider with su). Registers a throwaway box
# with two slots far from the engine's and removes it afterwards.
#   SANDBOX_VERDICTS=FILE       the verdict cases' results, one line each, go there too
#                               (tests/guest/ compares a cgroup v2 guest's with the host's)
#   SANDBOX_TEST_PROGRAMS=DIR   the compiled test programs are kept in DIR, and taken from it
#                               when there (gcc under software emulation is slow)
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LAUNCHER=${SANDBOX_LAUNCHER:-/usr/local/lib/prutor/prutor-box}
FIRST_SLOT=${SANDBOX_TEST_FIRST_SLOT:-60}
CPU_MS=1000 WALL_MS=3000 MEMORY_KB=65536 FILE_SIZE_KB=1024 NPROC=8 NOFILE=16 OUTPUT_BYTES=65536
SLOT_MB=48   # the test box's slots: tmpfs of this size (compile-run below writes 40 MB there)
programs=${SANDBOX_TEST_PROGRAMS:-}
verdicts=${SANDBOX_VERDICTS:-}
if [ -n "$verdicts" ]; then : > "$verdicts"; fi

[ "$(id -u)" = 0 ] || { echo "sandbox/test.sh: run as root" >&2; exit 2; }
[ -x "$LAUNCHER" ] || "$HERE/install.sh" >/dev/null

root=$(mktemp -d /tmp/prutor-sandbox-test.XXXXXX)
chmod 0711 "$root"
box=$root/box
slot=$box/$FIRST_SLOT
bin=$root/bin   # compiled programs, placed in the slot as "prog" for each run
write_conf() { # stdin becomes the launcher's config, root-only, replaced in one rename
  local tmp; tmp=$(mktemp /etc/prutor/.conf.XXXXXX)
  cat > "$tmp" && chmod 0600 "$tmp" && mv -f "$tmp" /etc/prutor/sandbox.conf
}
cleanup() {
  local drop=(-e "^box $box " -e "^allow_plain ")
  [ "${pin_set_here:-no}" = yes ] && drop+=(-e "^pin_cpus ")
  { grep -v "${drop[@]}" /etc/prutor/sandbox.conf
    grep -qx "allow_plain 1" /etc/prutor/sandbox.conf && [ "${had_plain:-no}" = yes ] && echo "allow_plain 1"
  } | write_conf
  local d
  for d in "$box"/*; do umount "$d" 2>/dev/null; done
  if [ "${cg_mode:-}" = v2 ]; then rmdir "$cg2_dir/box$FIRST_SLOT" "$cg2_dir/box$((FIRST_SLOT + 1))" 2>/dev/null; fi
  rm -rf "$root"
}
trap cleanup EXIT
had_plain=$(grep -qx "allow_plain 1" /etc/prutor/sandbox.conf && echo yes || echo no)
# setup-box.sh writes the host-wide pin_cpus line from the environment: keep the host's
: "${SANDBOX_PIN_CPUS:=$(grep -qx "pin_cpus 0" /etc/prutor/sandbox.conf && echo 0 || echo 1)}"
export SANDBOX_PIN_CPUS
SANDBOX_SLOT_MB=$SLOT_MB "$HERE/setup-box.sh" "$box" "$FIRST_SLOT" 2 >/dev/null
# the cgroups this host offers the launcher: v2 where the unified hierarchy alone is mounted and
# gives memory and pids (setup-box.sh delegates a subtree), v1 with the v1 memory hierarchy
cg2_dir=$(sed -n 's/^cgroup2 //p' /etc/prutor/sandbox.conf)
if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers \
   && grep -qw pids /sys/fs/cgroup/cgroup.controllers; then cg_mode=v2
elif [ -w /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then cg_mode=v1
else cg_mode=none; fi
mkdir -p "$bin"
chmod 0755 "$bin"

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
program() { # name, C source: compiled in the slot (inside the sandbox) as the engine does, kept in $bin
  # (from SANDBOX_TEST_PROGRAMS when there; "echo" is always compiled: a check below is about that)
  if [ -n "$programs" ] && [ "$1" != echo ] && [ -x "$programs/$1" ]; then install -m 0755 "$programs/$1" "$bin/$1"; return; fi
  printf '%s\n' "$2" > "$slot/main.c"
  chown www-data "$slot/main.c"
  # a compile's own limits: gcc under software emulation (tests/guest/) takes seconds of CPU
  as_engine "$(CPU_MS=20000 WALL_MS=60000 MEMORY_KB=262144 box_cmd compile ns "$slot" /usr/bin/gcc -O2 -o prog main.c) 3>/dev/null" >/dev/null 2>&1
  [ "$(ls -A "$slot")" = prog ] || echo "after compiling $1 the slot holds: $(ls -A "$slot")" >&2
  install -m 0755 "$slot/prog" "$bin/$1" && rm -f "$slot/prog"
  if [ -n "$programs" ]; then mkdir -p "$programs" && install -m 0755 "$bin/$1" "$programs/$1"; fi
}
place() { install -o www-data -m 0755 "$bin/$1" "$slot/prog"; }   # what the engine does before a run
status_of() { place "$2"; as_engine "$(box_cmd run "$1" "$slot" ./prog) 3>&1 1>/dev/null 2>/dev/null </dev/null"; }
stdout_of() { place "$2"; as_engine "$(box_cmd run "$1" "$slot" ./prog) 2>/dev/null 3>/dev/null </dev/null"; }
no_leftovers() { ! pgrep -u "prutor-box$FIRST_SLOT" >/dev/null; }

check "the setuid launcher loads no shared object (no program interpreter, no NEEDED library)" \
  bash -c "! readelf -lW '$LAUNCHER' | grep -q 'INTERP' && ! readelf -dW '$LAUNCHER' | grep -q '(NEEDED)'"
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
check "a compile leaves nothing in the slot but the binary" test ! -e "$slot/main.c"

place echo
check "plain isolation is refused without the admin's opt-in" \
  bash -c "$(declare -f as_engine box_cmd); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot); as_engine \"\$(box_cmd run plain $slot ./prog) 3>&1 </dev/null\" 2>/dev/null | grep -q 'plain isolation is not allowed'"
# the rest runs both modes: opt in for this test (removed again on exit)
grep -qx "allow_plain 1" /etc/prutor/sandbox.conf || echo "allow_plain 1" >> /etc/prutor/sandbox.conf

for mode in ns plain; do
  place echo
  out=$(as_engine "echo world | $(box_cmd run $mode "$slot" ./prog) 2>/dev/null 3>/dev/null")
  check "[$mode] a program reads stdin and writes stdout" test "$out" = "hi world"
  check "[$mode] the slot is empty after a run" test -z "$(ls -A "$slot")"
done

program net '#include <sys/socket.h>
int main(void) { return socket(AF_INET, SOCK_STREAM, 0) < 0 ? 3 : 0; }'
program loop 'int main(void) { for (;;) ; }'
program spawn '#include <unistd.h>
int main(void) { if (fork() == 0) { setsid(); for (;;) sleep(1); } return 0; }'
# programs that close their output early: the launcher must still wait for them (their exit
# code), and within the wall clock
program quiet '#include <unistd.h>
int main(void) { close(1); close(2); usleep(300000); return 7; }'
program mute '#include <unistd.h>
int main(void) { close(1); close(2); sleep(60); return 0; }'
program shadow '#include <stdio.h>
int main(void) { return fopen("/etc/shadow", "r") ? 0 : 4; }'
program writer '#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
int main(void) {
  FILE *f = fopen("/tmp/prutor-left", "w"); if (f) { fputs("x", f); fclose(f); }
  int id = shmget(0x5eed, 4096, IPC_CREAT | 0600); if (id >= 0) { char *p = shmat(id, 0, 0); if (p != (void *)-1) strcpy(p, "x"); }
  return 0;
}'
program reader '#include <stdio.h>
#include <sys/ipc.h>
#include <sys/shm.h>
int main(void) { int n = 0; if (fopen("/tmp/prutor-left", "r")) n |= 1; if (shmget(0x5eed, 0, 0) >= 0) n |= 2; printf("%d\n", n); return 0; }'
program fill '#include <signal.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  /* every writable place of the ns sandbox is a capped tmpfs; the root and /dev are read-only:
     files of 512 KB (under the file-size limit) until the place is full, in KB */
  static char b[512 << 10]; memset(b, 1, sizeof b);
  signal(SIGXFSZ, SIG_IGN);
  const char *dirs[] = {"/dev/shm", "/box", "", "/dev"};
  for (int k = 0; k < 4; k++) {
    long kb = 0; char p[64];
    for (int i = 0; i < 64; i++) {
      snprintf(p, sizeof p, "%s/f%d", dirs[k], i);
      FILE *f = fopen(p, "w"); if (!f) break;
      size_t n = fwrite(b, 1, sizeof b, f); int bad = fclose(f) != 0;
      kb += (long)n / 1024; if (bad || n < sizeof b) break;
    }
    printf("%s %ld\n", dirs[k][0] ? dirs[k] : "/", kb);
  }
  return 0;
}'
# [ns] is the launcher's own namespaces where root may make them (this host), [bwrap] the
# same view made by bubblewrap in a user namespace (containers, or a box line ending "bwrap")
# where root may make namespaces (as here) the launcher must make them itself
ns_via=$(unshare --mount --pid --ipc --uts --fork true 2>/dev/null && echo direct || echo bwrap)
box_line() { # the test box's line in the launcher's config, ending "bwrap" or not
  sed "s|^box $box \([0-9]*\) \([0-9]*\).*|box $box \1 \2$1|" /etc/prutor/sandbox.conf | write_conf
}
pin_line() { # the config's pin_cpus line: "pin_cpus 0" or none (the test's own; cleanup drops it)
  { grep -v "^pin_cpus " /etc/prutor/sandbox.conf; [ -z "$1" ] || echo "$1"; } | write_conf
}
for mode in ns bwrap plain; do
  via=$mode
  if [ "$mode" = bwrap ]; then box_line " bwrap"; mode=ns; fi
  place echo
  want=$([ "$via" = ns ] && echo "$ns_via" || echo "$via")
  check "[$via] the sandbox is made by $want" \
    bash -c "$(declare -f as_engine box_cmd status_of place); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot bin); status_of $mode echo | grep -q '\"via\":\"$want\"'"
  if [ "$via" != plain ]; then
    check "[$via] the status line says the cgroups this host has ($cg_mode)" \
      bash -c "$(declare -f as_engine box_cmd status_of place); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot bin); status_of $mode echo | grep -q '\"cgroups\":\"$cg_mode\"'"
  fi
  check "[$via] a socket is a forbidden system call (SIGSYS)" \
    bash -c "$(declare -f as_engine box_cmd status_of place); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot bin); status_of $mode net | grep -q '\"signal\":31'"
  check "[$via] an infinite loop is stopped by the CPU limit" \
    bash -c "$(declare -f as_engine box_cmd status_of place); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot bin); status_of $mode loop | grep -Eq '\"signal\":(24|9)|\"status\":\"timeout\"'"
  check "[$via] /etc/shadow cannot be read" \
    bash -c "$(declare -f as_engine box_cmd status_of place); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot bin); status_of $mode shadow | grep -q '\"exit\":4'"
  check "[$via] a program that closes its output is waited for: its exit code" \
    bash -c "$(declare -f as_engine box_cmd status_of place); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot bin); status_of $mode quiet | grep -q '\"status\":\"exited\",\"exit\":7,'"
  check "[$via] a program that closes its output and sleeps is stopped at the wall clock" \
    bash -c "$(declare -f as_engine box_cmd status_of place); $(declare -p LAUNCHER CPU_MS WALL_MS MEMORY_KB FILE_SIZE_KB NPROC NOFILE OUTPUT_BYTES slot bin); status_of $mode mute | grep -q '\"status\":\"timeout\"'"
  status_of $mode spawn >/dev/null
  check "[$via] a background child is killed when the run ends" no_leftovers
  stdout_of $mode writer >/dev/null
  check "[$via] a file in /tmp and System V shared memory do not outlive the run" test "$(stdout_of $mode reader)" = 0
  [ "$via" = bwrap ] && box_line ""
done
program netns '#include <stdio.h>
#include <unistd.h>
int main(void) { char b[64] = ""; readlink("/proc/self/ns/net", b, sizeof b - 1); puts(b); return 0; }'
if findmnt -n /run/prutor/netns >/dev/null 2>&1 && grep -q "^netns /run/prutor/netns" /etc/prutor/sandbox.conf; then
  check "[ns] a sandbox joins the shared empty network namespace (no new one per launch)" \
    test "$(stdout_of ns netns)" = "net:[$(stat -L -c %i /run/prutor/netns)]"
fi
# compile-run: the compile, then the run in a fresh view, in one launch (direct namespaces only)
io=$root/io   # the engine's side of the launcher's files
mkdir -p "$io" && chown www-data "$io"
pair() { # source, stdin: runs compile-run in the slot; the status line in $io/pair.json, outputs beside it
  printf '%s\n' "$1" > "$slot/main.c"
  chown www-data "$slot/main.c"
  as_engine "printf '%s' '$2' | $LAUNCHER compile-run $slot 10000 20000 262144 65536 64 128 65536 ns - -- /usr/bin/gcc -O2 -Wall -o prog main.c -- $CPU_MS $WALL_MS $MEMORY_KB $FILE_SIZE_KB $NPROC $NOFILE $OUTPUT_BYTES ./prog 3>$io/pair.json 4>$io/pair.cout >$io/pair.out 2>$io/pair.err"
}
if [ "$ns_via" = direct ]; then
  pair '#include <stdio.h>
#include <dirent.h>
int main(void) { int unused; char s[32]; DIR *d = opendir("/box"); struct dirent *e;
  while ((e = readdir(d))) if (e->d_name[0] != 0x2e) printf("%s ", e->d_name);
  printf("| %s | %s\n", fopen("/box/main.c", "r") ? "source" : "no source", scanf("%31s", s) == 1 ? s : "no input"); return 0; }' 'word'
  check "[ns] compile-run: the run sees only its binary, and its input" test "$(cat "$io/pair.out")" = "prog | no source | word"
  check "[ns] compile-run: the compiler's output is on fd 4, not the run's stderr" \
    bash -c "grep -q unused '$io/pair.cout' && ! test -s '$io/pair.err'"
  check "[ns] compile-run: the compiled binary stays in the slot for the cache" test "$(ls -A "$slot")" = prog
  rm -f "$slot/prog"
  pair '#include <stdlib.h>
#include <string.h>
int main(void) { for (int i = 0; i < 32; i++) { char *p = malloc(4 << 20); if (!p) return 3; memset(p, 1, 4 << 20); } return 0; }' ''
  check "[ns] compile-run: the run has the run's memory limit (64 MB), not the compile's" \
    bash -c "grep -q '\"status\":\"signaled\".*\"oom\":1' '$io/pair.json' && grep -q '\"compile\":{\"status\":\"exited\",\"exit\":0' '$io/pair.json'"
  rm -f "$slot/prog"
  # page cache the compile leaves charged to the slot's cgroup (on a fresh host: cc1 and the
  # headers, read there first; here a 40 MB file the compile writes) is not the run's memory
  printf 'int main(void) { return 0; }\n' > "$slot/main.c"
  chown www-data "$slot/main.c"
  as_engine "$LAUNCHER compile-run $slot 10000 20000 262144 65536 64 128 65536 ns - -- /usr/bin/sh -c 'head -c 40000000 /dev/zero > cache && exec /usr/bin/gcc -O2 -o prog main.c' -- $CPU_MS $WALL_MS $MEMORY_KB $FILE_SIZE_KB $NPROC $NOFILE $OUTPUT_BYTES ./prog 3>$io/pair.json 4>/dev/null </dev/null"
  check "[ns] compile-run: the run's memory figures are its own, not the compile's page cache" \
    awk -F'"peak_kb":' '{ split($2, run, ","); split($3, compile, ",") } END { exit !(run[1] >= 0 && run[1] < 8000 && compile[1] > 39000) }' "$io/pair.json"
  rm -f "$slot/prog"
  pair 'int main(void) { return x; }' ''
  check "[ns] compile-run: a rejected compile is not run" \
    bash -c "grep -q '\"status\":\"not_run\"' '$io/pair.json' && grep -q 'undeclared' '$io/pair.cout' && test -z \"\$(ls -A '$slot')\""
fi
box_line " bwrap"
pair 'int main(void) { return 0; }' ''
check "[bwrap] compile-run is refused as unsupported, the slot left as it was" \
  bash -c "grep -q '\"status\":\"unsupported\"' '$io/pair.json' && test \"\$(ls -A '$slot')\" = main.c"
box_line ""
rm -f "$slot/main.c"

# One CPU per sandbox (sandbox/README.md): prints its CPUs, tries to take every CPU, prints
# what it has then; it first sleeps the milliseconds given on stdin (to overlap two runs)
program cpus '#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
static void list(void) { cpu_set_t s; sched_getaffinity(0, sizeof s, &s); const char *sep = "";
  for (int c = 0; c < CPU_SETSIZE; c++) if (CPU_ISSET(c, &s)) { printf("%s%d", sep, c); sep = ","; } }
int main(void) { int ms = 0; if (scanf("%d", &ms) == 1) usleep(ms * 1000);
  printf("cpus="); list(); cpu_set_t all; CPU_ZERO(&all); for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);
  int r = sched_setaffinity(0, sizeof all, &all); printf(" widen=%s after=", r == 0 ? "ok" : errno == EPERM ? "EPERM" : "other"); list();
  puts(""); return 0; }'
cpus_in() { # slot dir, sleep ms: the cpus program's stdout, then its status line
  install -o www-data -m 0755 "$bin/cpus" "$1/prog"
  echo "$2" | as_engine "$(box_cmd run ns "$1" ./prog) 3>&1 2>/dev/null"
}
# what the launcher may use (it inherits this shell's set), as "0,1,2,3"
all_cpus=$(taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }' | paste -sd,)
if [ "$(nproc)" -lt 2 ]; then
  echo "skip one CPU per sandbox: this host has one CPU ($all_cpus)"
elif grep -q "^pin_cpus 0" /etc/prutor/sandbox.conf; then
  echo "skip one CPU per sandbox: turned off on this host (pin_cpus 0 in /etc/prutor/sandbox.conf)"
else
  one=$(cpus_in "$slot" 0)
  cpu=$(sed -n 's/^cpus=\([0-9]*\) .*/\1/p' <<<"$one")
  check "[ns] a sandbox runs on one CPU of its own, the one its status line names" \
    bash -c "[ -n '$cpu' ] && grep -q '\"on_cpu\":$cpu[,}]' <<<'$one'"
  check "[ns] a sandbox cannot widen its CPU set (sched_setaffinity refused)" \
    grep -q "^cpus=$cpu widen=EPERM after=$cpu\$" <<<"$one"
  cpus_in "$box/$((FIRST_SLOT + 1))" 600 > "$root/cpus2" &
  sleep 0.2
  first=$(cpus_in "$slot" 0 | sed -n 's/^cpus=\([^ ]*\) .*/\1/p')
  wait
  second=$(sed -n 's/^cpus=\([^ ]*\) .*/\1/p' "$root/cpus2")
  check "two sandboxes at once run on different CPUs ($first and $second)" \
    bash -c "[[ '$first' =~ ^[0-9]+\$ && '$second' =~ ^[0-9]+\$ && '$first' != '$second' ]]"
  # every CPU claimed (as by as many running sandboxes): the next sandbox floats, still confined
  holders=()
  for c in ${all_cpus//,/ }; do
    flock -n "/run/prutor/cpu/$c" sleep 3 &
    holders+=($!)
  done
  sleep 0.3
  floating=$(cpus_in "$slot" 0)
  kill "${holders[@]}" 2>/dev/null
  wait "${holders[@]}" 2>/dev/null
  check "[ns] when every CPU is claimed a sandbox floats over all of them" \
    bash -c "grep -q '^cpus=$all_cpus widen=EPERM' <<<'$floating' && grep -q '\"on_cpu\":-1[,}]' <<<'$floating'"
  pin_set_here=yes
  pin_line "pin_cpus 0"
  unpinned=$(cpus_in "$slot" 0)
  pin_line ""
  pin_set_here=no
  check "[ns] \"pin_cpus 0\" in the config: sandboxes float" \
    bash -c "grep -q '^cpus=$all_cpus ' <<<'$unpinned' && grep -q '\"on_cpu\":-1[,}]' <<<'$unpinned'"
fi
rm -f "$slot/prog" "$box/$((FIRST_SLOT + 1))/prog"

# the cap is 2 x (FILE_SIZE_KB + 1 MB) = 4 MB here
fill=$(stdout_of ns fill)
capped() { awk -v d="$1" -v lo="$2" -v hi="$3" '$1 == d { ok = ($2 >= lo && $2 <= hi) } END { exit !ok }' <<<"$fill"; }
check "[ns] /dev/shm is a tmpfs capped at 4 MB" capped /dev/shm 1 4096
check "[ns] the run's /box is a tmpfs capped at 4 MB" capped /box 1 4096
check "[ns] the root and /dev are read-only" bash -c "$(declare -f capped); fill='$fill'; capped / 0 0 && capped /dev 0 0"

# The seccomp allow-list (src/syscalls.h): each refused family, tried by a program that makes
# the call with harmless arguments, must end the step with SIGSYS (the verdict
# forbidden_syscall); calls outside the list fail with an errno and the program goes on; the
# real workloads (g++ with <iostream> and <thread>, threads in C, python3 with common
# modules) still compile and run. One launch per call, in the launcher's own namespaces.
program syscalls '#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
/* Each case tries one refused call with harmless arguments (had the filter let it through,
   it would fail anyway: no privilege, bad pointers, no such file); the sandbox must kill it
   (SIGSYS) before the call returns. Without an argument: calls refused with an errno, and
   calls allowed only with some arguments, each printed as name=errno name */
static long sys(long nr, long a, long b, long c, long d, long e) { return syscall(nr, a, b, c, d, e, 0); }
static const char *err(long r) { return r >= 0 ? "ok" : errno == ENOSYS ? "ENOSYS" : errno == EPERM ? "EPERM" : errno == EACCES ? "EACCES" : errno == ENOTTY ? "ENOTTY" : errno == EINVAL ? "EINVAL" : strerror(errno); }
int main(int argc, char **argv)
{
    if (argc < 2) {
        int fds[2], n = 0;
        cpu_set_t all; CPU_ZERO(&all); CPU_SET(0, &all);
        printf("unlisted=%s", err(sys(SYS_inotify_init1, 0, 0, 0, 0, 0)));
        printf(" unknown=%s", err(sys(1000, 0, 0, 0, 0, 0)));
        printf(" clone3=%s", err(sys(SYS_clone3, 0, 0, 0, 0, 0)));
        printf(" setuid=%s", err(sys(SYS_setuid, 0, 0, 0, 0, 0)));
        printf(" chmod=%s", err(chmod("/tmp", 0777)));
        printf(" affinity=%s", err(sched_setaffinity(0, sizeof all, &all)));
        printf(" unix_socket=%s", err(socket(AF_UNIX, SOCK_STREAM, 0)));
        printf(" ioctl=%s", err(ioctl(0, TIOCSCTTY, 0)));
        printf(" prctl=%s", err(prctl(PR_SET_PTRACER, 1, 0, 0, 0)));
        printf(" persona=%s", err(personality(0xffffffff)));
        printf(" socketpair=%s", err(socketpair(AF_UNIX, SOCK_STREAM, 0, fds)));
        printf(" fionread=%s", err(ioctl(fds[0], FIONREAD, &n)));
        printf(" name=%s", err(prctl(PR_SET_NAME, "student", 0, 0, 0)));
        pid_t p = fork();
        if (p == 0) _exit(0);
        printf(" fork=%s\n", err(p < 0 ? -1 : waitpid(p, NULL, 0)));
        return 0;
    }
    const char *c = argv[1];
    struct iovec v = {0};
    long r = -2;
    if (!strcmp(c, "ptrace")) r = sys(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0, 0);
    else if (!strcmp(c, "process_vm_readv")) r = sys(SYS_process_vm_readv, 1, (long)&v, 1, (long)&v, 1);
    else if (!strcmp(c, "pidfd_getfd")) r = sys(SYS_pidfd_getfd, -1, 0, 0, 0, 0);
    else if (!strcmp(c, "keyctl")) r = sys(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0, 0, 0);
    else if (!strcmp(c, "add_key")) r = sys(SYS_add_key, 0, 0, 0, 0, 0);
    else if (!strcmp(c, "bpf")) r = sys(SYS_bpf, 0, 0, 0, 0, 0);
    else if (!strcmp(c, "perf_event_open")) r = sys(SYS_perf_event_open, 0, 0, -1, -1, 0);
    else if (!strcmp(c, "userfaultfd")) r = sys(SYS_userfaultfd, 0, 0, 0, 0, 0);
    else if (!strcmp(c, "mount")) r = sys(SYS_mount, (long)"none", (long)"/nonexistent", (long)"tmpfs", 0, 0);
    else if (!strcmp(c, "umount2")) r = sys(SYS_umount2, (long)"/nonexistent", 0, 0, 0, 0);
    else if (!strcmp(c, "chroot")) r = sys(SYS_chroot, (long)"/nonexistent", 0, 0, 0, 0);
    else if (!strcmp(c, "pivot_root")) r = sys(SYS_pivot_root, (long)"/nonexistent", (long)"/nonexistent", 0, 0, 0);
    else if (!strcmp(c, "fsopen")) r = sys(SYS_fsopen, (long)"nonexistent", 0, 0, 0, 0);
    else if (!strcmp(c, "open_tree")) r = sys(SYS_open_tree, -1, (long)"/nonexistent", 0, 0, 0);
    else if (!strcmp(c, "unshare")) r = sys(SYS_unshare, CLONE_NEWUSER, 0, 0, 0, 0);
    else if (!strcmp(c, "setns")) r = sys(SYS_setns, -1, 0, 0, 0, 0);
    else if (!strcmp(c, "clone_newuser")) r = sys(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    else if (!strcmp(c, "clone_newnet")) r = sys(SYS_clone, CLONE_NEWNET | SIGCHLD, 0, 0, 0, 0);
    else if (!strcmp(c, "init_module")) r = sys(SYS_init_module, 0, 0, (long)"", 0, 0);
    else if (!strcmp(c, "finit_module")) r = sys(SYS_finit_module, -1, (long)"", 0, 0, 0);
    else if (!strcmp(c, "kexec_load")) r = sys(SYS_kexec_load, 0, 0, 0, -1, 0);
    else if (!strcmp(c, "reboot")) r = sys(SYS_reboot, 0, 0, 0, 0, 0);
    else if (!strcmp(c, "swapon")) r = sys(SYS_swapon, (long)"/nonexistent", 0, 0, 0, 0);
    else if (!strcmp(c, "personality")) r = personality(ADDR_NO_RANDOMIZE);
    else if (!strcmp(c, "personality_high")) r = sys(SYS_personality, 0x100000000L | ADDR_NO_RANDOMIZE, 0, 0, 0, 0);
    else if (!strcmp(c, "io_uring_setup")) r = sys(SYS_io_uring_setup, 0, 0, 0, 0, 0);
    else if (!strcmp(c, "open_by_handle_at")) r = sys(SYS_open_by_handle_at, -1, 0, 0, 0, 0);
    else if (!strcmp(c, "name_to_handle_at")) r = sys(SYS_name_to_handle_at, -1, (long)"/nonexistent", 0, 0, 0);
    else if (!strcmp(c, "settimeofday")) r = sys(SYS_settimeofday, 0, 0, 0, 0, 0);
    else if (!strcmp(c, "clock_settime")) r = sys(SYS_clock_settime, -1, 0, 0, 0, 0);
    else if (!strcmp(c, "sethostname")) r = sys(SYS_sethostname, 0, 100000, 0, 0, 0);
    else if (!strcmp(c, "iopl")) r = sys(SYS_iopl, 0, 0, 0, 0, 0);
    else if (!strcmp(c, "socket_inet")) r = socket(AF_INET, SOCK_STREAM, 0);
    else if (!strcmp(c, "socket_netlink")) r = socket(AF_NETLINK, SOCK_RAW, 0);
    else if (!strcmp(c, "socketpair_inet")) { int fds[2]; r = socketpair(AF_INET, SOCK_STREAM, 0, fds); }
    else if (!strcmp(c, "sendto")) r = sys(SYS_sendto, -1, 0, 0, 0, 0);
    else if (!strcmp(c, "tiocsti")) { r = ioctl(0, TIOCSTI, "x"); }
    else if (!strcmp(c, "execve_again")) r = execl("/usr/bin/true", "true", (char *)0);
    else if (!strcmp(c, "execveat")) r = sys(SYS_execveat, -1, (long)"", 0, 0, 0x1000 /* AT_EMPTY_PATH */);
#if defined(__x86_64__)
    else if (!strcmp(c, "i386")) __asm__ volatile("int $0x80" : "=a"(r) : "a"(20L /* getpid */) : "memory");
    else if (!strcmp(c, "x32")) __asm__ volatile("syscall" : "=a"(r) : "a"(0x40000000L + SYS_getpid) : "rcx", "r11", "memory");
#endif
    printf("%s survived: %ld (%s)\n", c, r, r == -2 ? "unknown case" : strerror(errno));
    return 0;
}'
seccomp_families=(
  "trace:ptrace process_vm_readv pidfd_getfd" "keyring:keyctl add_key" "bpf:bpf" "perf:perf_event_open"
  "userfaultfd:userfaultfd" "mount:mount umount2 chroot pivot_root fsopen open_tree"
  "namespaces:unshare setns clone_newuser clone_newnet" "modules:init_module finit_module" "kexec:kexec_load"
  "reboot:reboot" "swap:swapon" "personality:personality personality_high" "io_uring:io_uring_setup"
  "file_handles:open_by_handle_at name_to_handle_at" "clock:settimeofday clock_settime" "host:sethostname"
  "io_ports:iopl" "sockets:socket_inet socket_netlink socketpair_inet sendto" "tty:tiocsti"
  "exec:execve_again execveat" "non-native ABI:i386 x32")
# a family added to the table's kill list needs its case here
table_families=$(sed -n '/define SYSCALLS_KILL/,/^$/p' "$HERE/src/syscalls.h" | grep -o 'X([a-z_]*,' | sed 's/X(//; s/,//' | sort -u)
untested=""
for f in $table_families; do printf '%s\n' "${seccomp_families[@]%%:*}" | grep -qx "$f" || untested="$untested $f"; done
check "every family src/syscalls.h kills has a case here${untested:+ (untested:$untested)}" test -n "$table_families" -a -z "$untested"
# every call in one shell of the engine user, which places the program before each run (as the engine does)
seccomp_status=$(as_engine "for call in $(printf '%s ' "${seccomp_families[@]#*:}"); do
  cp '$bin/syscalls' '$slot/prog' && chmod 0755 '$slot/prog' && printf '%s ' \$call
  $(box_cmd run ns "$slot" ./prog '$call') 3>&1 >/dev/null 2>/dev/null </dev/null
done")
for entry in "${seccomp_families[@]}"; do
  family=${entry%%:*} calls=${entry#*:}
  missed=""
  for call in $calls; do
    grep -q "^$call {\"status\":\"signaled\",\"exit\":-\{0,1\}[0-9]*,\"signal\":31," <<<"$seccomp_status" || missed="$missed $call"
  done
  check "[ns] seccomp kills the $family family ($calls)${missed:+; survived:$missed}" test -z "$missed"
done
# the other two profiles kill too: the compile step (where Jobe's runs run) and python3's run
compile_status=$(as_engine "for call in ptrace socket_inet unshare bpf io_uring_setup i386; do
  cp '$bin/syscalls' '$slot/prog' && chmod 0755 '$slot/prog' && printf '%s ' \$call
  $(CPU_MS=10000 WALL_MS=20000 NPROC=64 NOFILE=128 box_cmd compile ns "$slot" ./prog '$call') 3>&1 >/dev/null 2>/dev/null </dev/null
done")
check "[ns] seccomp kills in the compile step too (ptrace, socket, unshare, bpf, io_uring, int 0x80)" \
  test "$(grep -c '^[a-z_0-9]* {"status":"signaled","exit":-\{0,1\}[0-9]*,"signal":31,' <<<"$compile_status")" = 6
rm -f "$slot/prog"
py_killed=$(as_engine "$(box_cmd run ns "$slot" /usr/bin/python3 -S -c '"import ctypes; ctypes.CDLL(None).unshare(0x10000000)"') 3>&1 >/dev/null 2>&1 </dev/null")
check "[ns] seccomp kills in python3's run step too (unshare through ctypes)" grep -q '"status":"signaled",.*"signal":31,' <<<"$py_killed"
errnos="unlisted=ENOSYS unknown=ENOSYS clone3=ENOSYS setuid=ENOSYS chmod=ENOSYS affinity=EPERM unix_socket=EACCES ioctl=ENOTTY prctl=EINVAL persona=ok socketpair=ok fionread=ok name=ok fork=ok"
for mode in ns plain; do
  got=$(stdout_of $mode syscalls)
  check "[$mode] seccomp: an unlisted call fails (ENOSYS, an AF_UNIX socket EACCES, ...), the program goes on${got:+ ($got)}" \
    test "$got" = "$errnos"
done
compiled() { # name, source file, source, compiler argv: compiled in the slot with a compiler's limits, kept in $bin
  local name=$1 file=$2 src=$3; shift 3
  printf '%s\n' "$src" > "$slot/$file"
  chown www-data "$slot/$file"
  as_engine "$(CPU_MS=20000 WALL_MS=40000 MEMORY_KB=524288 FILE_SIZE_KB=65536 NPROC=64 NOFILE=128 box_cmd compile ns "$slot" "$@") 3>/dev/null" >/dev/null 2>&1
  [ -f "$slot/prog" ] && install -m 0755 "$slot/prog" "$bin/$name" && rm -f "$slot/prog"
}
compiled cxx main.cpp '#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
int main() { std::mutex m; long sum = 0; std::vector<std::thread> ts;
  for (int i = 1; i <= 4; i++) ts.emplace_back([&, i] { std::lock_guard<std::mutex> g(m); sum += i; });
  for (auto &t : ts) t.join();
  std::string s; std::cin >> s; std::cout << s << " " << sum << std::endl; return 0; }' /usr/bin/g++ -std=c++17 -O2 -o prog main.cpp
check "[ns] seccomp: g++ compiles <iostream> and <thread>, the program runs its threads" \
  test "$(place cxx && as_engine "echo word | $(box_cmd run ns "$slot" ./prog) 2>/dev/null 3>/dev/null")" = "word 10"
compiled threads main.c '#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
static void *work(void *a) { long n = (long)a, s = 0; char *p = malloc(1 << 20); memset(p, 1, 1 << 20);
  for (long i = 0; i < (1 << 20); i++) s += p[i]; free(p); usleep(1000); return (void *)(s * n); }
int main(void) { pthread_t t[4]; long total = 0; void *r;
  for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, work, (void *)(i + 1));
  for (int i = 0; i < 4; i++) { pthread_join(t[i], &r); total += (long)r; }
  pid_t p = fork(); if (p == 0) _exit(3); int st; waitpid(p, &st, 0);
  printf("%ld %d\n", total >> 20, WEXITSTATUS(st)); return 0; }' /usr/bin/gcc -O2 -pthread -o prog main.c
check "[ns] seccomp: a multi-threaded C program (threads, malloc, sleep, fork) runs" test "$(stdout_of ns threads)" = "10 3"
py='import asyncio, bisect, collections, dataclasses, datetime, decimal, fractions, functools, hashlib, heapq, itertools, json, math, os, random, re, shutil, statistics, string, sys, tempfile, threading, typing
async def twice(x):
    await asyncio.sleep(0.001)
    return 2 * x
word = input()
t = threading.Thread(target=lambda: None); t.start(); t.join()
with tempfile.TemporaryDirectory() as d:
    open(os.path.join(d, "a"), "w").write(word)
    shutil.copy(os.path.join(d, "a"), os.path.join(d, "b"))
    copied = open(os.path.join(d, "b")).read()
print(word, copied, asyncio.run(twice(21)), math.isqrt(17), json.dumps({"k": [1]}), decimal.Decimal("0.1") + decimal.Decimal("0.2"),
      fractions.Fraction(1, 3) * 3, statistics.median([3, 1, 2]), hashlib.sha1(b"").hexdigest()[:6], len(re.findall("a", "banana")))'
printf '%s\n' "$py" > "$slot/main.py"
chown www-data "$slot/main.py"
compiled_py=$(as_engine "$(CPU_MS=10000 WALL_MS=20000 NPROC=64 NOFILE=128 box_cmd compile ns "$slot" /usr/bin/python3 -S -m py_compile main.py) 3>&1 >/dev/null 2>&1")
check "[ns] seccomp: python3 compiles (py_compile) in the compile step" grep -q '"status":"exited","exit":0,' <<<"$compiled_py"
printf '%s\n' "$py" > "$bin/python"
# the interpreter's own limits, as for a compile: its imports take seconds of CPU under
# software emulation (tests/guest/), and their pages count against a v2 step's memory
check "[ns] seccomp: python3 runs with site, threads, asyncio, tempfile, shutil (the interpreter's run step)" \
  test "$(place python && as_engine "echo word | $(CPU_MS=10000 WALL_MS=20000 MEMORY_KB=262144 box_cmd run ns "$slot" /usr/bin/python3 -BE prog) 2>/dev/null 3>/dev/null")" = "word word 42 4 {\"k\": [1]} 0.3 1 2 da39a3 3"
rm -f "$slot/prog" "$slot/main.py" "$slot/main.cpp" "$slot/main.c"

check "the engine user's probe says the cgroups too ($cg_mode)" \
  bash -c "$(declare -f as_engine); as_engine '$LAUNCHER probe $slot 3>&1' | grep -q '\"cgroups\":\"$cg_mode\"'"
if [ "$cg_mode" = v2 ]; then
  check "[v2] setup-box.sh delegated a subtree with memory and pids ($cg2_dir)" \
    bash -c "[ -n '$cg2_dir' ] && grep -qw memory '$cg2_dir/cgroup.subtree_control' && grep -qw pids '$cg2_dir/cgroup.subtree_control'"
  leaves=$(find "$cg2_dir/box$FIRST_SLOT" -mindepth 1 -type d -printf '%f ' 2>/dev/null)
  check "[v2] no step's leaf is left behind, a refused compile-run's included (box$FIRST_SLOT holds: ${leaves:-nothing})" \
    bash -c "[ -d '$cg2_dir/box$FIRST_SLOT' ] && [ -z '$leaves' ]"
fi

# A slot is a capped tmpfs; a step that writes file after file into its
# /box stops at the cap with ENOSPC and the host's disk does not fill
check "a slot dir is a tmpfs of SANDBOX_SLOT_MB ($SLOT_MB MB here), not the host's disk" \
  bash -c "[ \"\$(findmnt -n -o FSTYPE --mountpoint '$slot')\" = tmpfs ] && [ \"\$(df -k --output=size '$slot' | tail -1 | tr -d ' ')\" = $((SLOT_MB * 1024)) ]"
disk_before=$(df -k --output=used "$root" | tail -1)   # the disk the box root is on
as_engine "$LAUNCHER compile $slot 10000 20000 262144 2048 8 16 65536 ns - -- /usr/bin/sh -c 'i=0; while head -c 1048576 /dev/zero > f\$i; do i=\$((i + 1)); done; echo \$i MB' 3>$io/fill.json >$io/fill.out 2>&1 </dev/null"
disk_after=$(df -k --output=used "$root" | tail -1)
check "a step writing into its slot stops with ENOSPC at the cap ($(grep -o '^[0-9]* MB' "$io/fill.out") written)" \
  bash -c "grep -q 'No space left on device' '$io/fill.out' && n=\$(grep -o '^[0-9]* MB' '$io/fill.out' | cut -d' ' -f1) && [ \"\$n\" -ge $((SLOT_MB - 2)) ] && [ \"\$n\" -le $((SLOT_MB + 1)) ]"
check "... and the disk under the box root is untouched ($(( (disk_after - disk_before) / 1024 )) MB more used)" \
  test $((disk_after - disk_before)) -lt 4096
check "... and the slot is emptied after the step" test -z "$(ls -A "$slot")"

# Verdict cases: what the engine would make of each status line (its mapping, Verdict::fromRun
# in engine/src/Verdict.php, for these limits). tests/guest/ compares them, case by case, between
# a cgroup v2 guest and this (v1) host.
verdict_of() { # a status line on stdin: the engine's verdict
  jq -r --argjson mem "$MEMORY_KB" --argjson cpu "$CPU_MS" '
    (.oom > 0) as $oom | (([.peak_kb, .mem_kb] | max) >= ($mem * 0.95 | floor)) as $near |
    if .status == "timeout" then "time_limit"
    elif .status == "output_limit" then "output_limit"
    elif .status == "signaled" then
      if .signal == 24 then "time_limit" elif .signal == 25 then "output_limit"
      elif .signal == 31 then "forbidden_syscall" elif $oom or $near then "memory_limit"
      elif .signal == 9 and .cpu_ms >= $cpu then "time_limit" else "runtime_error" end
    elif .status == "exited" then
      if $oom then "memory_limit" elif .cpu_ms > $cpu then "time_limit"
      elif .exit == 0 then "accepted" else "runtime_error" end
    else "internal_error" end'
}
verdict_case() { # case name, program, expected verdict, what it tries
  local st v
  st=$(status_of ns "$2")
  v=$(verdict_of <<<"$st")
  [ -n "$verdicts" ] && jq -r --arg c "$1" --arg v "$v" \
    '"\($c) \($v) status=\(.status) exit=\(.exit) signal=\(.signal) oom=\(.oom) cpu_limit=\(.cpu_limit) cpu_ms=\(.cpu_ms) peak_kb=\(.peak_kb) stdout=\(.stdout_bytes) cgroups=\(.cgroups)"' \
    <<<"$st" >> "$verdicts"
  check "[verdict] $4: $3 (got $v)" test "$v" = "$3"
}
program hello 'int main(void) { return 0; }'
# (touch() writes every page through a volatile pointer: gcc may drop a malloc and memset
# whose memory is never read)
touch_c='#include <stdlib.h>
static int touch(size_t n) { volatile char *p = malloc(n); if (!p) return 3; for (size_t i = 0; i < n; i += 4096) p[i] = 1; return 0; }'
program memory "$touch_c"'
int main(void) { for (int i = 0; i < 32; i++) if (touch(4 << 20)) return 3; return 0; }'
# 1 GB: within the guest's memory (tests/guest/), whose overcommit heuristic refuses more
program bigalloc "$touch_c"'
int main(void) { return touch((size_t)1 << 30); }'
program procmem "$touch_c"'
#include <sys/wait.h>
#include <unistd.h>
/* four processes of 24 MB each: 96 MB in all against a 64 MB limit for the whole step */
int main(void) { for (int i = 0; i < 4; i++) if (fork() == 0) { if (touch(24 << 20)) _exit(3); sleep(2); _exit(0); }
  int st, bad = 0; while (wait(&st) > 0) if (!WIFEXITED(st) || WEXITSTATUS(st)) bad = 1; return bad ? 4 : 0; }'
program forks '#include <stdio.h>
#include <unistd.h>
/* forks until refused: exit 3 when a fork was refused (the process limit), 0 if 64 went through */
int main(void) { for (int i = 0; i < 64; i++) { pid_t p = fork(); if (p == 0) { sleep(2); _exit(0); } if (p < 0) { printf("%d\n", i); return 3; } } return 0; }'
program threads '#include <pthread.h>
static void *spin(void *a) { for (;;) ; return a; }
int main(void) { pthread_t t; for (int i = 0; i < 3; i++) pthread_create(&t, 0, spin, 0); spin(0); }'
program flood '#include <stdio.h>
int main(void) { for (;;) puts("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); }'
program bigfile '#include <stdio.h>
#include <string.h>
int main(void) { static char b[1 << 20]; memset(b, 1, sizeof b); FILE *f = fopen("/tmp/big", "w"); if (!f) return 3;
  for (int i = 0; i < 2; i++) fwrite(b, 1, sizeof b, f); fclose(f); return 0; }'
program segv 'int main(void) { volatile int *p = 0; return *p; }'
verdict_case ok hello accepted "a program that exits 0"
if [ "$cg_mode" = none ]; then
  echo "SKIP [verdict] memory, bigalloc, procmem: no cgroups on this host (memory is bound per process by RLIMIT_AS)"
else
  verdict_case memory memory memory_limit "128 MB touched against 64 MB (OOM kill)"
  verdict_case bigalloc bigalloc memory_limit "a 1 GB allocation touched"
  verdict_case procmem procmem memory_limit "four processes of 24 MB (memory counted for the step)"
fi
verdict_case forks forks runtime_error "forking past the process limit is refused (exit 3)"
verdict_case cpu loop time_limit "an infinite loop"
verdict_case threads threads time_limit "four threads spinning (the step's CPU, counted together)"
verdict_case wall mute time_limit "sleeping past the wall clock"
verdict_case output flood output_limit "writing past the output cap"
verdict_case fsize bigfile output_limit "a file past the file-size limit (SIGXFSZ)"
verdict_case segv segv runtime_error "a null pointer dereference"
verdict_case syscall net forbidden_syscall "a socket (SIGSYS)"

if [ "$cg_mode" = v2 ]; then
  # a container's default seccomp profile (Docker's) answers clone3 with ENOSYS: the launcher
  # then starts the step with clone and the step moves itself into its leaf before it runs
  # (run here as root, which may load a filter without no_new_privs, around the setuid launcher)
  gcc -O2 -o "$bin/noclone3" -x c - -lseccomp <<'SRC'
#include <errno.h>
#include <seccomp.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(int argc, char **argv) {
  scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
  if (argc < 2 || !c || seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) || seccomp_load(c)) return 125;
  if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS) return 126;  /* the filter holds */
  execv(argv[1], argv + 1); return 127;
}
SRC
  place memory
  noclone3=$("$bin/noclone3" $(box_cmd run ns "$slot" ./prog) 3>&1 >/dev/null 2>&1 </dev/null)
  check "[v2] where clone3 is refused (ENOSYS) the step still runs in its leaf: 128 MB against 64 MB is an OOM kill" \
    bash -c "grep -q '\"oom\":1,.*\"cgroups\":\"v2\"' <<<'$noclone3'"
fi

echo "sandbox: $passed passed, $failed failed"
[ "$failed" = 0 ]
