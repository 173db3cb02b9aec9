#!/usr/bin/env bash
# backup/'s tests against the running stack (make test's `backup` suite, after the other
# suites: it destroys and restores this stack's database):
#   1. the daemon is not root and its MariaDB account reads no table; a scheduled full
#      waits while an exam is open and runs at low priority after BACKUP_MAX_DEFER_S,
#      `make backup` does not wait; retention and encryption: fulls into a scratch
#      folder, BACKUP_KEEP_FULLS kept, the files age-encrypted (another key cannot read
#      them), bad input refused with a sentence
#   2. the restore drill (test/drill.js): saves under load through HAProxy, a full
#      mid-run, the data directory deleted, restored to the last second and to a point in time
#   3. the failover drill (test/failover.js): a semi-synchronous standby, the primary
#      killed mid-run, `bin/prutor failover`, 0 acknowledged saves lost, the recovery time
#   4. an exam archive (test/archive.sh): exported, read with unzip and a CSV reader, the
#      event deleted, imported, compared row by row; hostile archives refused
# Env: DRILL_USERS (10), SAVE_SECONDS (6).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
eval "$("$ROOT/bin/prutor" env)"
set -a; . "$PRUTOR_VAR/prutor.env"; set +a        # BACKUP_AGE_KEY, for the restores
export BACKUP_AGE_RECIPIENT=${BACKUP_AGE_RECIPIENT:-$(age-keygen -y <<<"$BACKUP_AGE_KEY")}
fail() { echo "backup/test.sh: FAIL: $*" >&2; exit 1; }
ok() { echo "ok - $*"; }
export ROOT RUN=$(date -u +%H%M%S)$RANDOM
scratch=$(mktemp -d "$PRUTOR_VAR/backup-test.XXXXXX")
replaced_before=$(ls -1d "$PRUTOR_VAR"/mariadb/*.replaced-* "$PRUTOR_VAR"/mariadb/*.failed-* 2>/dev/null || true)
dpid=
cleanup() {
  [ -n "$dpid" ] && kill "$dpid" 2>/dev/null && wait "$dpid" 2>/dev/null
  rm -rf "$scratch"
  LOAD_PREFIX=drill LOAD_SECTION=DRILL bash "$ROOT/jmeter-plans/load-data.sh" --remove >/dev/null 2>&1 || true
  bash "$ROOT/bin/prutor" standby down >/dev/null 2>&1 || true
  rm -rf "${DB_STANDBY_DIR:?}"
  # the data directories the drills set aside (their own, nothing older)
  local d; for d in "$PRUTOR_VAR"/mariadb/*.replaced-* "$PRUTOR_VAR"/mariadb/*.failed-*; do
    [ -e "$d" ] && ! grep -qxF "$d" <<<"$replaced_before" && rm -rf "$d"
  done; return 0
}
trap cleanup EXIT

# ---- 1. the binlog as rdb/my.cnf.tmpl renders it, retention, encryption, refusals
vars=$(mariadb --socket="$DB_SOCKET" --user=root -N -B -e "SELECT @@log_bin, @@binlog_format, @@sync_binlog, @@server_id, @@log_bin_basename")
[ "$(cut -f1-4 <<<"$vars")" = "$(printf '1\tROW\t%s\t%s' "$DB_SYNC_BINLOG" "$DB_SERVER_ID")" ] || fail "binlog settings in force: $vars"
[ "$(cut -f5 <<<"$vars")" = "$PRUTOR_VAR/mariadb/binlog/mariadb-bin" ] || fail "the binlog is not in its own folder: $vars"
ok "the binlog is on: ROW, sync_binlog=$DB_SYNC_BINLOG, server_id=$DB_SERVER_ID, in var/mariadb/binlog"

# the daemon: not root, and an account that can stream and copy but not read a row
bpid=$(supervisorctl -c "$PRUTOR_VAR/conf/supervisord.conf" pid backup)
uids=$(ps -e -o pgid=,uid= | awk -v p="$bpid" '$1 == p {print $2}' | sort -u)
[ -n "$uids" ] || fail "no process of the backup program (pid $bpid)"
grep -qx 0 <<<"$uids" && fail "the backup program runs as root (uids: $(echo $uids))"
tr '\0' '\n' <"/proc/$bpid/environ" | grep -q '^BACKUP_DB_PASSWORD=' && fail "BACKUP_DB_PASSWORD is in the services' environment"
cnf=$PRUTOR_VAR/run/backup/my.cnf
out=$(mariadb --defaults-file="$cnf" -N -B -e "SELECT code FROM \`$DB_NAME\`.code LIMIT 1" 2>&1) &&
  fail "the backup account read $DB_NAME.code"
grep -q 'SELECT command denied' <<<"$out" || fail "reading $DB_NAME.code as the backup account said: $out"
mariadb --defaults-file="$cnf" -N -B -e "SHOW MASTER STATUS" | grep -q mariadb-bin || fail "the backup account cannot see the binlog position"
ok "the backup program runs as uid $(echo $uids), its account ($BACKUP_DB_USER) is refused SELECT on $DB_NAME.code"

# a scheduled full waits while an exam is open; `make backup` does not; past
# BACKUP_MAX_DEFER_S the scheduled one runs anyway, at low priority. The drill's
# students and their event (open from 5 minutes ago for an hour) are the exam.
t=$SECONDS
export USERS_CSV=$scratch/users.csv
LOAD_PREFIX=drill LOAD_SECTION=DRILL LOAD_CSV=$USERS_CSV USERS=${DRILL_USERS:-10} HOURS=1 \
  bash "$ROOT/jmeter-plans/load-data.sh" >/dev/null
ev=$(mariadb --socket="$DB_SOCKET" --user=root -N -B -e "SELECT sl.event_id FROM \`$DB_NAME\`.slots sl
       JOIN \`$DB_NAME\`.sections s ON s.id = sl.section_id WHERE s.code = 'DRILL' LIMIT 1")
[ -n "$ev" ] || fail "load-data.sh made no event"
fulls() { ls -1d "$scratch"/t0001/full/*Z/manifest.json 2>/dev/null | wc -l; }
newest() { ls -1d "$scratch"/t0001/full/*Z/manifest.json | tail -n1; }
# a second daemon into the scratch folder: its own replica id, a full due every second
daemon() { # daemon MAX_DEFER_S
  BACKUP_DIR=$scratch BACKUP_KEEP_FULLS=2 BACKUP_STATUS_FILE=$scratch/status.json BACKUP_FULL_INTERVAL_S=1 \
    BACKUP_MAX_DEFER_S=$1 DB_SERVER_ID=$((DB_SERVER_ID + 50)) bash "$ROOT/backup/backup.sh" daemon 2>>"$scratch/daemon.log" &
  dpid=$!
}
stop_daemon() { kill "$dpid"; wait "$dpid" || true; dpid=; }
BACKUP_DIR=$scratch BACKUP_KEEP_FULLS=2 bash "$ROOT/backup/backup.sh" backup 2>"$scratch/full.log" ||
  { cat "$scratch/full.log"; fail "a full backup failed"; }
sleep 1                                              # one full per second: the folders are named by it
daemon 3600
why=
for i in $(seq 1 60); do
  why=$(jq -r '.full_deferred.reason // empty' "$scratch/status.json" 2>/dev/null || true)
  [ -n "$why" ] && break; sleep 0.5
done
[ -n "$why" ] || { tail -n 5 "$scratch/daemon.log"; fail "the scheduled full was not deferred while event $ev is open"; }
grep -qE "event ([0-9]+, )*$ev(,|\b)" <<<"$why" || fail "the deferral does not name event $ev: $why"
sleep 3                                              # three more ticks, each with the full due
[ "$(fulls)" = 1 ] || fail "a scheduled full ran while event $ev is open ($(fulls) fulls)"
jq -e '.full_deferred.runs_by' "$scratch/status.json" >/dev/null || fail "the status does not say when the deferred full will run"
stop_daemon
ok "a scheduled full waits while an exam is open: $why"
BACKUP_DIR=$scratch BACKUP_KEEP_FULLS=2 bash "$ROOT/bin/prutor" backup 2>"$scratch/full.log" ||
  { cat "$scratch/full.log"; fail "make backup failed during an exam"; }
[ "$(fulls)" = 2 ] || fail "make backup did not take a full during an exam ($(fulls) fulls)"
[ "$(jq -r .priority "$(newest)")" = normal ] || fail "make backup ran at $(jq -r .priority "$(newest)") priority"
ok "make backup takes a full during the exam"
sleep 1
daemon 1
for i in $(seq 1 120); do
  [ "$(jq -r .priority "$(newest)")" = low ] && break; sleep 0.5
done
stop_daemon
[ "$(jq -r .priority "$(newest)")" = low ] || { tail -n 5 "$scratch/daemon.log"; fail "past BACKUP_MAX_DEFER_S the scheduled full did not run at low priority"; }
jq -r .deferred_for "$(newest)" | grep -q "event" || fail "the full's manifest does not say what it waited for"
n=$(fulls)
[ "$n" = 2 ] || fail "BACKUP_KEEP_FULLS=2 kept $n fulls"
ok "past BACKUP_MAX_DEFER_S the scheduled full runs anyway at low priority; retention: 3 fulls taken, the newest 2 kept ($((SECONDS - t))s)"
f=$(ls -1 "$scratch"/t0001/full/*/mariadb.xbstream.zst.age | tail -n1)
[ "$(head -c 21 "$f")" = "age-encryption.org/v1" ] || fail "$f is not an age file"
age -d -i <(age-keygen 2>/dev/null) <"$f" >/dev/null 2>&1 && fail "another key decrypted $f"
age -d -i <(printf '%s\n' "$BACKUP_AGE_KEY") <"$f" | zstd -q -d | mbstream -x -C "$scratch" 2>/dev/null ||
  fail "the right key did not decrypt $f"
[ -f "$scratch/ibdata1" ] || fail "the decrypted full holds no ibdata1"
( cd "$(dirname "$f")" && sha256sum -c --quiet SHA256SUMS ) || fail "checksums do not match"
ok "encryption: the full is an age file, another key cannot read it, the right one gives InnoDB's files"
out=$(bash "$ROOT/bin/prutor" restore --at "yesterday" 2>&1) && fail "restore accepted AT=yesterday"
grep -q 'AT must look like' <<<"$out" || fail "restore with a bad AT said: $out"
out=$(BACKUP_DIR=$scratch bash "$ROOT/bin/prutor" restore --at "2001-01-01 00:00:00" 2>&1) && fail "restore before every full ran"
grep -q 'no full backup finished before' <<<"$out" || fail "restore before every full said: $out"
ok "restore refuses a malformed AT and an AT before every full, with a sentence"

# ---- a stalled streamer: alive, receiving nothing (SIGSTOP stands in for a connection the
# server dropped unseen); the daemon restarts it and catches up
streamer() { pgrep -f "mariadb-binlog .*--result-file=$BACKUP_DIR/" | head -n1; }
t=$SECONDS
old=$(streamer); [ -n "$old" ] || fail "no binlog streamer running"
kill -STOP "$old"
mariadb --socket="$DB_SOCKET" --user=root -e "FLUSH BINARY LOGS" || fail "FLUSH BINARY LOGS"
caught_up() {
  local st new; new=$(streamer); st=$(cat "$BACKUP_STATUS_FILE" 2>/dev/null) || return 1
  [ -n "$new" ] && [ "$new" != "$old" ] && jq -e '.binlog.file == .binlog.server_file and .binlog.lag_bytes == 0' <<<"$st" >/dev/null
}
for _ in $(seq 60); do caught_up && break; sleep 1; done
kill -KILL "$old" 2>/dev/null || true
caught_up || fail "a stalled streamer was not restarted within 60 s: $(jq -c .binlog "$BACKUP_STATUS_FILE")"
ok "a stalled binlog streamer is restarted and catches up ($((SECONDS - t))s)"

# ---- 2. the drill
t=$SECONDS
export BASE_URL=http://127.0.0.1:$HAPROXY_PORT SAVE_SECONDS=${SAVE_SECONDS:-6}
node "$ROOT/backup/test/drill.js"
ok "restore drill ($((SECONDS - t))s)"
# ---- 3. the standby and its promotion
t=$SECONDS
bash "$ROOT/bin/prutor" standby up
node "$ROOT/backup/test/failover.js"
ok "failover drill ($((SECONDS - t))s)"
# ---- 4. an exam archive: exported, read without the platform, deleted, imported
t=$SECONDS
bash "$ROOT/backup/test/archive.sh"
ok "exam archive round trip ($((SECONDS - t))s)"
# the stack is whole for the suites after this one
bash "$ROOT/bin/prutor" status >/dev/null || fail "the stack is not healthy after the drill"
ok "every component healthy after the drill"
