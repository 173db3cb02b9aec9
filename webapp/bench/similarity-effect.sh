#!/usr/bin/env bash
# Benchmark (not part of `make test`): does a similarity job slow a running exam?
# Runs `make bench` (webapp plan) ROUNDS times alone and ROUNDS times with the
# similarity benchmark (N submissions, the detector at nice 19 as the webapp runs it)
# started beside it, interleaved (alone, with, alone, with, ...) so that a drift of
# the host's load falls on both; prints each run's average, 99% line and error %,
# and the medians of both sides. The stack must be up (make up).
#   webapp/bench/similarity-effect.sh [USERS=300] [ROUNDS=2] [N=1000]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
USERS=${1:-300}; ROUNDS=${2:-2}; N=${3:-1000}
out=$(mktemp -d)
bench() {  # name -> prints "average p99 error%"
  make -C "$ROOT" -s bench PLAN=webapp USERS="$USERS" > "$out/$1.out" 2>&1 || true
  awk '/^TOTAL/ { print $3, $5, $6 }' "$out/$1.out"
}
printf '%-22s %9s %9s %8s %s\n' run "avg ms" "99% ms" "err %" "similarity job"
alone=(); with=()
for r in $(seq "$ROUNDS"); do
  read -r a p e < <(bench "alone-$r")
  printf '%-22s %9s %9s %8s\n' "alone $r" "$a" "$p" "$e"; alone+=("$p")
  node "$ROOT/webapp/bench/similarity.js" "$N" > "$out/sim-$r.out" 2>&1 &
  sim=$!
  read -r a p e < <(bench "with-$r")
  wait "$sim" || true
  printf '%-22s %9s %9s %8s %s\n' "with similarity $r" "$a" "$p" "$e" "$(grep -oE '"(wall_s|detector_cpu_s)": [0-9.]+' "$out/sim-$r.out" | tr -d '"' | tr '\n' ' ')"; with+=("$p")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
echo "99% line, median of $ROUNDS: alone $(median "${alone[@]}") ms, with a similarity job of $N submissions $(median "${with[@]}") ms"
echo "logs: $out"
