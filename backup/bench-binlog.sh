#!/usr/bin/env bash
# The binary log's cost on a save: N autocommitted single-row inserts shaped like the
# editor's save (a code row of ~1 KB) into a scratch server started from this stack's
# own my.cnf (so the same disk, O_DIRECT and innodb_flush_log_at_trx_commit), once
# without the binlog, once with it and sync_binlog=1. Prints the saves/s and the ratio.
#   bash backup/bench-binlog.sh [N=2000] [CLIENTS=8]
# Needs a rendered $PRUTOR_VAR/conf/my.cnf (make up once). Touches nothing of the stack.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PRUTOR_VAR:=$(cd "$HERE/.." && pwd)/var}"
N=${1:-2000} CLIENTS=${2:-8}
MYCNF=$PRUTOR_VAR/conf/my.cnf
[ -f "$MYCNF" ] || { echo "no $MYCNF: run make up once" >&2; exit 1; }
work=$(mktemp -d "$PRUTOR_VAR/mariadb/bench.XXXXXX")
user=$(sed -n 's/^user *= *//p' "$MYCNF" | head -n1)
chown "$user": "$work"
trap 'mariadb-admin --socket="$work/s.sock" --user=root shutdown >/dev/null 2>&1; rm -rf "$work"' EXIT

run() { # run LABEL MARIADBD-FLAGS...
  local label=$1; shift
  rm -rf "$work/data" "$work/binlog"; mkdir -p "$work/data" "$work/binlog"; chown "$user": "$work/data" "$work/binlog"
  mariadb-install-db --defaults-file="$MYCNF" --datadir="$work/data" --user="$user" --skip-log-bin \
    --auth-root-authentication-method=socket --skip-test-db >/dev/null 2>&1
  mariadbd --defaults-file="$MYCNF" --datadir="$work/data" --socket="$work/s.sock" --skip-networking \
    --pid-file="$work/pid" --innodb-buffer-pool-size=64M "$@" >"$work/err.log" 2>&1 &
  local i; for i in $(seq 1 120); do mariadb-admin --socket="$work/s.sock" --user=root ping >/dev/null 2>&1 && break; sleep 0.5; done
  mariadb --socket="$work/s.sock" --user=root -e "CREATE DATABASE b; CREATE TABLE b.code (id BIGINT AUTO_INCREMENT PRIMARY KEY,
    assignment_id INT NOT NULL, code MEDIUMTEXT NOT NULL, save_time DATETIME(3) NOT NULL, KEY (assignment_id, save_time))"
  local t0; t0=$(date +%s%N)
  local c; for c in $(seq 1 "$CLIENTS"); do
    ( for i in $(seq 1 $((N / CLIENTS))); do
        echo "INSERT INTO b.code (assignment_id, code, save_time) VALUES ($c, REPEAT('x', 1000), NOW(3));"
      done | mariadb --socket="$work/s.sock" --user=root ) &
  done
  wait $(jobs -p | tail -n "$CLIENTS")
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  mariadb-admin --socket="$work/s.sock" --user=root shutdown >/dev/null; wait
  echo "$label: $N saves by $CLIENTS clients in $ms ms = $(( N * 1000 / ms )) saves/s" >&2
  echo "$ms"
}
off=$(run "binlog off            " --skip-log-bin)
on=$(run "binlog on, sync_binlog=1" --log-bin="$work/binlog/b" --sync-binlog=1 --binlog-format=ROW --server-id=1)
python3 -c "print(f'throughput with the binlog / without: {$off / $on:.2f}')"
