'use strict';
// Home page: 2 queries. Assignments come from the home_view materialized table
// (kept by triggers), filtered by the *current* time at query time through the
// (user_id, stop_time) index, so "ongoing" never goes stale. The times shown are the
// student's own window (assignment_window): an accommodated or paused student keeps
// the event on their home page past the scheduled stop.

function createHomeService({ db }) {
  async function forUser(session) {
    const [rows, notes] = await Promise.all([
      db.query(
        `SELECT hv.assignment_id, hv.event_id, hv.event_title, hv.event_type, hv.question_id, hv.position,
                hv.problem_id, hv.problem_title, hv.max_marks,
                COALESCE(w.start_time, hv.start_time) AS start_time, COALESCE(w.deadline, hv.stop_time) AS stop_time, hv.submitted_at,
                e.description, COALESCE(w.start_time, hv.start_time) <= UTC_TIMESTAMP(3) AS ongoing, UTC_TIMESTAMP(3) AS now_utc
           FROM home_view hv
           JOIN events e ON e.id = hv.event_id
           -- the student's own window (accommodations, pauses, a common start: rdb migration 034)
           LEFT JOIN assignment_window w ON w.assignment_id = hv.assignment_id
          WHERE hv.user_id = ? AND (hv.stop_time > UTC_TIMESTAMP(3) OR w.deadline > UTC_TIMESTAMP(3))
          ORDER BY hv.start_time, hv.event_id, hv.position`,
        [session.uid],
      ),
      db.query(
        `SELECT id, message, created_at FROM notifications
          WHERE (section_id IS NULL OR section_id = ?)
            AND (expires_at IS NULL OR expires_at > UTC_TIMESTAMP(3))
          ORDER BY created_at DESC LIMIT 10`,
        [session.section_id === undefined ? null : session.section_id],
      ),
    ]);
    const now = rows.length ? new Date(rows[0].now_utc) : new Date();
    const events = new Map();
    for (const r of rows) {
      let ev = events.get(r.event_id);
      if (!ev) {
        ev = {
          id: r.event_id, title: r.event_title, type: r.event_type, description: r.description, start: r.start_time, stop: r.stop_time,
          ongoing: !!r.ongoing, assignments: [],
        };
        events.set(r.event_id, ev);
      }
      // extra time can differ per student's assignment: the event closes at the latest stop
      if (r.stop_time > ev.stop) ev.stop = r.stop_time;
      ev.assignments.push({
        id: r.assignment_id, position: r.position, title: r.problem_title, maxMarks: r.max_marks,
        submittedAt: r.submitted_at, stop: r.stop_time,
      });
    }
    const all = [...events.values()];
    return {
      now,
      ongoing: all.filter((e) => e.ongoing),
      upcoming: all.filter((e) => !e.ongoing),
      notifications: notes,
    };
  }
  return { forUser };
}

module.exports = { createHomeService };
