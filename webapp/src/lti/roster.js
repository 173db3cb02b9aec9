'use strict';
// Names and Role Provisioning Services: an LMS course's roster becomes the students
// of its section here, on demand (the courses page). Learners are added (account by
// (issuer, sub), as a launch makes it) or updated (name, email; Inactive -> disabled);
// students of the section who came from this LMS and are no longer in the roster,
// or are marked Deleted, leave the section (their account and work stay). Local
// accounts of the section are never touched; instructors and TAs of the roster are
// not made staff here (they become staff by launching). New students get the
// assignments of the section's published events (the publish rule). Also on its
// own shortly before a course's event opens (syncDue, every LTI_ROSTER_CHECK_S).
const { notFound, conflict, HttpError } = require('../shared/errors');
const { roleOf, NRPS_SCOPE, HTTP_TIMEOUT_MS } = require('./service');

const MEMBERS_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';
const MAX_PAGES = 100;

function nextLink(header) {
  if (!header) return null;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
    if (m) return m[1];
  }
  return null;
}

function createRoster({ lti }) {
  const { db, fetchImpl } = lti;

  async function fetchMembers(p, url) {
    const members = [];
    let next = url;
    for (let page = 0; next && page < MAX_PAGES; page++) {
      const token = await lti.accessToken(p, NRPS_SCOPE);
      const res = await fetchImpl(next, { headers: { accept: MEMBERS_TYPE, authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
      if (res.status === 401) lti.dropToken(p, NRPS_SCOPE);
      const text = await res.text();
      if (!res.ok) throw new HttpError(502, `The LMS refused the roster (${res.status}): ${text.slice(0, 300)}`);
      let body;
      try { body = JSON.parse(text); } catch { throw new HttpError(502, 'The LMS answered the roster request with something that is not JSON.'); }
      if (!body || !Array.isArray(body.members)) throw new HttpError(502, 'The LMS\'s roster has no member list.');
      members.push(...body.members);
      const n = nextLink(res.headers.get('link'));
      next = n ? new URL(n, next).toString() : null;
    }
    return members;
  }

  async function sync(platformId, contextId) {
    const rows = await db.query(`SELECT c.section_id, c.memberships_url, p.id, p.issuer, p.client_id, p.token_url
      FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id WHERE c.platform_id = ? AND c.context_id = ?`, [platformId, contextId]);
    const c = rows[0];
    if (!c) throw notFound('No such LMS course.');
    if (!c.memberships_url) throw conflict('The LMS has not offered this course\'s roster (enable Names and Role Provisioning for the tool in the LMS, then launch once).');
    let members;
    try {
      members = await fetchMembers(c, c.memberships_url);
    } catch (err) {
      const msg = err instanceof HttpError ? err.message : `The LMS's roster could not be fetched: ${err.message}`;
      await db.query('UPDATE lti_contexts SET roster_synced_at = UTC_TIMESTAMP(3), roster_result = ? WHERE platform_id = ? AND context_id = ?', [msg.slice(0, 1000), platformId, contextId]);
      throw err instanceof HttpError ? err : new HttpError(502, msg);
    }
    const learners = members.filter((m) => m && typeof m.user_id === 'string' && m.user_id && m.user_id.length <= 255 && roleOf(m.roles) === 'student');
    const counts = await db.tx(async (tx) => {
      const out = { added: 0, updated: 0, removed: 0, disabled: 0 };
      const keep = new Set();
      for (const m of learners) {
        if (m.status === 'Deleted') continue;
        const name = String(m.name || [m.given_name, m.family_name].filter(Boolean).join(' ') || '').slice(0, 128);
        const active = m.status === 'Inactive' ? 0 : 1;
        const r = await lti.upsertAccount(tx, {
          issuer: c.issuer, sub: m.user_id, name, email: typeof m.email === 'string' ? m.email.slice(0, 190) : '', role: 'student', section: c.section_id, active,
        });
        if (r.skipped) continue;
        keep.add(r.user.id);
        if (r.created) out.added++; else out.updated++;
        if (!active) out.disabled++;
      }
      // this LMS's students of the section who are no longer on the roster leave it
      const here = await tx.query(`SELECT u.id FROM users u JOIN lti_users l ON l.user_id = u.id AND l.issuer = ?
        WHERE u.section_id = ? AND u.role = 'student'`, [c.issuer, c.section_id]);
      for (const u of here) {
        if (keep.has(u.id)) continue;
        await tx.query('UPDATE users SET section_id = NULL WHERE id = ?', [u.id]);
        out.removed++;
      }
      if (lti.publishSql) {
        const evs = await tx.query('SELECT DISTINCT sl.event_id FROM slots sl JOIN events e ON e.id = sl.event_id AND e.published_at IS NOT NULL WHERE sl.section_id = ?', [c.section_id]);
        for (const e of evs) await tx.query(lti.publishSql, [e.event_id]);
      }
      return out;
    });
    const result = `${counts.added} added, ${counts.updated} updated (${counts.disabled} inactive), ${counts.removed} removed from the section`;
    await db.query('UPDATE lti_contexts SET roster_synced_at = UTC_TIMESTAMP(3), roster_result = ? WHERE platform_id = ? AND context_id = ?', [result, platformId, contextId]);
    return { ...counts, result };
  }

  async function courses() {
    return db.query(`SELECT c.platform_id, c.context_id, c.title, c.section_id, c.memberships_url IS NOT NULL AS has_roster, c.roster_synced_at, c.roster_result,
        p.name AS platform_name, s.code AS section_code, s.name AS section_name,
        (SELECT COUNT(*) FROM users u WHERE u.section_id = c.section_id AND u.role = 'student' AND u.active = 1) AS students
      FROM lti_contexts c JOIN lti_platforms p ON p.id = c.platform_id JOIN sections s ON s.id = c.section_id
      ORDER BY p.name, c.title, c.context_id LIMIT 1000`);
  }

  // Before an event opens: courses whose section has a published event starting
  // within `beforeS`, and whose roster was not read since that window began, are
  // synced (each claimed by one worker with a conditional update). Failures are
  // recorded on the course (its page shows them) and tried at the next check.
  async function syncDue(beforeS) {
    const due = await db.query(`SELECT c.platform_id, c.context_id, c.roster_synced_at, MIN(s.start_time) AS opens
      FROM lti_contexts c
      JOIN slots sl ON sl.section_id = c.section_id
      JOIN schedules s ON s.id = sl.schedule_id AND s.start_time > UTC_TIMESTAMP(3) AND s.start_time <= UTC_TIMESTAMP(3) + INTERVAL ? SECOND
      JOIN events e ON e.id = sl.event_id AND e.published_at IS NOT NULL
     WHERE c.memberships_url IS NOT NULL
     GROUP BY c.platform_id, c.context_id, c.roster_synced_at
    HAVING c.roster_synced_at IS NULL OR c.roster_synced_at < MIN(s.start_time) - INTERVAL ? SECOND`, [beforeS, beforeS]);
    let synced = 0;
    for (const c of due) {
      const claim = await db.query(`UPDATE lti_contexts SET roster_synced_at = UTC_TIMESTAMP(3)
        WHERE platform_id = ? AND context_id = ? AND roster_synced_at <=> ?`, [c.platform_id, c.context_id, c.roster_synced_at]);
      if (claim.affectedRows !== 1) continue; // another worker has it
      try { await sync(c.platform_id, c.context_id); synced++; } catch { /* recorded on the course by sync() */ }
    }
    return synced;
  }

  let timer = null;
  function start({ everyS = 300, beforeS = 3600, log = console } = {}) {
    if (timer || everyS <= 0) return;
    timer = setInterval(() => syncDue(beforeS).catch((err) => log.error(`[webapp ${process.pid}] LTI roster check: ${err.message}`)), everyS * 1000 + Math.floor(Math.random() * 1000));
    timer.unref();
  }

  return { sync, syncDue, courses, start };
}

module.exports = { createRoster, nextLink };
