#!/usr/bin/env bash
# Benchmark (not part of `make test`): does a similarity job disturb a running exam?
# Runs `make bench` (the thesis' webapp workload) alone, then the same run with the
# similarity job on N submissions (bench/similarity.js, nice 19, its own process)
# started beside it, and prints the machine's load before each, both runs' tables
# and the job's figures. The machine is shared: compare the two runs, and repeat.
#
#   webapp/bench/similarity-vs-bench.sh            (USERS=200 ITERATIONS=5 N=1000)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
USERS=${USERS:-200}
ITERATIONS=${ITERATIONS:-5}
N=${N:-1000}
OUT=${RESULTS_DIR:-$REPO/results}
mkdir -p "$OUT"
stamp=$(date -u +%Y%m%dT%H%M%SZ)

echo "== baseline: make bench PLAN=webapp USERS=$USERS ITERATIONS=$ITERATIONS; load: $(cut -d' ' -f1-3 /proc/loadavg)"
make -C "$REPO" bench PLAN=webapp USERS="$USERS" ITERATIONS="$ITERATIONS" RUN_NAME="similarity-baseline-$stamp" | tee "$OUT/similarity-baseline-$stamp.txt"

echo "== with the similarity job on $N submissions beside it; load: $(cut -d' ' -f1-3 /proc/loadavg)"
node "$HERE/similarity.js" "$N" > "$OUT/similarity-job-$stamp.json" &
job=$!
make -C "$REPO" bench PLAN=webapp USERS="$USERS" ITERATIONS="$ITERATIONS" RUN_NAME="similarity-concurrent-$stamp" | tee "$OUT/similarity-concurrent-$stamp.txt"
echo "== bench done; the job is still running: $(if kill -0 "$job" 2>/dev/null; then echo yes; else echo no; fi); waiting for it"
wait "$job"
cat "$OUT/similarity-job-$stamp.json"
