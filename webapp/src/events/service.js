'use strict';
// Events: lab/quiz/exam, questions (optionally one variant per section),
// schedules given to sections through slots, publish (one assignment per student
// and question, one transaction, idempotent), unpublish before start, time
// extensions, results, turning a finished event into practice. The materialized
// views (home_view, codebook_view) follow through their triggers; nothing here
// writes them.
const { Form, fieldError } = require('../lib/form');
const { notFound, conflict, badRequest } = require('../shared/errors');
const csv = require('../lib/csv');

const TYPES = ['lab', 'quiz', 'exam'];

// The assignments of every active student of the event's scheduled sections: the
// question at each position is the section's own variant if there is one, else
// the variant for all sections. INSERT IGNORE on uq_assignments_question_user
// makes it idempotent (a second publish creates nothing). Exported: an LTI launch
// (src/lti) runs it when a student new to a published event arrives.
const PUBLISH_SQL = `INSERT IGNORE INTO assignments (kind, user_id, event_id, question_id, problem_id, title)
SELECT 'event', u.id, q.event_id, q.id, q.problem_id, ''
  FROM slots sl
  JOIN users u ON u.section_id = sl.section_id AND u.role = 'student' AND u.active = 1
  JOIN event_questions q ON q.event_id = sl.event_id
   AND (q.section_id = sl.section_id
        OR (q.section_id IS NULL AND NOT EXISTS (SELECT 1 FROM event_questions v
              WHERE v.event_id = q.event_id AND v.position = q.position AND v.section_id = sl.section_id)))
 WHERE sl.event_id = ?`;

function createEventsService({ db }) {
  async function list() {
    return db.query(`SELECT e.id, e.title, e.type, e.published_at, e.created_at,
        (SELECT COUNT(DISTINCT q.position) FROM event_questions q WHERE q.event_id = e.id) AS questions,
        (SELECT MIN(s.start_time) FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE s.event_id = e.id) AS first_start,
        (SELECT MAX(s.stop_time) FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE s.event_id = e.id) AS last_stop,
        (SELECT COUNT(*) FROM slots sl WHERE sl.event_id = e.id) AS sections,
        (SELECT COUNT(*) FROM assignments a WHERE a.event_id = e.id) AS assignments,
        UTC_TIMESTAMP(3) AS now
      FROM events e ORDER BY COALESCE((SELECT MIN(s.start_time) FROM schedules s WHERE s.event_id = e.id), e.created_at) DESC, e.id DESC LIMIT 500`);
  }

  async function get(id) {
    const rows = await db.query('SELECT e.*, UTC_TIMESTAMP(3) AS now FROM events e WHERE e.id = ?', [id]);
    if (!rows[0]) throw notFound('No such event.');
    return rows[0];
  }

  async function detail(id) {
    const [event, questions, schedules, counts] = await Promise.all([
      get(id),
      db.query(`SELECT q.id, q.position, q.problem_id, q.section_id, q.max_marks, p.title AS problem_title, s.code AS section_code,
          (SELECT COUNT(*) FROM assignments a WHERE a.question_id = q.id) AS assignments
        FROM event_questions q JOIN problems p ON p.id = q.problem_id LEFT JOIN sections s ON s.id = q.section_id
        WHERE q.event_id = ? ORDER BY q.position, q.section_id IS NOT NULL, s.code`, [id]),
      db.query(`SELECT sc.id, sc.start_time, sc.stop_time, sl.section_id, s.code AS section_code, s.name AS section_name,
          (SELECT COUNT(*) FROM users u WHERE u.section_id = sl.section_id AND u.role = 'student' AND u.active = 1) AS students
        FROM schedules sc JOIN slots sl ON sl.schedule_id = sc.id JOIN sections s ON s.id = sl.section_id
        WHERE sc.event_id = ? ORDER BY sc.start_time, s.code`, [id]),
      db.query(`SELECT COUNT(*) AS assignments, COUNT(DISTINCT a.user_id) AS students,
          (SELECT COUNT(*) FROM submissions sb JOIN assignments a2 ON a2.id = sb.assignment_id WHERE a2.event_id = ?) AS submitted
        FROM assignments a WHERE a.event_id = ?`, [id, id]),
    ]);
    // group slots by schedule
    const bySchedule = new Map();
    for (const r of schedules) {
      if (!bySchedule.has(r.id)) bySchedule.set(r.id, { id: r.id, start_time: r.start_time, stop_time: r.stop_time, sections: [] });
      bySchedule.get(r.id).sections.push({ id: r.section_id, code: r.section_code, name: r.section_name, students: r.students });
    }
    return { event, questions, schedules: [...bySchedule.values()], counts: counts[0] };
  }

  function readEvent(body) {
    const f = new Form(body);
    const e = {
      title: f.str('title', { label: 'Title', required: true, max: 200 }),
      type: f.oneOf('type', TYPES, { label: 'Type' }),
      description: f.str('description', { label: 'Description', max: 5000, trim: false }),
    };
    f.check();
    return e;
  }

  async function create(actor, body) {
    const e = readEvent(body);
    const r = await db.query('INSERT INTO events (title, type, description, created_by) VALUES (?, ?, ?, ?)', [e.title, e.type, e.description || '', actor.uid]);
    return r.insertId;
  }

  async function update(id, body) {
    const e = readEvent(body);
    await get(id);
    await db.query('UPDATE events SET title = ?, type = ?, description = ? WHERE id = ?', [e.title, e.type, e.description || '', id]);
  }

  async function remove(id) {
    await db.tx(async (tx) => {
      const ev = await tx.query('SELECT published_at FROM events WHERE id = ? FOR UPDATE', [id]);
      if (!ev[0]) throw notFound('No such event.');
      if (ev[0].published_at) throw conflict('A published event cannot be deleted. Unpublish it first (possible before it starts).');
      await tx.query('DELETE FROM assignments WHERE event_id = ?', [id]);
      await tx.query('DELETE FROM events WHERE id = ?', [id]);
    });
  }

  async function addQuestion(eventId, body) {
    const f = new Form(body);
    const problemId = f.int('problem_id', { label: 'Problem', required: true, min: 1 });
    const sectionRaw = f.str('section_id', { label: 'Section', max: 12 });
    const maxMarks = f.num('max_marks', { label: 'Max marks', required: true, min: 0, max: 9999 });
    let position = f.int('position', { label: 'Position', min: 1, max: 500 });
    let sectionId = null;
    if (sectionRaw) { if (!/^\d+$/.test(sectionRaw)) f.fail('section_id', 'Choose a section from the list.'); else sectionId = Number(sectionRaw); }
    f.check();
    return db.tx(async (tx) => {
      const ev = await tx.query('SELECT id, published_at FROM events WHERE id = ? FOR UPDATE', [eventId]);
      if (!ev[0]) throw notFound('No such event.');
      const p = await tx.query('SELECT id FROM problems WHERE id = ?', [problemId]);
      if (!p[0]) throw fieldError('problem_id', 'Choose a problem from the list.', f.values);
      if (sectionId) {
        const s = await tx.query('SELECT id FROM sections WHERE id = ?', [sectionId]);
        if (!s[0]) throw fieldError('section_id', 'Choose a section from the list.', f.values);
      }
      if (!position) position = (await tx.query('SELECT COALESCE(MAX(position), 0) + 1 AS n FROM event_questions WHERE event_id = ?', [eventId]))[0].n;
      const same = await tx.query('SELECT id, section_id FROM event_questions WHERE event_id = ? AND position = ?', [eventId, position]);
      if (same.some((q) => (q.section_id || null) === sectionId)) {
        throw fieldError(sectionId ? 'section_id' : 'position', sectionId
          ? `Question ${position} already has a variant for this section.`
          : `Question ${position} already has a version for all sections; add a variant for one section, or use another position.`, f.values);
      }
      if (ev[0].published_at && same.length) {
        throw fieldError('position', `The event is published and question ${position} has assignments: add new questions at a new position.`, f.values);
      }
      const r = await tx.query('INSERT INTO event_questions (event_id, position, problem_id, section_id, max_marks) VALUES (?, ?, ?, ?, ?)',
        [eventId, position, problemId, sectionId, maxMarks]);
      let created = 0;
      if (ev[0].published_at) created = (await tx.query(PUBLISH_SQL, [eventId])).affectedRows;
      return { id: r.insertId, created };
    });
  }

  async function deleteQuestion(eventId, qid) {
    await db.tx(async (tx) => {
      const q = await tx.query('SELECT id FROM event_questions WHERE id = ? AND event_id = ? FOR UPDATE', [qid, eventId]);
      if (!q[0]) throw notFound('No such question.');
      const a = await tx.query('SELECT COUNT(*) AS n FROM assignments WHERE question_id = ?', [qid]);
      if (a[0].n) throw conflict('Students already have this question (the event is published). Unpublish the event first (possible before it starts).');
      await tx.query('DELETE FROM event_questions WHERE id = ?', [qid]);
    });
  }

  async function addSchedule(eventId, body) {
    const f = new Form(body);
    const sections = f.ids('section_ids', { label: 'Section', required: true });
    const startNow = f.bool('start_now');
    let start = startNow ? null : f.datetime('start', { label: 'Start', required: true });
    const duration = f.int('duration', { label: 'Duration (minutes)', required: true, min: 1, max: 14 * 24 * 60 });
    f.check();
    return db.tx(async (tx) => {
      const ev = await tx.query('SELECT id, published_at, UTC_TIMESTAMP(3) AS now FROM events WHERE id = ? FOR UPDATE', [eventId]);
      if (!ev[0]) throw notFound('No such event.');
      if (startNow) start = ev[0].now;
      const stop = new Date(start.getTime() + duration * 60000);
      const known = await tx.text('SELECT id, code FROM sections WHERE id IN (?)', [sections]);
      if (known.length !== sections.length) throw fieldError('section_ids', 'Choose sections from the list.', f.values);
      const taken = await tx.text('SELECT s.code FROM slots sl JOIN sections s ON s.id = sl.section_id WHERE sl.event_id = ? AND sl.section_id IN (?)', [eventId, sections]);
      if (taken.length) {
        throw fieldError('section_ids', `Already scheduled: ${taken.map((t) => t.code).join(', ')}. A section sits an event once; extend or delete its schedule instead.`, f.values);
      }
      const sc = await tx.query('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, ?, ?)', [eventId, start, stop]);
      await tx.text('INSERT INTO slots (schedule_id, event_id, section_id) VALUES ?', [sections.map((s) => [sc.insertId, eventId, s])]);
      let created = 0;
      if (ev[0].published_at) created = (await tx.query(PUBLISH_SQL, [eventId])).affectedRows;
      return { id: sc.insertId, created };
    });
  }

  async function deleteSchedule(eventId, scheduleId) {
    await db.tx(async (tx) => {
      const ev = await tx.query('SELECT published_at FROM events WHERE id = ? FOR UPDATE', [eventId]);
      if (!ev[0]) throw notFound('No such event.');
      if (ev[0].published_at) throw conflict('The event is published: its schedules stay. Unpublish it first (possible before it starts), or extend a section\'s time.');
      const r = await tx.query('DELETE FROM schedules WHERE id = ? AND event_id = ?', [scheduleId, eventId]);
      if (!r.affectedRows) throw notFound('No such schedule.');
    });
  }

  async function publish(eventId) {
    return db.tx(async (tx) => {
      const ev = await tx.query('SELECT id, published_at FROM events WHERE id = ? FOR UPDATE', [eventId]);
      if (!ev[0]) throw notFound('No such event.');
      const [{ questions, slots }] = await tx.query(`SELECT (SELECT COUNT(*) FROM event_questions WHERE event_id = ?) AS questions,
        (SELECT COUNT(*) FROM slots WHERE event_id = ?) AS slots`, [eventId, eventId]);
      if (!questions) throw conflict('Add at least one question before publishing.');
      if (!slots) throw conflict('Schedule at least one section before publishing.');
      // The clock starts at publication: a schedule already running when the event is first
      // published starts now and keeps its duration (students lose no time). One that has
      // already ended is left alone (publishing a past event for the record).
      if (!ev[0].published_at) {
        await tx.query(`UPDATE schedules SET stop_time = stop_time + INTERVAL TIMESTAMPDIFF(MICROSECOND, start_time, UTC_TIMESTAMP(3)) MICROSECOND,
            start_time = UTC_TIMESTAMP(3) WHERE event_id = ? AND start_time < UTC_TIMESTAMP(3) AND stop_time > UTC_TIMESTAMP(3)`, [eventId]);
      }
      // published first: each inserted assignment then enters home_view by its own trigger
      await tx.query('UPDATE events SET published_at = UTC_TIMESTAMP(3) WHERE id = ? AND published_at IS NULL', [eventId]);
      const r = await tx.query(PUBLISH_SQL, [eventId]);
      const total = (await tx.query('SELECT COUNT(*) AS n FROM assignments WHERE event_id = ?', [eventId]))[0].n;
      return { created: r.affectedRows, total, first: !ev[0].published_at };
    });
  }

  async function unpublish(eventId) {
    return db.tx(async (tx) => {
      const ev = await tx.query('SELECT id, published_at FROM events WHERE id = ? FOR UPDATE', [eventId]);
      if (!ev[0]) throw notFound('No such event.');
      if (!ev[0].published_at) throw conflict('The event is not published.');
      const [st] = await tx.query(`SELECT MIN(s.start_time) AS first_start, UTC_TIMESTAMP(3) AS now,
          (SELECT COUNT(*) FROM code c JOIN assignments a ON a.id = c.assignment_id WHERE a.event_id = ?) AS saves
        FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE s.event_id = ?`, [eventId, eventId]);
      if (st.first_start && st.first_start <= st.now) {
        throw conflict('The event has already started for at least one section, so it cannot be unpublished: students may have work in it. Extend or end its schedules instead.');
      }
      if (st.saves) throw conflict('Students have already saved code in this event, so it cannot be unpublished.');
      const r = await tx.query("DELETE FROM assignments WHERE event_id = ? AND kind = 'event'", [eventId]);
      await tx.query('UPDATE events SET published_at = NULL WHERE id = ?', [eventId]);
      return { deleted: r.affectedRows };
    });
  }

  async function extendStudent(eventId, body) {
    const f = new Form(body);
    const username = f.str('username', { label: 'Username', required: true, max: 64 });
    const minutes = f.int('minutes', { label: 'Minutes', required: true, min: 1, max: 24 * 60 });
    f.check();
    const u = await db.query('SELECT id FROM users WHERE username = ?', [username]);
    if (!u[0]) throw fieldError('username', `There is no account "${username}".`, f.values);
    // one statement: the home_view rows follow through the assignments trigger
    const r = await db.query('UPDATE assignments SET extra_minutes = extra_minutes + ? WHERE event_id = ? AND user_id = ?', [minutes, eventId, u[0].id]);
    if (!r.affectedRows) throw fieldError('username', `${username} has no assignment in this event (not in a scheduled section, or the event is not published).`, f.values);
    return { username, minutes };
  }

  // Moves one section's stop time (stopSql: an expression of the schedule's
  // start_time/stop_time). A schedule shared with other sections is copied first,
  // so that only this section moves.
  async function moveSectionStop(eventId, sectionId, f, stopSql, params) {
    return db.tx(async (tx) => {
      const rows = await tx.query(`SELECT sl.id AS slot_id, sl.schedule_id, s.start_time, s.stop_time, sec.code,
          (SELECT COUNT(*) FROM slots x WHERE x.schedule_id = sl.schedule_id) AS shared
        FROM slots sl JOIN schedules s ON s.id = sl.schedule_id JOIN sections sec ON sec.id = sl.section_id
        WHERE sl.event_id = ? AND sl.section_id = ? FOR UPDATE`, [eventId, sectionId]);
      const sl = rows[0];
      if (!sl) throw fieldError('section_id', 'This section is not scheduled for the event.', f.values);
      let scheduleId = sl.schedule_id;
      if (sl.shared !== 1) {
        const ns = await tx.query('INSERT INTO schedules (event_id, start_time, stop_time) VALUES (?, ?, ?)', [eventId, sl.start_time, sl.stop_time]);
        await tx.query('UPDATE slots SET schedule_id = ? WHERE id = ?', [ns.insertId, sl.slot_id]);
        scheduleId = ns.insertId;
      }
      await tx.query(`UPDATE schedules SET stop_time = ${stopSql} WHERE id = ?`, [...params, scheduleId]);
      return { section: sl.code };
    });
  }

  async function extendSection(eventId, body) {
    const f = new Form(body);
    const sectionId = f.int('section_id', { label: 'Section', required: true, min: 1 });
    const minutes = f.int('minutes', { label: 'Minutes', required: true, min: 1, max: 24 * 60 });
    f.check();
    const out = await moveSectionStop(eventId, sectionId, f, 'stop_time + INTERVAL ? MINUTE', [minutes]);
    return { ...out, minutes };
  }

  // Ends a section's time now (a closure: open editors learn of it and close).
  async function endSection(eventId, body) {
    const f = new Form(body);
    const sectionId = f.int('section_id', { label: 'Section', required: true, min: 1 });
    f.check();
    return moveSectionStop(eventId, sectionId, f, 'GREATEST(start_time + INTERVAL 1 SECOND, LEAST(stop_time, UTC_TIMESTAMP(3)))', []);
  }

  // A finished event's problems become practice problems with every test case
  // visible. In place (not a copy): the problems keep their ids, so students'
  // codebook entries and grades stay linked; the engine's test-case cache follows
  // updated_at.
  async function toPractice(eventId) {
    return db.tx(async (tx) => {
      const ev = await tx.query('SELECT id, published_at FROM events WHERE id = ? FOR UPDATE', [eventId]);
      if (!ev[0]) throw notFound('No such event.');
      const [st] = await tx.query(`SELECT MAX(s.stop_time + INTERVAL COALESCE((SELECT MAX(a.extra_minutes) FROM assignments a WHERE a.event_id = s.event_id), 0) MINUTE) AS last_stop,
          UTC_TIMESTAMP(3) AS now FROM schedules s JOIN slots sl ON sl.schedule_id = s.id WHERE s.event_id = ?`, [eventId]);
      if (!st.last_stop) throw conflict('The event has no schedule, so it has not run.');
      if (st.last_stop > st.now) throw conflict('The event is not finished yet (a section or an extended student is still in it).');
      const probs = await tx.query('SELECT DISTINCT problem_id FROM event_questions WHERE event_id = ?', [eventId]);
      if (!probs.length) throw conflict('The event has no questions.');
      const ids = probs.map((p) => p.problem_id);
      const tc = await tx.text("UPDATE test_cases SET visibility = 'visible' WHERE problem_id IN (?) AND visibility = 'hidden'", [ids]);
      await tx.text('UPDATE problems SET is_practice = 1, updated_at = CURRENT_TIMESTAMP(3) WHERE id IN (?)', [ids]);
      return { problems: ids.length, revealed: tc.affectedRows };
    });
  }

  async function results(eventId) {
    const event = await get(eventId);
    const rows = await db.query(`SELECT u.username, u.name, sec.code AS section, q.position, q.max_marks, a.score, a.extra_minutes,
        g.marks, g.feedback, sub.submitted_at, sub.automatic, gc.late_versions, gc.deadline
      FROM assignments a JOIN users u ON u.id = a.user_id LEFT JOIN sections sec ON sec.id = u.section_id
      JOIN event_questions q ON q.id = a.question_id
      LEFT JOIN grades g ON g.assignment_id = a.id LEFT JOIN submissions sub ON sub.assignment_id = a.id
      LEFT JOIN graded_code gc ON gc.assignment_id = a.id
      WHERE a.event_id = ? ORDER BY sec.code, u.username, q.position`, [eventId]);
    const positions = [...new Set(rows.map((r) => r.position))].sort((a, b) => a - b);
    const students = new Map();
    for (const r of rows) {
      if (!students.has(r.username)) students.set(r.username, { username: r.username, name: r.name, section: r.section, extra: r.extra_minutes, end: r.deadline, q: {} });
      students.get(r.username).q[r.position] = r;
    }
    const header = ['username', 'name', 'section'];
    // auto_submitted: submitted at the deadline by the grader; late_versions: code stored after it (never graded)
    for (const p of positions) {
      header.push(`q${p}_submitted_at`, `q${p}_auto_score`, `q${p}_marks`, `q${p}_max_marks`, `q${p}_feedback`, `q${p}_auto_submitted`, `q${p}_late_versions`);
    }
    // end_time: the student's own (extra time, accommodation, pauses: assignment_window)
    header.push('total_marks', 'total_auto_score', 'extra_minutes', 'end_time');
    const out = [header];
    for (const s of students.values()) {
      const line = [s.username, s.name, s.section || ''];
      let tm = 0; let ta = 0;
      for (const p of positions) {
        const r = s.q[p];
        if (!r) { line.push('', '', '', '', '', '', ''); continue; }
        line.push(r.submitted_at ? r.submitted_at.toISOString() : '', r.score ?? '', r.marks ?? '', r.max_marks, r.feedback ?? '',
          r.submitted_at ? (r.automatic ? 1 : 0) : '', r.late_versions ?? 0);
        tm += Number(r.marks || 0); ta += Number(r.score || 0);
      }
      line.push(Math.round(tm * 100) / 100, Math.round(ta * 100) / 100, s.extra || 0, s.end ? s.end.toISOString() : '');
      out.push(line);
    }
    const slug = event.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || `event-${eventId}`;
    return { filename: `results-${slug}.csv`, body: csv.stringify(out), students: students.size };
  }

  async function formOptions() {
    const [problems, sections] = await Promise.all([
      db.query('SELECT id, title, category FROM problems WHERE archived_at IS NULL ORDER BY category, title'),
      db.query("SELECT s.id, s.code, s.name, (SELECT COUNT(*) FROM users u WHERE u.section_id = s.id AND u.role = 'student' AND u.active = 1) AS students FROM sections s ORDER BY s.code"),
    ]);
    return { problems, sections };
  }

  return {
    list, get, detail, create, update, remove, addQuestion, deleteQuestion, addSchedule, deleteSchedule,
    publish, unpublish, extendStudent, extendSection, endSection, toPractice, results, formOptions, TYPES,
  };
}

module.exports = { createEventsService, PUBLISH_SQL };
