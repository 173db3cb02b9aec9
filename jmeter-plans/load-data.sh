#!/usr/bin/env bash
# Load-test data: N students load00001..loadNNNNN in a section LOAD (LOAD_PREFIX,
# LOAD_SECTION), two problems
# (category load-test) with visible and hidden test cases, and an exam scheduled from
# 5 minutes ago for HOURS hours, published to them (one assignment per student and
# question, created in bulk; the triggers fill home_view and codebook_view). Writes the
# JMeter users CSV (username,password,assignment_id,problem).
#
#   load-data.sh                 create (replacing earlier load data)   USERS=100 HOURS=8
#   load-data.sh --remove        delete every load user and what hangs off them
#   load-data.sh --status        how many load users / assignments / code rows exist
#
# Env: USERS, HOURS, LOAD_SECTION (LOAD), LOAD_PREFIX (load), LOAD_PASSWORD (default load-pass: a public test credential),
# LOAD_CSV (default $PRUTOR_VAR/jmeter/users.csv), DB_HOST DB_PORT DB_NAME DB_USER
# DB_PASSWORD (else $PRUTOR_VAR/prutor.env, else CONTRACTS.md's defaults).
# One bcrypt hash of the shared password is computed once and reused for all users,
# so 5000 users take seconds.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

USERS=${USERS:-100}
HOURS=${HOURS:-8}
LOAD_PASSWORD=${LOAD_PASSWORD:-load-pass}
MARK=prutor-load-data:$LOAD_SECTION   # events.description of this section's load events
mode=${1:-create}

case "$USERS" in ''|*[!0-9]*) die "USERS must be a number";; esac
[ "$USERS" -ge 1 ] && [ "$USERS" -le 99999 ] || die "USERS must be 1..99999"
case "$LOAD_PASSWORD" in *,*|*\"*|*\'*|*\\*) die "LOAD_PASSWORD must not contain , \" ' or \\";; esac

bcrypt_hash() {
  local h=""
  if [ -d "$REPO_DIR/webapp/node_modules/bcrypt" ] && command -v node >/dev/null; then
    h=$(cd "$REPO_DIR/webapp" && LP="$LOAD_PASSWORD" node -e \
      "require('bcrypt').hash(process.env.LP, 10).then(h => console.log(h))" 2>/dev/null) || h=""
  fi
  if [ -z "$h" ] && command -v php >/dev/null; then
    h=$(LP="$LOAD_PASSWORD" php -r 'echo password_hash(getenv("LP"), PASSWORD_BCRYPT, ["cost" => 10]);' 2>/dev/null) || h=""
  fi
  if [ -z "$h" ] && command -v htpasswd >/dev/null; then
    h=$(htpasswd -nbBC 10 x "$LOAD_PASSWORD" | cut -d: -f2-) || h=""
  fi
  [ -n "$h" ] || die "no bcrypt implementation found (node bcrypt, php or htpasswd)"
  # $2y$ (PHP, htpasswd) and $2b$ are the same algorithm; node's bcrypt wants $2b$
  h='$2b$'"${h:4}"
  [ ${#h} -eq 60 ] || die "unexpected bcrypt hash length ${#h}"
  printf '%s' "$h"
}

remove_sql() {
  # Rows of tables (added by any migration) that reference users, assignments or code
  # without ON DELETE CASCADE go first; then assignments (cascading code, submissions,
  # compilations, executions, evaluations, grades...: cascades fire no triggers, and
  # the assignments' own triggers drop their home_view/codebook_view rows), then the
  # load events (questions, schedules, slots cascade), problems (test cases cascade),
  # users and the section.
  cat <<SQL
SET @sec = (SELECT id FROM sections WHERE code = '$LOAD_SECTION');
CREATE TEMPORARY TABLE load_users (id INT UNSIGNED PRIMARY KEY)
  SELECT id FROM users WHERE section_id <=> @sec AND username LIKE '${LOAD_PREFIX}%';
CREATE TEMPORARY TABLE load_events (id INT UNSIGNED PRIMARY KEY)
  SELECT id FROM events WHERE description = '$MARK'
      OR (description LIKE 'prutor-load-data%' AND id IN (SELECT event_id FROM slots WHERE section_id <=> @sec));
CREATE TEMPORARY TABLE load_assignments (id INT UNSIGNED PRIMARY KEY)
  SELECT id FROM assignments
   WHERE user_id IN (SELECT id FROM load_users) OR event_id IN (SELECT id FROM load_events);
SQL
  # generic pass over non-cascading foreign keys into users / assignments / code
  local fks
  fks=$(sql "SELECT k.TABLE_NAME, k.COLUMN_NAME, k.REFERENCED_TABLE_NAME
               FROM information_schema.KEY_COLUMN_USAGE k
               JOIN information_schema.REFERENTIAL_CONSTRAINTS r
                 ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME
                AND r.TABLE_NAME = k.TABLE_NAME
              WHERE k.TABLE_SCHEMA = DATABASE()
                AND k.REFERENCED_TABLE_NAME IN ('users', 'assignments', 'code')
                AND r.DELETE_RULE NOT IN ('CASCADE', 'SET NULL')
                AND NOT (k.TABLE_NAME = 'assignments' AND k.REFERENCED_TABLE_NAME = 'users')
                AND NOT (k.TABLE_NAME = 'users')")
  while IFS=$'\t' read -r t c ref; do
    [ -n "$t" ] || continue
    case "$ref" in
      users)       echo "DELETE FROM \`$t\` WHERE \`$c\` IN (SELECT id FROM load_users);" ;;
      assignments) echo "DELETE FROM \`$t\` WHERE \`$c\` IN (SELECT id FROM load_assignments);" ;;
      code)        echo "DELETE FROM \`$t\` WHERE \`$c\` IN (SELECT c.id FROM code c WHERE c.assignment_id IN (SELECT id FROM load_assignments));" ;;
    esac
  done <<<"$fks"
  cat <<SQL
DELETE FROM assignments WHERE id IN (SELECT id FROM load_assignments);
DELETE FROM events WHERE id IN (SELECT id FROM load_events);
DELETE FROM problems WHERE category = 'load-test'
   AND id NOT IN (SELECT problem_id FROM event_questions)
   AND id NOT IN (SELECT problem_id FROM assignments WHERE problem_id IS NOT NULL);
DELETE FROM users WHERE id IN (SELECT id FROM load_users);
DELETE FROM sections WHERE id <=> @sec
   AND NOT EXISTS (SELECT 1 FROM users WHERE section_id = @sec);
SQL
}

status() {
  sql "SELECT CONCAT('load users: ', (SELECT COUNT(*) FROM users u JOIN sections s ON s.id = u.section_id AND s.code = '$LOAD_SECTION'),
                     ', load events: ', (SELECT COUNT(*) FROM events WHERE description = '$MARK'),
                     ', assignments: ', (SELECT COUNT(*) FROM assignments a JOIN events e ON e.id = a.event_id AND e.description = '$MARK'),
                     ', home_view rows: ', (SELECT COUNT(*) FROM home_view h JOIN events e ON e.id = h.event_id AND e.description = '$MARK'),
                     ', code rows: ', (SELECT COUNT(*) FROM code c JOIN assignments a ON a.id = c.assignment_id
                                        JOIN events e ON e.id = a.event_id AND e.description = '$MARK'))"
}

do_remove() {
  local t0=$SECONDS script
  script=$(remove_sql)
  sql "START TRANSACTION; $script COMMIT;" || die "removal failed (nothing was deleted)"
  echo "load data removed in $((SECONDS - t0)) s; now: $(status)"
}

do_create() {
  local t0=$SECONDS hash
  hash=$(bcrypt_hash)
  local script
  script=$(remove_sql)
  cat > /tmp/prutor-load-data.$$.sql <<SQL
START TRANSACTION;
$script
INSERT INTO sections (code, name) VALUES ('$LOAD_SECTION', 'Load test students (jmeter-plans/load-data.sh)');
SET @sec = LAST_INSERT_ID();
INSERT INTO users (username, password_hash, name, email, role, section_id)
SELECT CONCAT('$LOAD_PREFIX', LPAD(seq, 5, '0')), '$hash', CONCAT('Load Student ', seq),
       CONCAT('$LOAD_PREFIX', LPAD(seq, 5, '0'), '@load.invalid'), 'student', @sec
  FROM seq_1_to_$USERS;

INSERT INTO problems (title, category, statement_md, env, template_code, solution_code,
                      time_limit_ms, memory_limit_kb, compare_mode, is_practice)
VALUES ('[load] Sum of two integers', 'load-test',
        'Read two integers \`a\` and \`b\` and print \`a + b\` on one line. Beware: \`a + b\` may not fit an \`int\`.',
        'c', '#include <stdio.h>\n\nint main(void)\n{\n    return 0;\n}\n',
        '#include <stdio.h>\n\nint main(void)\n{\n    long long a, b;\n    if (scanf("%lld %lld", &a, &b) != 2) return 1;\n    printf("%lld\\\\n", a + b);\n    return 0;\n}\n',
        1000, 65536, 'trim', 0);
SET @p1 = LAST_INSERT_ID();
INSERT INTO problems (title, category, statement_md, env, template_code, solution_code,
                      time_limit_ms, memory_limit_kb, compare_mode, is_practice)
VALUES ('[load] Reverse a word', 'load-test',
        'Read one word (at most 100 characters) and print it reversed.',
        'c', '#include <stdio.h>\n\nint main(void)\n{\n    return 0;\n}\n',
        '#include <stdio.h>\n#include <string.h>\n\nint main(void)\n{\n    char w[101];\n    if (scanf("%100s", w) != 1) return 1;\n    for (int i = (int)strlen(w) - 1; i >= 0; i--) putchar(w[i]);\n    putchar(10);\n    return 0;\n}\n',
        1000, 65536, 'trim', 0);
SET @p2 = LAST_INSERT_ID();
INSERT INTO test_cases (problem_id, position, input, expected_output, visibility, weight) VALUES
 (@p1, 1, '2 3\n', '5\n', 'visible', 1),
 (@p1, 2, '-7 7\n', '0\n', 'visible', 1),
 (@p1, 3, '1000000000 2000000000\n', '3000000000\n', 'hidden', 2),
 (@p1, 4, '-5 -6\n', '-11\n', 'hidden', 1),
 (@p2, 1, 'prutor\n', 'roturp\n', 'visible', 1),
 (@p2, 2, 'a\n', 'a\n', 'visible', 1),
 (@p2, 3, 'racecar\n', 'racecar\n', 'hidden', 1),
 (@p2, 4, 'abcdefghij\n', 'jihgfedcba\n', 'hidden', 2);

INSERT INTO events (title, type, description, published_at)
VALUES ('Load test exam', 'exam', '$MARK', NULL);
SET @ev = LAST_INSERT_ID();
INSERT INTO event_questions (event_id, position, problem_id, section_id, max_marks)
VALUES (@ev, 1, @p1, NULL, 10), (@ev, 2, @p2, NULL, 10);
INSERT INTO schedules (event_id, start_time, stop_time)
VALUES (@ev, UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE, UTC_TIMESTAMP(3) + INTERVAL $HOURS HOUR);
INSERT INTO slots (schedule_id, event_id, section_id) VALUES (LAST_INSERT_ID(), @ev, @sec);
-- publish: one assignment per (student, question), in bulk; the triggers fill the views
UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = @ev;
INSERT INTO assignments (kind, user_id, event_id, question_id, problem_id)
SELECT 'event', u.id, q.event_id, q.id, q.problem_id
  FROM event_questions q
  JOIN users u ON u.section_id = @sec AND u.role = 'student'
 WHERE q.event_id = @ev;
COMMIT;
-- the CSV: odd students work on question 1 (sum), even ones on question 2 (reverse)
SELECT CONCAT(u.username, ',$LOAD_PASSWORD,', a.id, ',', IF(q.position = 1, 'sum', 'rev'))
  FROM users u
  JOIN assignments a ON a.user_id = u.id AND a.event_id = @ev
  JOIN event_questions q ON q.id = a.question_id
 WHERE u.section_id = @sec
   AND q.position = 1 + ((CAST(SUBSTRING(u.username, ${#LOAD_PREFIX} + 1) AS UNSIGNED) - 1) % 2)
 ORDER BY u.username;
SQL
  mkdir -p "$(dirname "$LOAD_CSV")"
  local tmp="$LOAD_CSV.tmp.$$"
  echo "username,password,assignment_id,problem" > "$tmp"
  if ! MYSQL_PWD="$DB_PASSWORD" mariadb --protocol=tcp -h "$DB_HOST" -P "$DB_PORT" -u "$DB_USER" -N -B \
        --init-command="SET time_zone='+00:00'" "$DB_NAME" < /tmp/prutor-load-data.$$.sql >> "$tmp"; then
    rm -f "$tmp" /tmp/prutor-load-data.$$.sql
    die "creating load data failed"
  fi
  rm -f /tmp/prutor-load-data.$$.sql
  mv "$tmp" "$LOAD_CSV"
  local rows=$(( $(wc -l < "$LOAD_CSV") - 1 ))
  [ "$rows" -eq "$USERS" ] || die "CSV has $rows users, expected $USERS"
  echo "created $USERS load users in $((SECONDS - t0)) s (password '$LOAD_PASSWORD'); CSV: $LOAD_CSV"
  echo "now: $(status)"
}

case "$mode" in
  create|--create) do_create ;;
  --remove|remove) do_remove ;;
  --status|status) echo "$(status)" ;;
  -h|--help) sed -n '2,17p' "$0" ;;
  *) die "unknown argument $mode (use --remove, --status or nothing)" ;;
esac
