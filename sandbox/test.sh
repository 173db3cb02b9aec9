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

check "the engine user's probe says the cgroups too ($cg_mode)" \
  bash -c "$(declare -f as_engine); as_engine '$LAUNCHER probe $slot 3>&1' | grep -q '\"cgroups\":\"$cg_mode\"'"
if [ "$cg_mode" = v2 ]; then
  check "[v2] setup-box.sh delegated a subtree with memory and pids ($cg2_dir)" \
    bash -c "[ -n '$cg2_dir' ] && grep -qw memory '$cg2_dir/cgroup.subtree_control' && grep -qw pids '$cg2_dir/cgroup.subtree_control'"
  leaves=$(find "$cg2_dir/box$FIRST_SLOT" -mindepth 1 -type d -printf '%f ' 2>/dev/null)
  check "[v2] no step's leaf is left behind, a refused compile-run's included (box$FIRST_SLOT holds: ${leaves:-nothing})" \
    bash -c "[ -d '$cg2_dir/box$FIRST_SLOT' ] && [ -z '$leaves' ]"
fi

# Finding 5 (issue 25): a slot is a capped tmpfs; a step that writes file after file into its
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
