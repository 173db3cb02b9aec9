#!/usr/bin/env bash
# Cost of one sandbox launch (a benchmark, not a test): a compile step, a run step and a
# compile-run (both in one launch, as the engine runs a fresh job) of hello.c through the
# launcher, against the same work without it, per step in ms of wall
# time and CPU time (user + sys of the whole process tree, which depends less on what else
# the machine is doing). Give a second launcher (e.g. one built from an older commit into
# its own SANDBOX_LIBDIR) to compare both in one run, interleaved.
#   sandbox/bench.sh [N] [OTHER_LAUNCHER]        (root; a throwaway box at slot 58)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
N=${1:-30}
LAUNCHERS=("${SANDBOX_LAUNCHER:-/usr/local/lib/prutor/prutor-box}")
[ -n "${2:-}" ] && LAUNCHERS+=("$2")
SLOT=58
root=$(mktemp -d /tmp/prutor-sandbox-bench.XXXXXX)
chmod 0711 "$root"
trap 'grep -v "^box $root/box " /etc/prutor/sandbox.conf > /etc/prutor/.bench && chmod 0600 /etc/prutor/.bench && mv -f /etc/prutor/.bench /etc/prutor/sandbox.conf; umount "$root/box/$SLOT" 2>/dev/null; rm -rf "$root"' EXIT
"$HERE/setup-box.sh" "$root/box" "$SLOT" 1 >/dev/null
slot=$root/box/$SLOT
printf '#include <stdio.h>\nint main(void){puts("hello");return 0;}\n' > "$root/hello.c"
chmod 0644 "$root/hello.c"
GCC="gcc -std=c11 -O2 -Wall"   # one compile line for every row, with and without the sandbox
$GCC -o "$root/prog" "$root/hello.c" -lm   # the run rows' binary
chmod 0755 "$root/prog"

# one measurement: N repetitions of a shell snippet as www-data; prints "wall_ms cpu_ms" per repetition
measure() {
  local t0 t1 c
  t0=$(date +%s%N)
  c=$( { /usr/bin/time -f '%U %S' su -s /bin/bash www-data -c "for i in \$(seq $N); do $1; done" >/dev/null; } 2>&1 | tail -1)
  t1=$(date +%s%N)
  awk -v w=$(( (t1 - t0) / 1000 )) -v n="$N" -v c="$c" 'BEGIN { split(c, a, " "); printf "%6.1f %6.1f", w / 1000 / n, (a[1] + a[2]) * 1000 / n }'
}
# one set of limits per step for every row
COMPILE_LIMITS="10000 20000 1048576 65536 64 128 65536"
RUN_LIMITS="2000 5000 262144 16384 32 64 65536"
compile_run_argv() { echo "$1 compile-run $slot $COMPILE_LIMITS ns - -- /usr/bin/$GCC -o prog main.c -lm -- $RUN_LIMITS ./prog"; }
compile_with() { echo "cp $root/hello.c $slot/main.c && $1 compile $slot $COMPILE_LIMITS ns - -- /usr/bin/$GCC -o prog main.c -lm 3>/dev/null >/dev/null 2>&1; rm -f $slot/prog"; }
compile_run_with() { echo "cp $root/hello.c $slot/main.c && $(compile_run_argv "$1") 3>/dev/null 4>/dev/null >/dev/null 2>&1 </dev/null; rm -f $slot/prog"; }
run_with() { echo "cp $root/prog $slot/prog && $1 run $slot $RUN_LIMITS ns - -- ./prog 3>/dev/null >/dev/null 2>&1 </dev/null"; }
chown www-data "$root"
printf '%-44s %10s %10s\n' "step ($N each)" "wall ms" "cpu ms"
# the rows without the sandbox pay the same cp (and rm) as the launcher's rows: a fork
# and exec each, about 1 ms here, which is not the launcher's cost
printf '%-44s %10s %10s\n' "gcc, no sandbox" $(measure "cp $root/hello.c $root/m.c && $GCC -o $root/p2 $root/m.c -lm; rm -f $root/p2")
for L in "${LAUNCHERS[@]}"; do
  printf '%-44s %10s %10s\n' "compile in $(basename "$(dirname "$L")")" $(measure "$(compile_with "$L")")
done
printf '%-44s %10s %10s\n' "run, no sandbox" $(measure "cp $root/prog $root/p3 && $root/p3 >/dev/null </dev/null")
for L in "${LAUNCHERS[@]}"; do
  printf '%-44s %10s %10s\n' "run in $(basename "$(dirname "$L")")" $(measure "$(run_with "$L")")
done
printf '%-44s %10s %10s\n' "gcc + run, no sandbox" $(measure "cp $root/hello.c $root/m.c && $GCC -o $root/p2 $root/m.c -lm && $root/p2 >/dev/null </dev/null; rm -f $root/p2")
for L in "${LAUNCHERS[@]}"; do
  # a launcher without compile-run (or a host without its namespaces and cgroups) answers
  # "unsupported" before running anything: timing that would say nothing
  cp "$root/hello.c" "$slot/main.c"
  if su -s /bin/bash www-data -c "$(compile_run_argv "$L") 3>&1 4>/dev/null >/dev/null 2>&1 </dev/null" | grep -q '"status":"exited"'; then
    printf '%-44s %10s %10s\n' "compile-run in $(basename "$(dirname "$L")")" $(measure "$(compile_run_with "$L")")
  else
    printf '%-44s %21s\n' "compile-run in $(basename "$(dirname "$L")")" "unsupported"
  fi
  rm -f "$slot/prog" "$slot/main.c"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
