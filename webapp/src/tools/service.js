'use strict';
// What the exam-tools page of an event lists: the event, its questions and the
// students' assignments (links to each one's playback).
const { notFound } = require('../shared/errors');

function createToolsService({ db }) {
  async function event(eventId) {
    const rows = await db.query('SELECT id, title, type, published_at FROM events WHERE id = ?', [eventId]);
    if (!rows[0]) throw notFound('There is no such event.');
    return rows[0];
  }

  async function assignments(eventId) {
    return db.query(`SELECT a.id, u.username, u.name, q.position,
        (SELECT COUNT(*) FROM code c WHERE c.assignment_id = a.id) AS versions
      FROM assignments a JOIN users u ON u.id = a.user_id JOIN event_questions q ON q.id = a.question_id
      WHERE a.event_id = ? ORDER BY u.username, q.position LIMIT 5000`, [eventId]);
  }

  return { event, assignments };
}

module.exports = { createToolsService };
