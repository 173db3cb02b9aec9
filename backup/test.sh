#!/usr/bin/env bash
# backup/'s tests against the running stack (make test's `backup` suite, after the other
# suites: it destroys and restores this stack's database):
#   1. retention and encryption: fulls into a scratch folder, BACKUP_KEEP_FULLS kept, the
#      files age-encrypted (another key cannot read them), bad input refused with a sentence
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
cleanup() {
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
t=$SECONDS
for i in 1 2 3; do
  BACKUP_DIR=$scratch BACKUP_KEEP_FULLS=2 bash "$ROOT/backup/backup.sh" backup 2>"$scratch/full.log" ||
    { cat "$scratch/full.log"; fail "a full backup failed"; }
  sleep 1                                            # one full per second: the folders are named by it
done
n=$(ls -1d "$scratch"/t0001/full/*/manifest.json | wc -l)
[ "$n" = 2 ] || fail "BACKUP_KEEP_FULLS=2 kept $n fulls"
ok "retention: 3 fulls taken, the newest 2 kept ($((SECONDS - t))s)"
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

# ---- 2. the drill
t=$SECONDS
export USERS_CSV=$scratch/users.csv
LOAD_PREFIX=drill LOAD_SECTION=DRILL LOAD_CSV=$USERS_CSV USERS=${DRILL_USERS:-10} HOURS=1 \
  bash "$ROOT/jmeter-plans/load-data.sh" >/dev/null
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
