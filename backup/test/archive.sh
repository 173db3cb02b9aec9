#!/usr/bin/env bash
# The exam archive round trip (backup/test.sh runs it): an event of its own (3 students
# of section ARCH from jmeter-plans/load-data.sh) with saves and a submit made through
# HAProxy, a mark with feedback and a regrade request; exported; read with unzip and a
# CSV reader alone; the event deleted; imported; exported again: the same files, row by
# row (only the export time differs). Hostile archives are refused with a sentence.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "archive test: FAIL: $*" >&2; exit 1; }
ok() { echo "ok - $*"; }
work=$(mktemp -d)
cleanup() { rm -rf "$work"; LOAD_PREFIX=arch LOAD_SECTION=ARCH bash "$ROOT/jmeter-plans/load-data.sh" --remove >/dev/null 2>&1 || true; }
trap cleanup EXIT
export BASE_URL=${BASE_URL:-http://127.0.0.1:$HAPROXY_PORT}
db() { mariadb --defaults-extra-file="$PRUTOR_VAR/conf/client.cnf" -N -B -e "$1"; }

LOAD_PREFIX=arch LOAD_SECTION=ARCH LOAD_CSV=$work/users.csv USERS=3 HOURS=1 bash "$ROOT/jmeter-plans/load-data.sh" >/dev/null
RUN=arch$RANDOM USERS_CSV=$work/users.csv node -e '
  const { students } = require(process.argv[1]);
  (async () => {
    for (const s of students(process.env.USERS_CSV)) {
      await s.login();
      for (const label of ["a", "b"]) if (!(await s.save(label))) throw new Error("save not acknowledged");
      if (!(await s.save("final", "submit"))) throw new Error("submit not acknowledged");
    }
  })().catch((e) => { console.error(e.message); process.exit(1); });' "$ROOT/backup/test/students.js"
asg=$(cut -d, -f3 "$work/users.csv" | sed -n 2p)
event=$(db "SELECT event_id FROM assignments WHERE id = $asg")
grader=$(db "SELECT id FROM users WHERE role IN ('instructor', 'admin') ORDER BY id LIMIT 1")
db "INSERT INTO grades (assignment_id, marks, feedback, grader_id) VALUES ($asg, 7.5, 'Good, \"but\" check n = 0,\nand the loop bound.', $grader);
    INSERT INTO regrade_requests (assignment_id, reason, response) VALUES ($asg, 'Test 2 is wrong', '')"

# the auto-grader takes each submission from the queue within seconds: the archive is
# taken once it has (else the second export would hold marks the first did not)
for i in $(seq 1 120); do
  [ "$(db "SELECT COUNT(*) FROM grading_queue q JOIN assignments a ON a.id = q.assignment_id
           WHERE a.event_id = $event AND q.due_at <= UTC_TIMESTAMP(3)")" = 0 ] && break
  sleep 0.5
done
node "$ROOT/backup/archive.js" export "$event" "$work/a.zip"
unzip -l "$work/a.zip" >"$work/list" || fail "unzip cannot list the archive"
for f in manifest.json README.txt tables/code.csv tables/submissions.csv tables/grades.csv tables/regrade_requests.csv tables/event_timing.csv; do
  grep -q " $f\$" "$work/list" || fail "the archive lacks $f"
done
n_src=$(grep -c ' source/arch[0-9]*/q[0-9]*/.*\.c$' "$work/list" || true)
n_db=$(db "SELECT COUNT(*) FROM code c JOIN assignments a ON a.id = c.assignment_id WHERE a.event_id = $event")
[ "$n_src" = "$n_db" ] || fail "$n_src source files for $n_db saved versions"
# a CSV reader alone: the feedback with its quote, comma and newline comes back whole
unzip -p "$work/a.zip" tables/grades.csv | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert len(rows) == 1 and rows[0]["marks"] == "7.50", rows
assert rows[0]["feedback"] == "Good, \"but\" check n = 0,\nand the loop bound.", rows[0]["feedback"]'
unzip -p "$work/a.zip" tables/code.csv | python3 -c "
import csv, sys
assert sum(1 for _ in csv.DictReader(sys.stdin)) == $n_db"
unzip -p "$work/a.zip" tables/users.csv | head -1 | grep -q password && fail "the archive carries password hashes"
ok "export: $n_db saved versions as source files, CSV read back by a CSV reader (quotes, commas, newlines), no password hashes"

out=$(node "$ROOT/backup/archive.js" import "$work/a.zip" 2>&1) && fail "imported over the existing event"
grep -q 'exists; delete it first' <<<"$out" || fail "import over an existing event said: $out"
db "DELETE FROM assignments WHERE event_id = $event; DELETE FROM events WHERE id = $event"
# tampered: one mark changed inside the zip
mkdir "$work/t" && (cd "$work/t" && unzip -q "$work/a.zip" && sed -i 's/7\.50/10.00/' tables/grades.json && zip -q -r "$work/t.zip" .)
out=$(node "$ROOT/backup/archive.js" import "$work/t.zip" 2>&1) && fail "imported a tampered archive"
grep -q 'tables/grades.json does not match its checksum' <<<"$out" || fail "a tampered archive said: $out"
out=$(node "$ROOT/backup/archive.js" import "$work/list" 2>&1) && fail "imported a file that is not a zip"
grep -q 'is not a zip archive' <<<"$out" || fail "a non-zip said: $out"
[ "$(db "SELECT COUNT(*) FROM events WHERE id = $event")" = 0 ] || fail "a refused import left rows"
ok "import refuses an existing event, a tampered archive and a non-zip, with a sentence, writing nothing"

node "$ROOT/backup/archive.js" import "$work/a.zip"
node "$ROOT/backup/archive.js" export "$event" "$work/b.zip"
mkdir "$work/a" "$work/b" && unzip -q "$work/a.zip" -d "$work/a" && unzip -q "$work/b.zip" -d "$work/b"
# users are context, not the event's: their last sign-in moves on (the students above)
diff -r -x manifest.json -x 'users.*' "$work/a" "$work/b" || fail "the re-exported event differs"
diff <(jq 'del(.exported_at, .files["tables/users.csv"], .files["tables/users.json"])' "$work/a/manifest.json") \
     <(jq 'del(.exported_at, .files["tables/users.csv"], .files["tables/users.json"])' "$work/b/manifest.json") || fail "the manifests differ"
cmp <(jq -c '[.[] | [.id, .username]]' "$work/a/tables/users.json") <(jq -c '[.[] | [.id, .username]]' "$work/b/tables/users.json") ||
  fail "the users named differ"
ok "deleted and imported: the same rows in every table (saves, submissions, marks, feedback, regrades, timing) and the same files"
