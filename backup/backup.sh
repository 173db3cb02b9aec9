#!/usr/bin/env bash
# Backups of MariaDB (full with mariabackup + the binary log shipped as it is written)
# and of the MongoDB API's data, encrypted with age, into BACKUP_DIR. See README.md.
#
#   backup.sh daemon                 what run.sh runs: ships the binlog, a full every
#                                    BACKUP_FULL_INTERVAL_S, retention, the status file
#   backup.sh backup                 one full backup now (`make backup`)
#   backup.sh backup log [TIMELINE]  the shipped binlog, one line per transaction: GTID,
#                                    time, the tables it changed (to find one to --skip)
#   backup.sh restore [--at "YYYY-MM-DD HH:MM:SS" | --skip GTID] [--mongo]
#                                    `make restore`: the last full before AT (UTC; default:
#                                    now), then the binlog replayed up to AT (excluded);
#                                    --skip: everything but that one transaction (an
#                                    operator's mistaken DELETE), to the end of its timeline;
#                                    --mongo also replaces the MongoDB data by that full's dump
#   backup.sh status                 the status file
#
# Layout of BACKUP_DIR (one timeline per life of the binlog: a restore, or a data
# directory made anew, starts the next, as the server numbers its binlog from 1 again):
#   timeline                              the current timeline's number
#   t0001/full/<UTC time>/manifest.json   times, binlog file at the start, sha256 of each file
#   t0001/full/<UTC time>/mariadb.xbstream.zst.age, mongo.jsonl.zst.age
#   t0001/binlog/mariadb-bin.000001.age   complete (rotated) binlogs
#   t0001/binlog/spool/mariadb-bin.00000N the binlog being written, as it arrives (plain:
#                                         age cannot append; at most one file, see README)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
: "${PRUTOR_VAR:=$(cd "$HERE/.." && pwd)/var}"
: "${BACKUP_DIR:=$PRUTOR_VAR/backup}" "${BACKUP_FULL_INTERVAL_S:=21600}" "${BACKUP_KEEP_FULLS:=7}"
: "${BACKUP_STATUS_FILE:=$PRUTOR_VAR/run/backup-status.json}" "${BACKUP_AGE_RECIPIENT:=}"
: "${DB_SOCKET:=$PRUTOR_VAR/run/mariadb.sock}" "${MONGO_URL:=mongodb://127.0.0.1:27017/prutor}"
# How often the daemon looks at the binlog (status, lag, rotated files).
: "${BACKUP_TICK_S:=1}"
# The file being shipped is plain until the server moves to the next: rotate this often.
: "${BACKUP_BINLOG_ROTATE_S:=600}"
# A streamer alive but not receiving (a connection the server dropped without the client
# noticing) is restarted once the server's binlog has been ahead of the shipped copy,
# with nothing arriving, for this long.
: "${BACKUP_STALL_S:=10}"
# A scheduled full waits while an exam is open or starts within BACKUP_QUIET_BEFORE_S
# (a full under an exam's load tripled the save's 99% line), at most BACKUP_MAX_DEFER_S.
: "${BACKUP_QUIET_BEFORE_S:=1800}" "${BACKUP_MAX_DEFER_S:=21600}"
# The MariaDB account the daemon and a full connect with (not root; see as_backup_user).
: "${BACKUP_DB_USER:=prutor_backup}" "${DB_NAME:=prutor}"
MYCNF=$PRUTOR_VAR/conf/my.cnf
DATA=$PRUTOR_VAR/mariadb/data
BINLOG_LOCAL=$PRUTOR_VAR/mariadb/binlog
SUPERVISOR_CONF=$PRUTOR_VAR/conf/supervisord.conf
# The backup user's private folder: its option file (server options + the account's
# password), readable by it alone; var/conf is root's.
PRIV=$PRUTOR_VAR/run/backup
CNF=$PRIV/my.cnf

log() { printf '%s backup: %s\n' "$(date -u +%FT%TZ)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
sql() { mariadb --defaults-file="$CNF" -N -B -e "$1"; }
root_sql() { mariadb --socket="$DB_SOCKET" --user=root -N -B -e "$1"; }
now() { date -u +%s; }

# The daemon and a full run as the OS user that owns the data directory (mysql): the one
# user that can read InnoDB's files (0660 in 0700 folders) without widening their
# permissions for a dedicated one, and reading them is all mariabackup does with its
# rights. Started as root (supervisord, `make backup`), this prepares what that user
# needs, then drops to it:
#   - the account BACKUP_DB_USER with only what mariabackup and binlog streaming use
#     (RELOAD, PROCESS, LOCK TABLES, BINLOG MONITOR: mariabackup's BACKUP STAGE and binlog
#     position; REPLICATION SLAVE: mariadb-binlog --read-from-remote-server; SLAVE
#     MONITOR: the standby's SHOW SLAVE STATUS), SELECT on the view assignment_window
#     (when an exam is open) and no other table: rows are never read, files are;
#   - its password (BACKUP_DB_PASSWORD, generated into var/prutor.env by bin/prutor, kept
#     out of the services' environment) in the private option file;
#   - BACKUP_DIR and the binlog's log owned by that user (a restore run by root made a
#     timeline there).
as_backup_user() {
  [ "$(id -u)" -eq 0 ] || { [ -r "$CNF" ] || die "$CNF missing: start the backup program as root once (make up)"; return 0; }
  local u pw i
  u=$(stat -c %U "$DATA" 2>/dev/null || echo root)
  pw=${BACKUP_DB_PASSWORD:-$(sed -n 's/^BACKUP_DB_PASSWORD=//p' "$PRUTOR_VAR/prutor.env" 2>/dev/null | tail -n1)}
  [ -n "$pw" ] || die "BACKUP_DB_PASSWORD is not set (bin/prutor generates it into var/prutor.env)"
  [[ $pw =~ ^[A-Za-z0-9._+/=-]+$ ]] || die "BACKUP_DB_PASSWORD may hold letters, digits and ._+/=- only"
  [[ $BACKUP_DB_USER =~ ^[A-Za-z0-9_]+$ && $DB_NAME =~ ^[A-Za-z0-9_]+$ ]] || die "BACKUP_DB_USER and DB_NAME: letters, digits, _"
  for i in $(seq 1 120); do mariadb-admin --socket="$DB_SOCKET" --user=root ping >/dev/null 2>&1 && break; sleep 0.5; done
  local acct="'$BACKUP_DB_USER'@'localhost'"
  root_sql "CREATE USER IF NOT EXISTS $acct IDENTIFIED BY '$pw'; ALTER USER $acct IDENTIFIED BY '$pw';
    GRANT RELOAD, PROCESS, LOCK TABLES, BINLOG MONITOR, REPLICATION SLAVE, SLAVE MONITOR ON *.* TO $acct" ||
    die "cannot create the MariaDB account $BACKUP_DB_USER (is MariaDB up?)"
  # the view exists once the migrations ran; without it no full is deferred
  root_sql "GRANT SELECT ON \`$DB_NAME\`.assignment_window TO $acct" 2>/dev/null ||
    log "WARNING: no $DB_NAME.assignment_window yet: scheduled fulls will not wait for exams"
  install -d -m 700 -o "$u" -g "$(id -gn "$u")" "$PRIV"
  ( umask 077
    # the server's options (mariabackup reads [mysqld]), without its [client] group, whose
    # default-character-set mariadb-binlog refuses
    { awk '/^\[/ { skip = ($0 == "[client]") } !skip' "$MYCNF"
      printf '\n# the backup account (backup/backup.sh as_backup_user)\n[client]\nuser=%s\npassword=%s\nsocket=%s\n' "$BACKUP_DB_USER" "$pw" "$DB_SOCKET"
      printf '[mariabackup]\nuser=%s\npassword=%s\nsocket=%s\n' "$BACKUP_DB_USER" "$pw" "$DB_SOCKET"
    } >"$CNF.tmp" )
  chown "$u": "$CNF.tmp"; mv -f "$CNF.tmp" "$CNF"
  mkdir -p "$BACKUP_DIR" "$(dirname "$BACKUP_STATUS_FILE")" "$PRUTOR_VAR/log"
  touch "$PRUTOR_VAR/log/backup-binlog.log"
  chown -R "$u": "$BACKUP_DIR" "$PRUTOR_VAR/log/backup-binlog.log"
  [ -e "$BACKUP_STATUS_FILE" ] && chown "$u": "$BACKUP_STATUS_FILE"
  if [ "$u" = root ]; then
    log "WARNING: the data directory is root's (rdb/run.sh ran mariadbd as root): running as root"
    return 0
  fi
  exec setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups env HOME="$PRIV" bash "$HERE/backup.sh" "$@"
}

timeline() { cat "$BACKUP_DIR/timeline" 2>/dev/null || echo 1; }
tdir() { printf '%s/t%04d' "$BACKUP_DIR" "$1"; }
new_timeline() {
  local n=$(( $(timeline) + 1 ))
  mkdir -p "$(tdir "$n")/binlog/spool" "$(tdir "$n")/full"
  echo "$n" >"$BACKUP_DIR/timeline.tmp" && mv -f "$BACKUP_DIR/timeline.tmp" "$BACKUP_DIR/timeline"
  log "timeline $n begins"
}
need_recipient() {
  [ -n "$BACKUP_AGE_RECIPIENT" ] || die "BACKUP_AGE_RECIPIENT is not set (bin/prutor derives it from BACKUP_AGE_KEY)"
}
encrypt() { age -r "$BACKUP_AGE_RECIPIENT"; }

# ------------------------------------------------------------------ full backup

# One consistent copy of InnoDB (mariabackup: BACKUP STAGE locks, the binlog position
# of that moment inside the stream), compressed and encrypted on the way: no plain
# copy touches the disk. Then the MongoDB dump. A lock keeps one full at a time.
full_backup() {
  need_recipient
  mkdir -p "$BACKUP_DIR"
  exec 8>"$BACKUP_DIR/.full.lock"
  flock -n 8 || { log "a full backup is already running"; return 0; }
  local tl started stamp dir binlog_file t0
  tl=$(timeline); started=$(now); t0=$(date +%s%N)
  stamp=$(date -u -d "@$started" +%Y%m%dT%H%M%SZ)
  dir=$(tdir "$tl")/full/$stamp
  mkdir -p "$dir.partial"
  # a new binlog file at each full (the shipped one before it gets sealed); replay never
  # needs a file older than the one current when the copy starts
  sql "FLUSH BINARY LOGS" || true
  binlog_file=$(sql "SHOW MASTER STATUS" | cut -f1)
  local work; work=$(mktemp -d "$PRUTOR_VAR/mariadb/tmp/mariabackup.XXXXXX")
  mariabackup --defaults-file="$CNF" --backup --user="$BACKUP_DB_USER" \
      --stream=xbstream --target-dir="$work" 2>"$dir.partial/mariabackup.log" |
    zstd -q -T1 -3 | encrypt >"$dir.partial/mariadb.xbstream.zst.age" ||
    { rm -rf "$work"; die "mariabackup failed: $(tail -n 3 "$dir.partial/mariabackup.log")"; }
  rm -rf "$work"
  local mongo_ok=true
  MONGO_URL=$MONGO_URL node "$HERE/mongo.js" dump 2>"$dir.partial/mongo.log" | zstd -q -T1 -3 | encrypt \
    >"$dir.partial/mongo.jsonl.zst.age" || { mongo_ok=false; log "MongoDB dump failed: $(tail -n 2 "$dir.partial/mongo.log")"; }
  local finished; finished=$(now)
  ( cd "$dir.partial" && sha256sum -- *.age ) >"$dir.partial/SHA256SUMS"
  jq -n --argjson tl "$tl" --arg started "$(date -u -d "@$started" +%FT%TZ)" \
        --arg finished "$(date -u -d "@$finished" +%FT%TZ)" --argjson finished_s "$finished" \
        --arg binlog_file "$binlog_file" --argjson mongo "$mongo_ok" \
        --argjson ms $(( ($(date +%s%N) - t0) / 1000000 )) \
        --arg version "$(sql 'SELECT VERSION()')" \
        --arg priority "${FULL_PRIORITY:-normal}" --argjson deferred_s "${FULL_DEFERRED_S:-0}" --arg deferred_for "${FULL_DEFERRED_FOR:-}" \
        --argjson bytes "$(du -cb "$dir.partial"/*.age | tail -n1 | cut -f1)" \
        '{timeline: $tl, started_at: $started, finished_at: $finished, finished_s: $finished_s,
          binlog_file_at_start: $binlog_file, mongo: $mongo, duration_ms: $ms, bytes: $bytes,
          mariadb_version: $version, encryption: "age", compression: "zstd",
          priority: $priority, deferred_s: $deferred_s, deferred_for: (if $deferred_for == "" then null else $deferred_for end)}' >"$dir.partial/manifest.json"
  mv "$dir.partial" "$dir"
  log "full backup $dir ($(jq -r .bytes "$dir/manifest.json") bytes, $(jq -r .duration_ms "$dir/manifest.json") ms)"
  prune
}

# Every full's manifest, oldest first (timeline, then time).
manifests() { ls -1d "$BACKUP_DIR"/t*/full/*Z/manifest.json 2>/dev/null | sort || true; }

# Keeps the newest BACKUP_KEEP_FULLS fulls and the binlog they need; what is older goes.
prune() {
  local all keep oldest otl ofile f n
  mapfile -t all < <(manifests)
  n=${#all[@]}
  [ "$n" -gt "$BACKUP_KEEP_FULLS" ] || return 0
  for f in "${all[@]:0:$((n - BACKUP_KEEP_FULLS))}"; do rm -rf "$(dirname "$f")"; log "pruned $(dirname "$f")"; done
  oldest=${all[$((n - BACKUP_KEEP_FULLS))]}
  otl=$(jq -r .timeline "$oldest"); ofile=$(jq -r .binlog_file_at_start "$oldest")
  for d in "$BACKUP_DIR"/t[0-9]*; do
    n=$((10#${d##*/t}))
    if [ "$n" -lt "$otl" ]; then rm -rf "$d"; log "pruned timeline $d"; fi
  done
  for f in "$(tdir "$otl")"/binlog/*.age; do
    [ -e "$f" ] || continue
    [[ $(basename "$f" .age) < $ofile ]] && rm -f "$f"
  done
  return 0
}

# ------------------------------------------------------------------ binlog shipping

# mariadb-binlog --read-from-remote-server --raw --stop-never: the server pushes each
# event to it as it is committed (it registers like a replica), so the copy is as
# fresh as a replica's and works from another host; a copy loop over the binlog
# folder would need the same disk and poll. It writes plain files (into the spool).
STREAMER_PID=
start_streamer() {
  local tl spool from server_files newest_shipped
  tl=$(timeline); spool=$(tdir "$tl")/binlog/spool; mkdir -p "$spool"
  server_files=$(sql "SHOW BINARY LOGS" 2>/dev/null) || return 1
  [ -n "$server_files" ] || return 1
  newest_shipped=$( { ls -1 "$spool" 2>/dev/null; ls -1 "$(tdir "$tl")/binlog" 2>/dev/null | sed -n 's/\.age$//p'; } | grep '^mariadb-bin\.' | sort | tail -n1 || true)
  if [ -n "$newest_shipped" ]; then
    local size_server size_shipped
    size_server=$(awk -v f="$newest_shipped" '$1 == f {print $2}' <<<"$server_files")
    size_shipped=$(stat -c %s "$spool/$newest_shipped" 2>/dev/null || echo 0)
    if [ -z "$size_server" ] && [[ $(tail -n1 <<<"$server_files" | cut -f1) < $newest_shipped ]] ||
       { [ -n "$size_server" ] && [ "$size_server" -lt "$size_shipped" ]; }; then
      # the server's binlog began again (a restored or new data directory)
      seal_spool all; new_timeline; tl=$(timeline); spool=$(tdir "$tl")/binlog/spool; newest_shipped=
    fi
  fi
  if [ -n "$newest_shipped" ] && [ -e "$spool/$newest_shipped" ]; then
    from=$newest_shipped                     # fetched again whole: the file is overwritten
  elif [ -n "$newest_shipped" ]; then
    from=$(awk -v f="$newest_shipped" '$1 > f {print $1; exit}' <<<"$server_files")
    [ -n "$from" ] || from=$newest_shipped
  else
    from=$(head -n1 <<<"$server_files" | cut -f1)
  fi
  if ! awk -v f="$from" '$1 == f {found=1} END {exit !found}' <<<"$server_files"; then
    log "WARNING: the server no longer has $from (binlog_expire_logs_seconds); a gap until the next full: taking one now"
    from=$(head -n1 <<<"$server_files" | cut -f1)
    FORCE_FULL=1
  fi
  log "shipping the binlog from $from into $spool"
  mariadb-binlog --defaults-file="$CNF" --read-from-remote-server --raw --stop-never \
    --stop-never-slave-server-id="$((${DB_SERVER_ID:-1} + 1000))" --result-file="$spool/" "$from" \
    2>>"$PRUTOR_VAR/log/backup-binlog.log" &
  STREAMER_PID=$!
}

# Encrypts the spool's complete files (all but the newest, or all with "all").
seal_spool() {
  local tl spool files f keep=1
  [ "${1:-}" = all ] && keep=0
  tl=$(timeline); spool=$(tdir "$tl")/binlog/spool
  mapfile -t files < <(ls -1 "$spool" 2>/dev/null | grep '^mariadb-bin\.' | sort)
  [ ${#files[@]} -gt $keep ] || return 0
  for f in "${files[@]:0:$((${#files[@]} - keep))}"; do
    encrypt <"$spool/$f" >"$(tdir "$tl")/binlog/$f.age.tmp" && mv -f "$(tdir "$tl")/binlog/$f.age.tmp" "$(tdir "$tl")/binlog/$f.age" &&
      rm -f "$spool/$f"
  done
}

# The status the admin page shows: written whole, then renamed (never half-read).
IN_SYNC_AT=0 SHIPPED_AT=0 LAST_SIZE=-1 BEHIND_SINCE=0
write_status() {
  local tl spool master file pos shipped size=0 last lag_bytes=null latest
  tl=$(timeline); spool=$(tdir "$tl")/binlog/spool
  master=$(sql "SHOW MASTER STATUS" 2>/dev/null || true)
  file=$(cut -f1 <<<"$master"); pos=$(cut -f2 <<<"$master")
  shipped=$(ls -1 "$spool" 2>/dev/null | grep '^mariadb-bin\.' | sort | tail -n1 || true)
  [ -n "$shipped" ] && size=$(stat -c %s "$spool/$shipped" 2>/dev/null || echo 0)
  [ "$size" != "$LAST_SIZE" ] && { SHIPPED_AT=$(now); LAST_SIZE=$size; }
  if [ -n "$file" ] && [ "$file" = "$shipped" ]; then
    lag_bytes=$(( pos > size ? pos - size : 0 ))
    [ "$lag_bytes" = 0 ] && IN_SYNC_AT=$(now)
  fi
  # the stall watchdog: behind (another file, or fewer bytes) with nothing arriving
  if [ -n "$file" ] && { [ "$file" != "$shipped" ] || [ "$lag_bytes" != 0 ]; } && [ "$SHIPPED_AT" -lt "$(now)" ]; then
    [ "$BEHIND_SINCE" -gt 0 ] || BEHIND_SINCE=$(now)
    if [ $(( $(now) - BEHIND_SINCE )) -ge "$BACKUP_STALL_S" ] && [ -n "${STREAMER_PID:-}" ] && kill -0 "$STREAMER_PID" 2>/dev/null; then
      log "the binlog streamer received nothing for ${BACKUP_STALL_S}s while the server is at $file:$pos (shipped: ${shipped:-none}:$size): restarting it"
      kill -KILL "$STREAMER_PID" 2>/dev/null || true
      wait "$STREAMER_PID" 2>/dev/null || true
      STREAMER_PID= BEHIND_SINCE=0
    fi
  else
    BEHIND_SINCE=0
  fi
  latest=$(manifests | tail -n1)
  # the standby's replication, while one runs (standby.sh)
  local standby=null
  if [ -S "${DB_STANDBY_DIR:-$PRUTOR_VAR/mariadb-standby}/run/mariadb.sock" ]; then
    standby=$(BACKUP_CLIENT_CNF=$CNF bash "$HERE/standby.sh" status 2>/dev/null | jq -c . 2>/dev/null) || standby=null
    [ -n "$standby" ] || standby=null
  fi
  jq -n --argjson standby "$standby" --arg updated "$(date -u +%FT%TZ)" --argjson tl "$tl" --arg dir "$BACKUP_DIR" \
     --argjson full "$( [ -n "$latest" ] && jq -c '{finished_at, duration_ms, bytes, mongo, priority, deferred_s, deferred_for}' "$latest" || echo null)" \
     --argjson deferred "$( [ "$DEFER_DUE" -gt 0 ] && jq -nc --argjson due "$DEFER_DUE" --argjson by "$((DEFER_DUE + BACKUP_MAX_DEFER_S))" --arg why "$DEFER_WHY" \
         '{due_at: ($due | todate), runs_by: ($by | todate), reason: $why}' || echo null)" \
     --argjson fulls "$(manifests | wc -l)" \
     --arg file "$shipped" --argjson size "$size" --argjson shipped_s "$SHIPPED_AT" \
     --arg master_file "$file" --argjson in_sync_s "$IN_SYNC_AT" --argjson lag_bytes "$lag_bytes" \
     --argjson streaming "$( [ -n "$STREAMER_PID" ] && kill -0 "$STREAMER_PID" 2>/dev/null && echo true || echo false)" \
     --argjson now "$(now)" --argjson interval "$BACKUP_FULL_INTERVAL_S" \
     '{updated_at: $updated, target: $dir, timeline: $tl, last_full: $full, fulls: $fulls, full_interval_s: $interval,
       full_deferred: $deferred,
       binlog: {streaming: $streaming, file: $file, bytes: $size, server_file: $master_file,
                last_shipped_at: (if $shipped_s > 0 then ($shipped_s | todate) else null end),
                in_sync_at: (if $in_sync_s > 0 then ($in_sync_s | todate) else null end),
                lag_bytes: $lag_bytes,
                lag_s: (if $in_sync_s > 0 then ($now - $in_sync_s) else null end)},
       standby: $standby}' \
     >"$BACKUP_STATUS_FILE.tmp"
  chmod 644 "$BACKUP_STATUS_FILE.tmp"
  mv -f "$BACKUP_STATUS_FILE.tmp" "$BACKUP_STATUS_FILE"
}

# Why a scheduled full should wait now, or nothing: the events whose window (the view
# assignment_window, the one rule of when an event is open) is open or opens within
# BACKUP_QUIET_BEFORE_S. When the view cannot be asked, nothing (the full runs: waiting
# on a broken check could postpone fulls for good).
exam_now() {
  local r
  r=$(sql "SELECT GROUP_CONCAT(DISTINCT event_id ORDER BY event_id), DATE_FORMAT(MAX(deadline), '%Y-%m-%d %H:%i UTC')
             FROM \`$DB_NAME\`.assignment_window
            WHERE start_time < UTC_TIMESTAMP() + INTERVAL $BACKUP_QUIET_BEFORE_S SECOND AND deadline > UTC_TIMESTAMP()" 2>&1) ||
    { log "cannot ask assignment_window whether an exam is open (${r//$'\n'/ }): not deferring"; return 0; }
  [ "$(cut -f1 <<<"$r")" = NULL ] && return 0
  printf 'exam window open or opening within %s min: event %s (until %s)' \
    "$((BACKUP_QUIET_BEFORE_S / 60))" "$(cut -f1 <<<"$r" | sed 's/,/, /g')" "$(cut -f2 <<<"$r")"
}

daemon() {
  need_recipient
  mkdir -p "$BACKUP_DIR" "$(dirname "$BACKUP_STATUS_FILE")"
  chmod 700 "$BACKUP_DIR"
  [ -f "$BACKUP_DIR/timeline" ] || { echo 1 >"$BACKUP_DIR/timeline"; mkdir -p "$(tdir 1)/binlog/spool" "$(tdir 1)/full"; }
  # a full cut short (the daemon stopped mid-copy) leaves a .partial folder; none runs now
  ( flock -n 8 && rm -rf "$BACKUP_DIR"/t*/full/*.partial ) 8>"$BACKUP_DIR/.full.lock" || true
  local full_pid= backoff=1 last_full due why
  FORCE_FULL=0 LAST_ROTATE=$(now) DEFER_DUE=0 DEFER_WHY=
  trap 'kill ${STREAMER_PID:-} ${full_pid:-} 2>/dev/null; wait; exit 0' TERM INT
  while :; do
    if [ -z "$STREAMER_PID" ] || ! kill -0 "$STREAMER_PID" 2>/dev/null; then
      if start_streamer; then backoff=1; else log "MariaDB not answering; retrying in ${backoff}s"; sleep "$backoff"; backoff=$(( backoff < 8 ? backoff * 2 : 8 )); fi
    fi
    seal_spool || log "sealing the spool failed; retrying"
    if [ $(( $(now) - LAST_ROTATE )) -ge "$BACKUP_BINLOG_ROTATE_S" ]; then
      sql "FLUSH BINARY LOGS" 2>/dev/null || true
      LAST_ROTATE=$(now)
    fi
    # a full when none exists in this timeline, or the newest is older than the interval
    last_full=$(ls -1d "$(tdir "$(timeline)")"/full/*Z/manifest.json 2>/dev/null | sort | tail -n1 || true)
    # (a timeline without a full, or a gap in the binlog, cannot wait: nothing could be
    # restored from it; a scheduled one waits for the exam, at most BACKUP_MAX_DEFER_S,
    # then runs at the lowest CPU and I/O priority)
    if [ -z "$full_pid" ] || ! kill -0 "$full_pid" 2>/dev/null; then
      full_pid=
      if [ "$FORCE_FULL" = 1 ] || [ -z "$last_full" ]; then
        FORCE_FULL=0 DEFER_DUE=0
        ( full_backup ) & full_pid=$!
      else
        due=$(( $(jq -r '.finished_s // 0' "$last_full" 2>/dev/null || echo 0) + BACKUP_FULL_INTERVAL_S ))
        if [ "$(now)" -ge "$due" ]; then
          why=$(exam_now)
          if [ -z "$why" ]; then
            if [ "$DEFER_DUE" -gt 0 ]; then
              ( FULL_DEFERRED_S=$(( $(now) - due )) FULL_DEFERRED_FOR=$DEFER_WHY full_backup ) & full_pid=$!
            else
              ( full_backup ) & full_pid=$!
            fi
            DEFER_DUE=0
          elif [ $(( $(now) - due )) -ge "$BACKUP_MAX_DEFER_S" ]; then
            log "scheduled full deferred $(( $(now) - due )) s, the most BACKUP_MAX_DEFER_S allows: running it at low priority ($why)"
            DEFER_DUE=0
            ( renice -n 19 -p "$BASHPID" >/dev/null; ionice -c 2 -n 7 -p "$BASHPID" 2>/dev/null || true
              FULL_PRIORITY=low FULL_DEFERRED_S=$(( $(now) - due )) FULL_DEFERRED_FOR=$why full_backup ) & full_pid=$!
          else
            [ "$DEFER_DUE" = "$due" ] && [ "$DEFER_WHY" = "$why" ] || log "scheduled full deferred: $why"
            DEFER_DUE=$due DEFER_WHY=$why
          fi
        fi
      fi
    fi
    write_status || true
    sleep "$BACKUP_TICK_S"
  done
}

# ------------------------------------------------------------------ restore

# A timeline's shipped binlog, decrypted, into DIR (files before FROM left out).
plain_binlogs() { # plain_binlogs TIMELINE DIR FROM
  local f
  for f in "$(tdir "$1")"/binlog/*.age; do
    [ -e "$f" ] || continue
    [[ $(basename "$f" .age) < $3 ]] && continue
    age -d -i "$KEYFILE" <"$f" >"$2/$(basename "$f" .age)"
  done
  for f in "$(tdir "$1")"/binlog/spool/mariadb-bin.*; do
    [ -e "$f" ] || continue
    [[ $(basename "$f") < $3 ]] || cp "$f" "$2/"
  done
}

# What the shipped binlog of a timeline (default: the current one) holds, one line per
# transaction: GTID, time (UTC) and the tables it changed, e.g. to find the GTID of a
# mistaken DELETE for `restore --skip`. Needs BACKUP_AGE_KEY.
binlog_log() {
  local tl=${1:-$(timeline)} dir
  [ -n "${BACKUP_AGE_KEY:-}" ] || die "BACKUP_AGE_KEY is not set"
  dir=$(mktemp -d); KEYFILE=$dir/key; ( umask 077; printf '%s\n' "$BACKUP_AGE_KEY" >"$KEYFILE" )
  mkdir "$dir/b"; plain_binlogs "$tl" "$dir/b" ""
  local f
  for f in $(ls -1 "$dir/b" | sort); do
    TZ=UTC mariadb-binlog --base64-output=DECODE-ROWS -v "$dir/b/$f" 2>/dev/null | awk '
      /GTID [0-9]+-[0-9]+-[0-9]+/ { if (id != "") print id, when, ops; for (i = 1; i <= NF; i++) if ($i == "GTID") id = $(i + 1)
        when = "20" substr($1, 2, 2) "-" substr($1, 4, 2) "-" substr($1, 6, 2) " " $2; ops = ""; delete seen }
      /^### (INSERT INTO|UPDATE|DELETE FROM) / { k = $2 ":" $NF; if (!(k in seen)) { seen[k] = 1; ops = ops " " k } }
      END { if (id != "") print id, when, ops }'
  done
  rm -rf "$dir"
}

ctl() { supervisorctl -c "$SUPERVISOR_CONF" "$@"; }

# The transaction GTID in a folder of plain binlog files: "FILE START END TIME" (END
# "-" when it is the file's last), from mariadb-binlog's "# at N" lines.
gtid_in() { # gtid_in DIR GTID
  local f r
  for f in $(ls -1 "$1" | sort); do
    # awk stops at the answer: mariadb-binlog then dies of SIGPIPE, which is fine
    r=$(TZ=UTC mariadb-binlog --base64-output=NEVER "$1/$f" 2>/dev/null | awk -v g="$2" -v f="$f" '
      /^# at [0-9]+$/ { at = $3 }
      /GTID [0-9]+-[0-9]+-[0-9]+/ {
        for (i = 1; i <= NF; i++) if ($i == "GTID") id = $(i + 1)
        if (found) { print f, start, at, when; done = 1; exit }
        if (id == g) { found = 1; start = at; when = "20" substr($1, 2, 2) "-" substr($1, 4, 2) "-" substr($1, 6, 2) " " $2 }
      }
      END { if (found && !done) print f, start, "-", when }') || true
    [ -n "$r" ] && { echo "$r"; return 0; }
  done
  return 0
}

restore() {
  local at= mongo=0 skip=
  while [ $# -gt 0 ]; do
    case $1 in
      --at) at=${2:?--at needs "YYYY-MM-DD HH:MM:SS"}; shift 2 ;;
      --skip) skip=${2:?--skip needs a GTID such as 0-1-1234}; shift 2 ;;
      --mongo) mongo=1; shift ;;
      *) die "restore: unknown argument $1" ;;
    esac
  done
  [ -n "${BACKUP_AGE_KEY:-}" ] || die "BACKUP_AGE_KEY is not set: the key that decrypts the backups (var/prutor.env or your secret store)"
  local at_s
  if [ -n "$at" ]; then
    [[ $at =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}\ [0-9]{2}:[0-9]{2}:[0-9]{2}$ ]] || die "AT must look like 2026-12-01 10:42:07 (UTC)"
    at_s=$(date -u -d "$at" +%s) || die "AT is not a date: $at"
  else
    at_s=$(now)
  fi
  # --skip: the one transaction to leave out (an operator's mistaken DELETE), found in
  # the shipped binlog of whichever timeline holds it; the restore then replays all of
  # that timeline but it, from the last full taken before it
  local skip_tl= skip_s=
  if [ -n "$skip" ]; then
    [[ $skip =~ ^[0-9]+-[0-9]+-[0-9]+$ ]] || die "--skip takes one GTID such as 0-1-1234 (bin/prutor backup log shows them)"
    [ -z "$at" ] || die "--skip replays its timeline to the end: it does not go with --at"
    local scan d hit
    scan=$(mktemp -d "$PRUTOR_VAR/mariadb/tmp/scan.XXXXXX")
    KEYFILE=$scan/key; ( umask 077; printf '%s\n' "$BACKUP_AGE_KEY" >"$KEYFILE" )
    for d in $(ls -1d "$BACKUP_DIR"/t[0-9]* | sort -r); do
      rm -rf "$scan/b"; mkdir "$scan/b"; plain_binlogs "$((10#${d##*/t}))" "$scan/b" ""
      hit=$(gtid_in "$scan/b" "$skip")
      [ -n "$hit" ] || continue
      # a restore replays a timeline's tail into the next one under the same GTIDs:
      # take the timeline that has a full from before the transaction
      local hs n=$((10#${d##*/t})) m2
      hs=$(date -u -d "$(cut -d' ' -f4- <<<"$hit")" +%s)
      for m2 in "$d"/full/*Z/manifest.json; do
        [ -e "$m2" ] && [ "$(jq -r .finished_s "$m2")" -lt "$hs" ] && { skip_tl=$n; skip_s=$hs; }
      done
      [ -n "$skip_tl" ] && break
    done
    rm -rf "$scan"
    [ -n "$skip_tl" ] || die "no transaction $skip with a full backup before it in the shipped binlog"
    log "leaving out $skip (timeline $skip_tl, $(date -u -d "@$skip_s" '+%F %T') UTC)"
  fi
  # the newest full that had finished by AT (with --skip: of that timeline, before it)
  local m chosen=
  while read -r m; do
    if [ -n "$skip_tl" ]; then
      [ "$(jq -r .timeline "$m")" = "$skip_tl" ] && [ "$(jq -r .finished_s "$m")" -lt "$skip_s" ] && chosen=$m
    else
      [ "$(jq -r .finished_s "$m")" -le "$at_s" ] && chosen=$m
    fi
  done < <(manifests)
  [ -n "$chosen" ] || die "no full backup finished before ${at:-now} in $BACKUP_DIR"
  local full tl; full=$(dirname "$chosen"); tl=$(jq -r .timeline "$chosen")
  log "restoring from $full${at:+, up to $at UTC}"
  ( cd "$full" && sha256sum -c --quiet SHA256SUMS ) || die "checksums of $full do not match"

  local key work t0=$SECONDS
  work=$PRUTOR_VAR/mariadb/restore
  rm -rf "$work"; mkdir -p "$work/full" "$work/binlog"
  key=$work/age.key; ( umask 077; printf '%s\n' "$BACKUP_AGE_KEY" >"$key" ); KEYFILE=$key
  decrypt() { age -d -i "$key"; }

  # 1. stop shipping (its spool is then final) and the server
  ctl stop backup >/dev/null 2>&1 || true
  ctl stop mariadb >/dev/null 2>&1 || true
  # 2. the full, prepared (its redo log applied: a consistent data directory)
  decrypt <"$full/mariadb.xbstream.zst.age" | zstd -q -d | mbstream -x -C "$work/full"
  mariabackup --prepare --target-dir="$work/full" >"$work/prepare.log" 2>&1 ||
    die "mariabackup --prepare failed (log $work/prepare.log)"
  local info start_file start_pos
  info=$(cat "$work/full/mariadb_backup_binlog_info" 2>/dev/null || cat "$work/full/xtrabackup_binlog_info")
  start_file=$(cut -f1 <<<"$info"); start_pos=$(cut -f2 <<<"$info")
  # 3. the binlog of that timeline from the backup's position on
  local files=()
  plain_binlogs "$tl" "$work/binlog" "$start_file"
  mapfile -t files < <(ls -1 "$work/binlog" | sort | sed "s|^|$work/binlog/|")
  # 4. the broken data directory and local binlog set aside (never deleted here)
  local aside; aside=$(date -u +%Y%m%dT%H%M%SZ)
  [ -d "$DATA" ] && mv "$DATA" "$DATA.replaced-$aside"
  [ -d "$BINLOG_LOCAL" ] && mv "$BINLOG_LOCAL" "$BINLOG_LOCAL.replaced-$aside"
  mkdir -p "$DATA" "$BINLOG_LOCAL"
  mariabackup --defaults-file="$MYCNF" --move-back --target-dir="$work/full" >"$work/move-back.log" 2>&1 ||
    die "mariabackup --move-back failed (log $work/move-back.log)"
  local os_user; os_user=$(sed -n 's/^user *= *//p' "$MYCNF" | head -n1)
  chown -R "$os_user": "$DATA" "$BINLOG_LOCAL" "$work"
  # 5. the binlog replayed into a private server (no TCP: nobody else writes meanwhile),
  #    logged into the new binlog under the original GTIDs, so numbering goes on and a
  #    GTID names one transaction in every timeline (fsyncs left to the shutdown)
  local sock=$work/mariadb.sock replayed=0
  mariadbd --defaults-file="$MYCNF" --skip-networking --sync-binlog=0 --innodb-flush-log-at-trx-commit=2 --socket="$sock" \
    --pid-file="$work/mariadb.pid" >"$work/mariadbd.log" 2>&1 &
  local mpid=$! i
  for i in $(seq 1 120); do mariadb-admin --socket="$sock" --user=root ping >/dev/null 2>&1 && break; sleep 0.5; done
  if [ ${#files[@]} -gt 0 ]; then
    local stop=(); [ -n "$at" ] && stop=(--stop-datetime="$at")
    # TZ=UTC: --stop-datetime is read in the client's time zone
    if [ -n "$skip" ]; then
      # up to the transaction's first byte, then on from its last: two runs of mariadb-binlog
      local x xf xs xe i k=-1
      x=$(gtid_in "$work/binlog" "$skip"); read -r xf xs xe _ <<<"$x"
      for i in "${!files[@]}"; do [ "$(basename "${files[$i]}")" = "$xf" ] && k=$i; done
      [ "$k" -ge 0 ] || { kill "$mpid"; die "$skip is not after the chosen full"; }
      {
        if [ "$k" -eq 0 ]; then
          TZ=UTC mariadb-binlog --start-position="$start_pos" --stop-position="$xs" "${files[0]}"
        else
          TZ=UTC mariadb-binlog --start-position="$start_pos" "${files[@]:0:$k}"
          TZ=UTC mariadb-binlog --stop-position="$xs" "${files[$k]}"
        fi
        if [ "$xe" != - ]; then TZ=UTC mariadb-binlog --start-position="$xe" "${files[@]:$k}"
        elif [ $((k + 1)) -lt ${#files[@]} ]; then TZ=UTC mariadb-binlog "${files[@]:$((k + 1))}"; fi
      } >"$work/replay.sql" 2>"$work/replay.err" || { kill "$mpid"; die "mariadb-binlog failed: $(tail -n 3 "$work/replay.err")"; }
    else
      TZ=UTC mariadb-binlog --start-position="$start_pos" "${stop[@]}" "${files[@]}" >"$work/replay.sql" 2>"$work/replay.err" ||
        { kill "$mpid"; die "mariadb-binlog failed: $(tail -n 3 "$work/replay.err")"; }
    fi
    mariadb --socket="$sock" --user=root --binary-mode <"$work/replay.sql" ||
      { kill "$mpid"; die "replaying the binlog failed"; }
    replayed=$(grep -c '^COMMIT/\*!\*/;$' "$work/replay.sql" || true)
  fi
  mariadb-admin --socket="$sock" --user=root shutdown >/dev/null
  wait "$mpid" || true
  # 6. the server back under supervision; shipping on a new timeline, a full at once
  new_timeline
  ctl start mariadb >/dev/null
  for i in $(seq 1 120); do mariadb-admin --socket="$DB_SOCKET" --user=root ping >/dev/null 2>&1 && break; sleep 0.5; done
  mariadb-admin --socket="$DB_SOCKET" --user=root ping >/dev/null 2>&1 || die "MariaDB did not come back (var/log/mariadb.log)"
  if [ "$mongo" = 1 ]; then
    if [ "$(jq -r .mongo "$chosen")" = true ]; then
      decrypt <"$full/mongo.jsonl.zst.age" | zstd -q -d | MONGO_URL=$MONGO_URL node "$HERE/mongo.js" restore
    else
      log "WARNING: that full has no MongoDB dump"
    fi
  fi
  ctl start backup >/dev/null || true
  rm -rf "$work"
  log "restored: full of $(jq -r .finished_at "$chosen"), $replayed transactions replayed from $start_file:$start_pos${at:+ up to $at}, in $((SECONDS - t0))s"
  log "the old data directory is in $DATA.replaced-$aside (remove it once you are satisfied)"
}

case ${1:-} in
  daemon) as_backup_user daemon; daemon ;;
  backup) shift
    case ${1:-} in
      "") as_backup_user backup; full_backup ;;
      log) shift; binlog_log "$@" ;;
      status) cat "$BACKUP_STATUS_FILE" ;;
      *) die "backup: unknown argument $1 (none, log [TIMELINE] or status)" ;;
    esac ;;
  restore) shift; restore "$@" ;;
  status) cat "$BACKUP_STATUS_FILE" ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
