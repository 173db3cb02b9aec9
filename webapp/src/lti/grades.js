'use strict';
// LTI Assignment and Grade Services: the released marks of an event that an LMS
// activity (resource link with a line item) opens go to that line item.
//
// Each sweep (every worker, every LTI_GRADES_EVERY_S, and on a staff member's
// "send now"): (1) the scores of released, linked events are recomputed into
// lti_scores; a changed score becomes pending again (a regrade after release is
// re-sent); (2) due pending rows are leased (one sender per row across workers and
// replicas), (3) sent: an access token by client_credentials with a JWT client
// assertion signed with our key, then POST {lineitem}/scores. A failure is retried
// with a doubling delay; after LTI_GRADES_MAX_ATTEMPTS it is "refused" with the
// platform's answer, shown on the staff page (a later change of the score or
// "send again" makes it pending again). Scores are absolute (scoreGiven of
// scoreMaximum), so a repeat is harmless: the LMS keeps one score per user.
const crypto = require('node:crypto');
const { AGS_SCORE_SCOPE, HTTP_TIMEOUT_MS } = require('./service');
const { marksReleased } = require('../exam/release');

// What an event's score is: per question the grader's marks, else the automatic
// score (both in marks), summed over the student's questions, out of their maximum. Events released within the last 30 days are
// watched for changes; older ones are settled.
const ENQUEUE_SQL = `INSERT INTO lti_scores (link_id, user_id, score_given, score_max)
SELECT l.id, a.user_id, SUM(COALESCE(g.marks, a.score, 0)), SUM(q.max_marks)
  FROM lti_links l
  JOIN events e ON e.id = l.event_id AND ${marksReleased('e')} AND e.grades_released_at > UTC_TIMESTAMP(3) - INTERVAL 30 DAY
  JOIN lti_platforms p ON p.id = l.platform_id
  JOIN assignments a ON a.event_id = l.event_id
  JOIN lti_users lu ON lu.user_id = a.user_id AND lu.issuer = p.issuer
  JOIN event_questions q ON q.id = a.question_id
  LEFT JOIN grades g ON g.assignment_id = a.id
 WHERE l.lineitem_url IS NOT NULL
 GROUP BY l.id, a.user_id
ON DUPLICATE KEY UPDATE
  status = IF(score_given <> VALUES(score_given) OR score_max <> VALUES(score_max), 'pending', status),
  attempts = IF(score_given <> VALUES(score_given) OR score_max <> VALUES(score_max), 0, attempts),
  next_try_at = IF(score_given <> VALUES(score_given) OR score_max <> VALUES(score_max), UTC_TIMESTAMP(3), next_try_at),
  score_given = VALUES(score_given), score_max = VALUES(score_max)`;

const LEASE_S = 60;
const BATCH = 50;

function scoresUrl(lineitem) {
  const u = new URL(lineitem);
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/scores`;
  return u.toString();
}

function createGradeSender({ db, lti, log = console, fetchImpl = fetch, everyS = 5, retryS = 30, maxAttempts = 8 }) {
  async function sendOne(row) {
    const pf = { id: row.platform_id, client_id: row.client_id, token_url: row.token_url };
    const token = await lti.accessToken(pf, AGS_SCORE_SCOPE);
    const res = await fetchImpl(scoresUrl(row.lineitem_url), {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.ims.lis.v1.score+json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        userId: row.sub,
        scoreGiven: Number(row.score_given),
        scoreMaximum: Number(row.score_max),
        activityProgress: 'Completed',
        gradingProgress: 'FullyGraded',
        timestamp: new Date().toISOString(),
      }),
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    if (res.status === 401) lti.dropToken(pf, AGS_SCORE_SCOPE);
    if (!res.ok) throw new Error(`the LMS answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  }

  async function sweep() {
    await db.query(ENQUEUE_SQL);
    const lease = crypto.randomBytes(8).toString('hex');
    const got = await db.query(`UPDATE lti_scores SET lease = ?, lease_until = UTC_TIMESTAMP(3) + INTERVAL ? SECOND
      WHERE status = 'pending' AND next_try_at <= UTC_TIMESTAMP(3) AND (lease_until IS NULL OR lease_until < UTC_TIMESTAMP(3))
      ORDER BY next_try_at LIMIT ${BATCH}`, [lease, LEASE_S]);
    if (!got.affectedRows) return { sent: 0, failed: 0 };
    const rows = await db.query(`SELECT s.link_id, s.user_id, s.score_given, s.score_max, s.attempts, l.lineitem_url, l.platform_id,
        p.client_id, p.token_url, lu.sub
      FROM lti_scores s JOIN lti_links l ON l.id = s.link_id JOIN lti_platforms p ON p.id = l.platform_id
      JOIN events e ON e.id = l.event_id AND ${marksReleased('e')}
      JOIN lti_users lu ON lu.user_id = s.user_id AND lu.issuer = p.issuer
      WHERE s.lease = ?`, [lease]);
    let sent = 0; let failed = 0;
    for (const row of rows) {
      try {
        await sendOne(row);
        // only if the score is still the one sent (a change meanwhile is sent next)
        await db.query(`UPDATE lti_scores SET status = 'sent', sent_at = UTC_TIMESTAMP(3), last_error = '', lease = NULL, lease_until = NULL
          WHERE link_id = ? AND user_id = ? AND lease = ? AND score_given = ? AND score_max = ?`,
        [row.link_id, row.user_id, lease, row.score_given, row.score_max]);
        sent++;
      } catch (err) {
        failed++;
        const attempts = row.attempts + 1;
        const delay = Math.min(3600, retryS * 2 ** (attempts - 1));
        await db.query(`UPDATE lti_scores SET attempts = ?, last_error = ?, status = IF(? >= ?, 'refused', 'pending'),
            next_try_at = UTC_TIMESTAMP(3) + INTERVAL ? SECOND, lease = NULL, lease_until = NULL WHERE link_id = ? AND user_id = ? AND lease = ?`,
        [attempts, String(err.message).slice(0, 1000), attempts, maxAttempts, delay, row.link_id, row.user_id, lease]);
      }
    }
    // rows of withdrawn releases or unlinked users: released for a later sweep
    await db.query('UPDATE lti_scores SET lease = NULL, lease_until = NULL WHERE lease = ?', [lease]);
    return { sent, failed };
  }

  // One sweep at a time per worker.
  let running = null;
  function runNow() {
    if (!running) running = sweep().finally(() => { running = null; });
    return running;
  }

  let timer = null;
  function start() {
    if (timer || everyS <= 0) return;
    const tick = () => runNow().catch((err) => log.error(`[webapp ${process.pid}] LTI grade passback: ${err.message}`));
    // workers start together: spread their sweeps over the period
    timer = setInterval(tick, everyS * 1000 + Math.floor(Math.random() * 1000));
    timer.unref();
  }
  function stop() { if (timer) clearInterval(timer); timer = null; }

  // The staff page: per student of the event's linked activities.
  async function status(eventId) {
    return db.query(`SELECT s.link_id, l.resource_link_id, u.id AS user_id, u.username, u.name, s.score_given, s.score_max, s.status, s.attempts,
        s.last_error, s.sent_at, s.next_try_at
      FROM lti_scores s JOIN lti_links l ON l.id = s.link_id JOIN users u ON u.id = s.user_id
      WHERE l.event_id = ? ORDER BY u.name, u.username, l.id`, [eventId]);
  }

  // "Send again" (attempts first: MariaDB applies SET left to right): refused (or waiting) rows of the event are due now.
  async function retryEvent(eventId) {
    await db.query(`UPDATE lti_scores s JOIN lti_links l ON l.id = s.link_id
      SET s.attempts = IF(s.status = 'refused', 0, s.attempts), s.status = 'pending', s.next_try_at = UTC_TIMESTAMP(3)
      WHERE l.event_id = ? AND s.status <> 'sent'`, [eventId]);
    return runNow();
  }

  return { sweep: runNow, start, stop, status, retryEvent };
}

module.exports = { createGradeSender, scoresUrl };
