#!/usr/bin/env bash
# A standby MariaDB beside the primary, fed by semi-synchronous replication (the primary
# acknowledges a commit only once the standby has it: an acknowledged save is in two
# data directories), and its promotion. See README.md, Standby.
#
#   standby.sh up        clone the primary (mariabackup), start the standby (port
#                        DB_STANDBY_PORT, data DB_STANDBY_DIR), replicate with GTID, and
#                        turn semi-sync on at the primary (kept across its restarts)
#   standby.sh down      stop the standby (its data stays) and semi-sync at the primary
#   standby.sh status    replication threads, lag, semi-sync state, as JSON
#   standby.sh failover  `make failover`: fence the primary (stop it), let the standby
#                        apply everything it received, promote it, and put its data
#                        where the primary's was, so every client reconnects to the same
#                        address; prints the time it took
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PRUTOR_VAR:=$(cd "$HERE/.." && pwd)/var}"
: "${DB_PORT:=3307}" "${DB_SOCKET:=$PRUTOR_VAR/run/mariadb.sock}" "${DB_SERVER_ID:=1}"
: "${DB_STANDBY_PORT:=$((DB_PORT + 10))}" "${DB_STANDBY_DIR:=$PRUTOR_VAR/mariadb-standby}"
: "${DB_SEMI_SYNC_TIMEOUT_MS:=2000}"
MYCNF=$PRUTOR_VAR/conf/my.cnf
SOCK=$DB_STANDBY_DIR/run/mariadb.sock
PIDF=$DB_STANDBY_DIR/run/mariadb.pid
# rdb/run.sh adds these options to the primary's command line while the file exists
SEMI_FLAGS=$PRUTOR_VAR/mariadb/semi-sync.flags
REPL_ENV=$PRUTOR_VAR/conf/replication.env
SUPERVISOR_CONF=$PRUTOR_VAR/conf/supervisord.conf

log() { printf '%s standby: %s\n' "$(date -u +%FT%TZ)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
primary() { mariadb --socket="$DB_SOCKET" --user=root -N -B -e "$1"; }
standby() { mariadb --socket="$SOCK" --user=root -N -B -e "$1"; }
running() { [ -f "$PIDF" ] && kill -0 "$(cat "$PIDF")" 2>/dev/null; }
os_user() { sed -n 's/^user *= *//p' "$MYCNF" | head -n1; }
wait_ping() { local i; for i in $(seq 1 "${2:-120}"); do mariadb-admin --socket="$1" --user=root ping >/dev/null 2>&1 && return 0; sleep 0.5; done; return 1; }

start_standby() {
  mkdir -p "$DB_STANDBY_DIR/run" "$DB_STANDBY_DIR/binlog" "$DB_STANDBY_DIR/tmp"
  chown "$(os_user)": "$DB_STANDBY_DIR" "$DB_STANDBY_DIR"/{run,binlog,tmp}
  # the primary's own options, then what makes it a standby: another id, port and data,
  # read-only for everyone but replication, its own binlog (it is the next primary)
  setsid mariadbd --defaults-file="$MYCNF" --datadir="$DB_STANDBY_DIR/data" --port="$DB_STANDBY_PORT" \
    --socket="$SOCK" --pid-file="$PIDF" --tmpdir="$DB_STANDBY_DIR/tmp" \
    --server-id="$((DB_SERVER_ID + 1))" --log-bin="$DB_STANDBY_DIR/binlog/mariadb-bin" --log-slave-updates \
    --read-only --skip-slave-start --rpl-semi-sync-slave-enabled=ON --relay-log="$DB_STANDBY_DIR/data/relay-bin" \
    --innodb-buffer-pool-size=64M >>"$PRUTOR_VAR/log/standby.log" 2>&1 < /dev/null &
  wait_ping "$SOCK" || die "the standby did not start (var/log/standby.log)"
}

cmd_up() {
  if running; then log "already running (port $DB_STANDBY_PORT)"; return 0; fi
  mkdir -p "$(dirname "$REPL_ENV")"
  [ -f "$REPL_ENV" ] || ( umask 077; echo "REPL_PASSWORD=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$REPL_ENV" )
  local pw; pw=$(sed -n 's/^REPL_PASSWORD=//p' "$REPL_ENV")
  primary "CREATE USER IF NOT EXISTS 'prutor_repl'@'127.0.0.1' IDENTIFIED BY '$pw';
           ALTER USER 'prutor_repl'@'127.0.0.1' IDENTIFIED BY '$pw';
           GRANT REPLICATION SLAVE ON *.* TO 'prutor_repl'@'127.0.0.1'"
  if [ ! -d "$DB_STANDBY_DIR/data/mysql" ]; then
    log "cloning the primary into $DB_STANDBY_DIR/data (mariabackup)"
    rm -rf "$DB_STANDBY_DIR/data" "$DB_STANDBY_DIR/clone"; mkdir -p "$DB_STANDBY_DIR"
    mariabackup --defaults-file="$MYCNF" --backup --user=root --socket="$DB_SOCKET" \
      --target-dir="$DB_STANDBY_DIR/clone" >"$DB_STANDBY_DIR/clone.log" 2>&1 || die "mariabackup failed ($DB_STANDBY_DIR/clone.log)"
    mariabackup --prepare --target-dir="$DB_STANDBY_DIR/clone" >>"$DB_STANDBY_DIR/clone.log" 2>&1 || die "prepare failed"
    mv "$DB_STANDBY_DIR/clone" "$DB_STANDBY_DIR/data"
    chown -R "$(os_user)": "$DB_STANDBY_DIR/data"
    start_standby
    # where the clone stands in the primary's GTID history
    local gtid; gtid=$(cut -f3 "$DB_STANDBY_DIR/data/mariadb_backup_binlog_info" 2>/dev/null || cut -f3 "$DB_STANDBY_DIR/data/xtrabackup_binlog_info")
    standby "SET GLOBAL gtid_slave_pos = '$gtid';
      CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$DB_PORT, MASTER_USER='prutor_repl',
        MASTER_PASSWORD='$pw', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1"
  else
    start_standby
  fi
  # semi-sync at the primary before the standby connects (a replica negotiates it when
  # it connects: one connected before would stay asynchronous), now and at the
  # primary's next starts. AFTER_SYNC: a commit becomes visible and is acknowledged
  # only after the standby has received it (lossless).
  # Past DB_SEMI_SYNC_TIMEOUT_MS without the standby, commits go on unprotected (the
  # status says so) rather than stopping the exam.
  printf -- '--rpl-semi-sync-master-enabled=ON --rpl-semi-sync-master-wait-point=AFTER_SYNC --rpl-semi-sync-master-timeout=%s\n' \
    "$DB_SEMI_SYNC_TIMEOUT_MS" >"$SEMI_FLAGS"
  primary "SET GLOBAL rpl_semi_sync_master_wait_point = AFTER_SYNC;
           SET GLOBAL rpl_semi_sync_master_timeout = $DB_SEMI_SYNC_TIMEOUT_MS;
           SET GLOBAL rpl_semi_sync_master_enabled = ON"
  standby "START SLAVE"
  local i; for i in $(seq 1 40); do
    [ "$(primary "SHOW STATUS LIKE 'Rpl_semi_sync_master_clients'" | cut -f2)" -ge 1 ] && break; sleep 0.5
  done
  log "standby up on 127.0.0.1:$DB_STANDBY_PORT; $(cmd_status | jq -c .)"
}

cmd_down() {
  # stopped on purpose: the primary stops waiting for it (a commit would wait
  # DB_SEMI_SYNC_TIMEOUT_MS once, then go on without it anyway)
  rm -f "$SEMI_FLAGS"
  primary "SET GLOBAL rpl_semi_sync_master_enabled = OFF" 2>/dev/null || true
  running || { log "not running"; return 0; }
  mariadb-admin --socket="$SOCK" --user=root shutdown >/dev/null 2>&1 || kill "$(cat "$PIDF")"
  local i; for i in $(seq 1 120); do running || break; sleep 0.5; done
  log "stopped"
}

cmd_status() {
  local s m client=(--user=root)
  # the backup daemon asks with its own account (SLAVE MONITOR; backup.sh as_backup_user),
  # which the standby has as a clone of the primary
  [ -n "${BACKUP_CLIENT_CNF:-}" ] && client=(--defaults-file="$BACKUP_CLIENT_CNF")
  s=$(mariadb "${client[@]}" --socket="$SOCK" -e "SHOW SLAVE STATUS\G" 2>/dev/null || true)
  m=$(mariadb "${client[@]}" --socket="$DB_SOCKET" -N -B -e "SHOW STATUS LIKE 'Rpl_semi_sync_master_%'" 2>/dev/null || true)
  field() { sed -n "s/^ *$1: //p" <<<"$s" | head -n1; }
  stat() { awk -v k="$1" '$1 == k {print $2}' <<<"$m"; }
  jq -n --argjson running "$(running && echo true || echo false)" --arg io "$(field Slave_IO_Running)" \
    --arg sql "$(field Slave_SQL_Running)" --arg behind "$(field Seconds_Behind_Master)" \
    --arg gtid "$(field Gtid_IO_Pos)" --arg err "$(field Last_Error)$(field Last_IO_Error)" \
    --arg semi "$(stat Rpl_semi_sync_master_status)" --arg clients "$(stat Rpl_semi_sync_master_clients)" \
    --arg yes "$(stat Rpl_semi_sync_master_yes_tx)" --arg no "$(stat Rpl_semi_sync_master_no_tx)" \
    '{running: $running, io: $io, sql: $sql, seconds_behind: $behind, gtid_received: $gtid, error: $err,
      primary_semi_sync: $semi, semi_sync_clients: $clients, acked_by_standby_tx: $yes, not_acked_tx: $no}'
}

ctl() { supervisorctl -c "$SUPERVISOR_CONF" "$@"; }

cmd_failover() {
  running || die "no standby running (bin/prutor standby up)"
  local t0; t0=$(date +%s%N)
  # 1. fence: the old primary stops and stays stopped. supervisord has restarted a
  #    crashed one by now, and a primary restarted after a crash with semi-sync on was
  #    seen hanging in its recovery: ask supervisord to stop it (so it is not restarted
  #    again), and kill it outright; its data is set aside, never used again.
  local pid; pid=$(ctl pid mariadb 2>/dev/null || echo 0)
  ctl stop mariadb >/dev/null 2>&1 &
  local stopper=$!
  sleep 0.2
  [[ $pid =~ ^[0-9]+$ ]] && [ "$pid" -gt 0 ] && kill -9 "$pid" 2>/dev/null || true
  pid=$(ctl pid mariadb 2>/dev/null || echo 0)
  [[ $pid =~ ^[0-9]+$ ]] && [ "$pid" -gt 0 ] && kill -9 "$pid" 2>/dev/null || true
  wait "$stopper" || true
  local t_fenced; t_fenced=$(date +%s%N)
  # 2. everything received applied (the relay log drained), replication ended
  local i s
  for i in $(seq 1 600); do
    s=$(mariadb --socket="$SOCK" --user=root -e "SHOW SLAVE STATUS\G")
    grep -qE 'Slave_SQL_Running_State: Slave has read all relay log' <<<"$s" && break
    grep -qE 'Slave_SQL_Running: No' <<<"$s" && die "the standby's SQL thread stopped: $(sed -n 's/^ *Last_SQL_Error: //p' <<<"$s")"
    sleep 0.1
  done
  standby "STOP SLAVE; RESET SLAVE ALL; SET GLOBAL read_only = OFF"
  local t_promoted; t_promoted=$(date +%s%N)
  mariadb-admin --socket="$SOCK" --user=root shutdown
  for i in $(seq 1 120); do running || break; sleep 0.25; done
  # 3. its data where the primary's was: the same port, socket and config for every client
  local aside; aside=$(date -u +%Y%m%dT%H%M%SZ)
  mv "$PRUTOR_VAR/mariadb/data" "$PRUTOR_VAR/mariadb/data.failed-$aside"
  mv "$PRUTOR_VAR/mariadb/binlog" "$PRUTOR_VAR/mariadb/binlog.failed-$aside"
  mv "$DB_STANDBY_DIR/data" "$PRUTOR_VAR/mariadb/data"
  mv "$DB_STANDBY_DIR/binlog" "$PRUTOR_VAR/mariadb/binlog"
  # the binlog index names the standby's folder: point it at the new one
  sed -i "s|$DB_STANDBY_DIR/binlog/|$PRUTOR_VAR/mariadb/binlog/|" "$PRUTOR_VAR/mariadb/binlog/mariadb-bin.index"
  rm -f "$PRUTOR_VAR/mariadb/data/relay-bin."* "$PRUTOR_VAR/mariadb/data/master.info" "$PRUTOR_VAR/mariadb/data/relay-log.info"
  rm -f "$SEMI_FLAGS"                        # no standby now: no waiting for one
  local t_moved; t_moved=$(date +%s%N)
  ctl start mariadb >/dev/null
  wait_ping "$DB_SOCKET" || die "the promoted server did not start (var/log/mariadb.log)"
  local t_serving; t_serving=$(date +%s%N)
  ms() { echo $(( ($1 - t0) / 1000000 )); }
  log "failover: serving again after $(ms "$t_serving") ms (primary fenced at $(ms "$t_fenced") ms, standby promoted at $(ms "$t_promoted"), its data in place at $(ms "$t_moved")); old data in $PRUTOR_VAR/mariadb/data.failed-$aside"
  log "make a new standby from it: bin/prutor standby up"
  # the backup program goes on with a new timeline (another server's binlog)
  if ctl status backup >/dev/null 2>&1; then
    ctl stop backup >/dev/null 2>&1 || true
    local bdir=${BACKUP_DIR:-$PRUTOR_VAR/backup}
    if [ -f "$bdir/timeline" ]; then
      local n=$(( $(cat "$bdir/timeline") + 1 ))
      mkdir -p "$(printf '%s/t%04d' "$bdir" "$n")/binlog/spool" && echo "$n" >"$bdir/timeline"
    fi
    ctl start backup >/dev/null 2>&1 || true
  fi
}

case ${1:-} in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  failover) cmd_failover ;;
  *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
