#!/usr/bin/env bash
# rdb tests, against the running MariaDB (`make up`), in a throwaway database
# (prutor_test_rdb, created and dropped here; the app database is not touched).
#
# 1. The migration runner: applies each file once, in order; a second run does
#    nothing; refuses a file that sorts before an applied one; records nothing
#    for a failing file; warns about an edited one; two runners at once apply
#    each file once.
# 2. The materialized views: home_view and codebook_view equal their defining
#    views (home_view_def, codebook_view_def), compared with EXCEPT both ways,
#    after inserts, updates and deletes on every table that feeds them.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
eval "$("$ROOT/bin/prutor" env)"
ADMIN=${RDB_TEST_DEFAULTS_FILE:-$PRUTOR_VAR/conf/root.cnf}
DB=${RDB_TEST_DB:-prutor_test_rdb}
DB2=${DB}_lock

passed=0 failed=0
ok()   { passed=$((passed + 1)); echo "ok   $*"; }
bad()  { failed=$((failed + 1)); echo "FAIL $*"; }
q()    { mariadb --defaults-extra-file="$ADMIN" --database="$DB" --batch --skip-column-names -e "$1"; }
qdb()  { mariadb --defaults-extra-file="$ADMIN" --batch --skip-column-names -e "$1"; }
migrate() { DB_DEFAULTS_FILE=$ADMIN DB_NAME=${MDB:-$DB} bash "$HERE/migrate.sh" "$@"; }

[ -f "$ADMIN" ] && mariadb-admin --defaults-extra-file="$ADMIN" --connect-timeout=3 ping >/dev/null 2>&1 ||
  { echo "rdb/test.sh: MariaDB is not running (make up)"; exit 1; }

tmp=$(mktemp -d)
cleanup() { qdb "DROP DATABASE IF EXISTS \`$DB\`; DROP DATABASE IF EXISTS \`$DB2\`" || true; rm -rf "$tmp"; }
trap cleanup EXIT
qdb "DROP DATABASE IF EXISTS \`$DB\`; CREATE DATABASE \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"

n_migrations=$(find "$HERE/migrations" -maxdepth 1 -name '*.sql' | wc -l)
n_seeds=$(find "$HERE/seed" -maxdepth 1 -name '*.sql' | wc -l)

# ------------------------------------------------------------------ 1. runner
echo "# migration runner"

# Reaching the server: a job started as soon as the server is healthy may not reach it yet
# (a container network's DNS, a listener not up); those errors are waited out, any other
# stops at once. Through the app's account over TCP, with --status (reads only).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
delayed_forwarder() { # port target_port delay_s: listens on port after the delay, forwards to the target
  python3 - "$@" <<'PY' &
import socket, sys, threading, time
port, target, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
time.sleep(delay)
server = socket.create_server(("127.0.0.1", port))
def pipe(src, dst):
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
while True:
    client, _ = server.accept()
    upstream = socket.create_connection(("127.0.0.1", target))
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
PY
}
tcp_migrate() { env -u DB_DEFAULTS_FILE DB_HOST=127.0.0.1 DB_NAME="$DB_NAME" DB_USER="$DB_USER" "$@" bash "$HERE/migrate.sh" --status; }
port=$(free_port)
t0=$SECONDS
out=$(tcp_migrate DB_PORT="$port" DB_PASSWORD="$DB_PASSWORD" MIGRATE_CONNECT_TIMEOUT=2 2>&1) && rc=0 || rc=$?
[ "$rc" = 1 ] && [[ $out == *"no database server after 2 s: ERROR 200"* ]] && [ $((SECONDS - t0)) -ge 2 ] &&
  ok "a server that never answers: the runner waits its timeout, then stops saying why" ||
  bad "a server that never answers (exit $rc after $((SECONDS - t0)) s): $out"
port=$(free_port)
delayed_forwarder "$port" "$DB_PORT" 2
forwarder=$!
out=$(tcp_migrate DB_PORT="$port" DB_PASSWORD="$DB_PASSWORD" MIGRATE_CONNECT_TIMEOUT=30 2>&1) && rc=0 || rc=$?
kill "$forwarder" 2>/dev/null; wait "$forwarder" 2>/dev/null || true
[ "$rc" = 0 ] && grep -q '^applied  migration' <<<"$out" &&
  ok "a server that answers two seconds late: the runner waits for it and goes on" ||
  bad "a server that answers two seconds late (exit $rc): $out"
t0=$SECONDS
out=$(tcp_migrate DB_PORT="$DB_PORT" DB_PASSWORD=not-the-password MIGRATE_CONNECT_TIMEOUT=30 2>&1) && rc=0 || rc=$?
[ "$rc" = 1 ] && [[ $out == *"cannot connect"*"ERROR 1045"* ]] && [ $((SECONDS - t0)) -lt 10 ] &&
  ok "a wrong password is not waited out: the runner stops at once" ||
  bad "a wrong password (exit $rc after $((SECONDS - t0)) s): $out"
# The name is looked up once and the address used from then on (a container network's DNS
# drops queries while it reloads, as containers start next to the job): a name only the
# runner's first lookup knows (a getent in front of the real one) must be enough.
mkdir -p "$tmp/resolver"
cat >"$tmp/resolver/getent" <<'SH'
#!/bin/sh
[ "$2" = prutor-db.invalid ] && { echo "127.0.0.1       STREAM prutor-db.invalid"; exit 0; }
exec /usr/bin/getent "$@"
SH
chmod +x "$tmp/resolver/getent"
out=$(PATH="$tmp/resolver:$PATH" tcp_migrate DB_HOST=prutor-db.invalid DB_PORT="$DB_PORT" DB_PASSWORD="$DB_PASSWORD" MIGRATE_CONNECT_TIMEOUT=3 2>&1) && rc=0 || rc=$?
[ "$rc" = 0 ] && grep -q '^applied  migration' <<<"$out" &&
  ok "the server's name is resolved once: every connection goes to that address" ||
  bad "a name resolved once (exit $rc): $out"

out=$(migrate 2>&1) || { echo "$out"; bad "first run applies every migration"; exit 1; }
[ "$(q "SELECT COUNT(*) FROM schema_migrations WHERE kind='migration'")" = "$n_migrations" ] &&
  [ "$(grep -c 'applied migration' <<<"$out")" = "$n_migrations" ] &&
  ok "first run applies the $n_migrations migrations" || { echo "$out"; bad "first run applies every migration"; }

order=$(q "SELECT name FROM schema_migrations WHERE kind='migration' ORDER BY applied_at, name" | tr '\n' ' ')
expected=$(find "$HERE/migrations" -maxdepth 1 -name '*.sql' -printf '%f\n' | LC_ALL=C sort | tr '\n' ' ')
[ "$order" = "$expected" ] && ok "applied in name order" || bad "applied in name order: $order"

before=$(q "SELECT GROUP_CONCAT(name, applied_at ORDER BY name) FROM schema_migrations")
out=$(migrate 2>&1)
after=$(q "SELECT GROUP_CONCAT(name, applied_at ORDER BY name) FROM schema_migrations")
[[ $out == *"up to date"* ]] && [ "$before" = "$after" ] && ok "second run changes nothing" ||
  { echo "$out"; bad "second run changes nothing"; }

out=$(migrate --seed 2>&1)
[ "$(q "SELECT COUNT(*) FROM schema_migrations WHERE kind='seed'")" = "$n_seeds" ] &&
  [ "$(q "SELECT COUNT(*) FROM users")" = 23 ] && ok "--seed applies the seed once (23 demo users)" ||
  { echo "$out"; bad "--seed applies the seed"; }
out=$(migrate --seed 2>&1)
[[ $out == *"up to date"* ]] && [ "$(q "SELECT COUNT(*) FROM users")" = 23 ] &&
  ok "second --seed changes nothing" || { echo "$out"; bad "second --seed changes nothing"; }

status=$(migrate --status)
[ "$(grep -c '^applied' <<<"$status")" = $((n_migrations + n_seeds)) ] && ! grep -q '^pending' <<<"$status" &&
  ok "--status lists everything applied" || { echo "$status"; bad "--status"; }

# A copy of the migrations to grow.
mdir=$tmp/migrations
cp -r "$HERE/migrations" "$mdir"
echo "CREATE TABLE t_extra (id INT PRIMARY KEY);" >"$mdir/900_extra.sql"
grep -q '^pending  migration 900_extra.sql' <<<"$(MIGRATIONS_DIR=$mdir migrate --status)" &&
  ok "--status shows a new file as pending" || bad "--status shows a new file as pending"
out=$(MIGRATIONS_DIR=$mdir migrate 2>&1)
[ "$(grep -c 'applied migration' <<<"$out")" = 1 ] && [[ $out == *900_extra.sql* ]] &&
  [ "$(q "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='$DB' AND table_name='t_extra'")" = 1 ] &&
  ok "a new migration is applied alone" || { echo "$out"; bad "a new migration is applied alone"; }

echo "CREATE TABLE t_late (id INT);" >"$mdir/005_late.sql"
if out=$(MIGRATIONS_DIR=$mdir migrate 2>&1); then
  bad "a file sorting before an applied one is refused"
else
  [[ $out == *"sorts before"* ]] &&
    [ "$(q "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema='$DB' AND table_name='t_late'")" = 0 ] &&
    ok "a file sorting before an applied one is refused (forward-only)" || { echo "$out"; bad "out-of-order refusal"; }
fi
rm -f "$mdir/005_late.sql"

printf 'CREATE TABLE t_half (id INT);\nSELECT no_such_column FROM t_half;\n' >"$mdir/901_broken.sql"
if MIGRATIONS_DIR=$mdir migrate >/dev/null 2>&1; then
  bad "a failing migration fails the run"
else
  [ "$(q "SELECT COUNT(*) FROM schema_migrations WHERE name='901_broken.sql'")" = 0 ] &&
    ok "a failing migration fails the run and is not recorded" || bad "failing migration recorded"
fi
if MIGRATIONS_DIR=$mdir migrate >/dev/null 2>&1; then bad "it fails again until fixed"; else ok "it fails again until fixed"; fi
printf 'CREATE TABLE IF NOT EXISTS t_half (id INT);\n' >"$mdir/901_broken.sql"
MIGRATIONS_DIR=$mdir migrate >/dev/null 2>&1 &&
  [ "$(q "SELECT COUNT(*) FROM schema_migrations WHERE name='901_broken.sql'")" = 1 ] &&
  ok "once fixed it is applied" || bad "once fixed it is applied"

echo "-- edited after shipping" >>"$mdir/900_extra.sql"
out=$(MIGRATIONS_DIR=$mdir migrate 2>&1) && [[ $out == *"changed after it was applied"* ]] &&
  ok "an edited applied migration is reported" || { echo "$out"; bad "edited migration warning"; }

qdb "CREATE DATABASE \`$DB2\`"
MDB=$DB2 migrate >"$tmp/r1" 2>&1 & p1=$!
MDB=$DB2 migrate >"$tmp/r2" 2>&1 & p2=$!
r1=0 r2=0; wait $p1 || r1=$?; wait $p2 || r2=$?
applied=$(cat "$tmp/r1" "$tmp/r2" | grep -c 'applied migration' || true)
[ $r1 = 0 ] && [ $r2 = 0 ] && [ "$applied" = "$n_migrations" ] &&
  [ "$(qdb "SELECT COUNT(*) FROM \`$DB2\`.schema_migrations")" = "$n_migrations" ] &&
  ok "two runners at once apply each migration once" || { cat "$tmp/r1" "$tmp/r2"; bad "concurrent runners"; }

# ------------------------------------------------------------------ 2. views
echo "# materialized views equal their definitions"

view_diff() { # view_diff VIEW -> "<rows differing> <rows in table> <rows in def>"
  q "SELECT (SELECT COUNT(*) FROM (SELECT * FROM $1 EXCEPT SELECT * FROM $1_def) x)
          + (SELECT COUNT(*) FROM (SELECT * FROM $1_def EXCEPT SELECT * FROM $1) y),
            (SELECT COUNT(*) FROM $1), (SELECT COUNT(*) FROM $1_def)" | tr '\t' ' '
}
check_views() { # check_views LABEL
  local v d rows def msg=
  for v in home_view codebook_view; do
    read -r d rows def <<<"$(view_diff $v)"
    if [ "$d" != 0 ] || [ "$rows" != "$def" ]; then
      msg="$msg $v: $d rows differ ($rows in table, $def in view);"
      q "SELECT 'table-only', t.* FROM (SELECT * FROM $v EXCEPT SELECT * FROM ${v}_def) t
         UNION ALL SELECT 'def-only', d.* FROM (SELECT * FROM ${v}_def EXCEPT SELECT * FROM $v) d" |
        cut -c1-200 | head -n 6 | sed 's/^/       /'
    fi
  done
  if [ -z "$msg" ]; then ok "views match after: $1"; else bad "after $1:$msg"; fi
}
step() { # step LABEL SQL
  if q "$2"; then check_views "$1"; else bad "statement failed: $1"; fi
}

[ "$(q "SELECT COUNT(*) FROM home_view")" -gt 0 ] && [ "$(q "SELECT COUNT(*) FROM codebook_view")" -gt 0 ] &&
  ok "seeded views are not empty" || bad "seeded views are empty"
check_views "seed"

A1=$(q "SELECT id FROM assignments WHERE user_id = 101 AND question_id = 1")
A2=$(q "SELECT id FROM assignments WHERE user_id = 101 AND question_id = 2")
AB=$(q "SELECT id FROM assignments WHERE user_id = 115 AND question_id = 1")
AQ=$(q "SELECT id FROM assignments WHERE user_id = 102 AND question_id = 3")

# assignments
step "insert user + event assignment" \
  "INSERT INTO users (id, username, password_hash, name, role, section_id) VALUES (121, 'student21', REPEAT('x', 60), 'Student 21', 'student', 1);
   INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id) VALUES ('event', 121, 1, 1, 1)"
A121=$(q "SELECT id FROM assignments WHERE user_id = 121 AND question_id = 1")
step "insert practice assignment" "INSERT INTO assignments (kind, user_id, problem_id) VALUES ('practice', 101, 3)"
step "insert scratch assignment" "INSERT INTO assignments (kind, user_id, title) VALUES ('scratch', 101, 'my scratch')"
AS=$(q "SELECT id FROM assignments WHERE kind = 'scratch' AND user_id = 101")
step "update assignments.score" "UPDATE assignments SET score = 7.5 WHERE id = $A1"
step "update assignments.extra_minutes" "UPDATE assignments SET extra_minutes = 15 WHERE id = $A2"
step "update assignments.title (scratch)" "UPDATE assignments SET title = 'renamed' WHERE id = $AS"
step "update assignments.problem_id" "UPDATE assignments SET problem_id = 2 WHERE id = $A121"
step "update assignments.user_id" "UPDATE assignments SET user_id = 102 WHERE id = $AS"
step "update assignments.kind event -> practice" \
  "UPDATE assignments SET kind = 'practice', event_id = NULL, question_id = NULL, problem_id = 4 WHERE id = $A121"
step "delete assignment" "DELETE FROM assignments WHERE id = $AS"

# code (save, submit, out-of-order, ties) and submissions through the trigger
step "insert code (manual save)" \
  "INSERT INTO code (assignment_id, branch_id, save_trigger, code) VALUES ($A1, 0, 'manual', 'int main(void){return 0;}')"
step "insert code (submit, authorising INSERT ... SELECT)" \
  "INSERT INTO code (assignment_id, branch_id, save_trigger, code, save_time)
   SELECT a.id, 0, 'submit', 'submitted', UTC_TIMESTAMP(3) + INTERVAL 1 SECOND FROM assignments a WHERE a.id = $A1 AND a.user_id = 101"
step "insert code older than the latest" \
  "INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES ($A1, 'auto', 'old', UTC_TIMESTAMP(3) - INTERVAL 1 DAY)"
step "insert two codes with the same save_time" \
  "INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES
     ($A2, 'auto', 'tie-1', '2030-01-01 00:00:00.000'), ($A2, 'auto', 'tie-2', '2030-01-01 00:00:00.000')"
step "second submit (latest submit wins)" \
  "INSERT INTO code (assignment_id, save_trigger, code, save_time) VALUES ($A1, 'submit', 'resubmitted', UTC_TIMESTAMP(3) + INTERVAL 2 SECOND)"
CLATEST=$(q "SELECT id FROM code WHERE assignment_id = $A1 ORDER BY save_time DESC, id DESC LIMIT 1")
COLD=$(q "SELECT id FROM code WHERE assignment_id = $A1 AND code = 'old'")
step "update code text of the latest" "UPDATE code SET code = 'edited' WHERE id = $CLATEST"
step "update code.save_time (old row becomes latest)" "UPDATE code SET save_time = '2031-01-01' WHERE id = $COLD"
step "update code.assignment_id (move a row)" "UPDATE code SET assignment_id = $A2 WHERE id = $COLD"
step "delete the submitted code (cascades to submissions)" "DELETE FROM code WHERE id = $CLATEST"
step "delete every code of an assignment" "DELETE FROM code WHERE assignment_id = $A2"

# grades
step "insert grade" "INSERT INTO grades (assignment_id, marks, feedback, grader_id) VALUES ($A1, 8, 'good', 3)"
step "update grade" "UPDATE grades SET marks = 9, feedback = 'very good' WHERE assignment_id = $A1"
step "delete grade" "DELETE FROM grades WHERE assignment_id = $A1"
step "update quiz grade (seeded)" "UPDATE grades SET feedback = 'regraded' WHERE assignment_id = (SELECT id FROM assignments WHERE user_id = 101 AND question_id = 3)"

# events
step "update events.title and type" "UPDATE events SET title = 'Lab 1 (renamed)', type = 'exam' WHERE id = 1"
step "unpublish event" "UPDATE events SET published_at = NULL WHERE id = 1"
step "republish event" "UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = 1"
step "insert event with question, schedule, slot and assignments" \
  "INSERT INTO events (id, title, type, description, published_at, created_by) VALUES (3, 'Exam', 'exam', '', UTC_TIMESTAMP(3), 2);
   INSERT INTO event_questions (id, event_id, position, problem_id, section_id, max_marks) VALUES (10, 3, 1, 5, NULL, 20);
   INSERT INTO schedules (id, event_id, start_time, stop_time) VALUES (10, 3, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL 2 HOUR);
   INSERT INTO slots (schedule_id, event_id, section_id) VALUES (10, 3, 2);
   INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id)
     SELECT 'event', u.id, 3, 10, 5 FROM users u WHERE u.section_id = 2 AND u.role = 'student'"
step "delete event (its assignments first)" "DELETE FROM assignments WHERE event_id = 3; DELETE FROM events WHERE id = 3"

# event_questions
step "update event_questions.position and max_marks" "UPDATE event_questions SET position = 5, max_marks = 12.5 WHERE id = 2"
step "update event_questions.problem_id" "UPDATE event_questions SET problem_id = 4 WHERE id = 2"
step "insert and delete a question" \
  "INSERT INTO event_questions (id, event_id, position, problem_id) VALUES (11, 1, 9, 3); DELETE FROM event_questions WHERE id = 11"

# problems
step "update problems.title" "UPDATE problems SET title = 'Sum (renamed)' WHERE id = 1"
step "update problems.title (practice problem)" "UPDATE problems SET title = 'Factorial (renamed)' WHERE id = 3"
step "insert and delete a problem" \
  "INSERT INTO problems (id, title, statement_md, template_code, solution_code) VALUES (50, 'x', '', '', '');
   DELETE FROM problems WHERE id = 50"

# schedules
step "update schedules.stop_time" "UPDATE schedules SET stop_time = stop_time + INTERVAL 1 DAY WHERE id = 1"
step "update schedules.start_time" "UPDATE schedules SET start_time = start_time - INTERVAL 1 HOUR WHERE id = 1"
step "insert schedule, move section B's slot to it" \
  "INSERT INTO schedules (id, event_id, start_time, stop_time) VALUES (11, 1, UTC_TIMESTAMP(3), UTC_TIMESTAMP(3) + INTERVAL 3 HOUR);
   UPDATE slots SET schedule_id = 11 WHERE event_id = 1 AND section_id = 2"
step "delete schedule (cascades to its slot)" "DELETE FROM schedules WHERE id = 11"

# slots
step "insert slot" "INSERT INTO slots (schedule_id, event_id, section_id) VALUES (1, 1, 2)"
step "update slots.section_id" \
  "INSERT INTO sections (id, code, name) VALUES (3, 'C', 'Section C');
   UPDATE users SET section_id = 3 WHERE id = 120;
   UPDATE slots SET section_id = 3 WHERE event_id = 1 AND section_id = 2"
step "update slots.section_id back" "UPDATE slots SET section_id = 2 WHERE event_id = 1 AND section_id = 3"
step "update slots.event_id" \
  "INSERT INTO events (id, title, description, published_at) VALUES (4, 'Other', '', UTC_TIMESTAMP(3));
   UPDATE slots SET event_id = 4, schedule_id = 2 WHERE event_id = 2 AND section_id = 2"
step "delete slot" "DELETE FROM slots WHERE event_id = 1 AND section_id = 1"
step "insert slot back" "INSERT INTO slots (schedule_id, event_id, section_id) VALUES (1, 1, 1)"

# users.section_id
step "update users.section_id A -> B" "UPDATE users SET section_id = 2 WHERE id = 101"
step "update users.section_id -> NULL" "UPDATE users SET section_id = NULL WHERE id = 102"
step "update users.section_id back" "UPDATE users SET section_id = 1 WHERE id IN (101, 102)"

# submissions written directly
step "insert code and submission directly" \
  "INSERT INTO code (id, assignment_id, save_trigger, code) VALUES (9000, $AB, 'manual', 'x');
   INSERT INTO submissions (assignment_id, code_id, submitted_at) VALUES ($AB, 9000, UTC_TIMESTAMP(3))"
step "update submissions.submitted_at" "UPDATE submissions SET submitted_at = submitted_at - INTERVAL 1 HOUR WHERE assignment_id = $AB"
step "delete submission" "DELETE FROM submissions WHERE assignment_id = $AB"
step "delete a seeded submission" "DELETE FROM submissions WHERE assignment_id = $AQ"

# Negative control: the comparison does see a drifted row.
q "UPDATE home_view SET event_title = 'drifted' WHERE assignment_id = $A1;
   UPDATE codebook_view SET latest_code = 'drifted' WHERE assignment_id = $AQ"
read -r dh _ <<<"$(view_diff home_view)"; read -r dc _ <<<"$(view_diff codebook_view)"
[ "$dh" = 2 ] && [ "$dc" = 2 ] && ok "the comparison detects a drifted row (negative control)" ||
  bad "the comparison missed a drifted row ($dh, $dc)"

echo "rdb: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
