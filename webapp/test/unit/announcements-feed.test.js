'use strict';
// The students' feed is answered from each worker's memory: polling it costs no
// database statement, however often it is called.
const test = require('node:test');
const assert = require('node:assert/strict');
const { createAnnouncementsService } = require('../../src/announcements/service');

test('the feed reads no database; a refresh reads five statements', async () => {
  let calls = 0;
  const db = {
    async query(sql) {
      calls += 1;
      if (/FROM slots/.test(sql)) return [{ event_id: 7, section_id: 3, title: 'Exam', questions: 1 }];
      if (/FROM announcement_recipients/.test(sql)) return [{ announcement_id: 2, user_id: 12 }];
      if (/FROM announcement_acks/.test(sql)) return [{ id: 9, announcement_id: 1, user_id: 12 }];
      if (/FROM announcements/.test(sql)) {
        return [{ id: 1, event_id: 7, message: 'read until EOF', scope: 'event', created_at: new Date() },
          { id: 2, event_id: 7, message: 'only for 12', scope: 'student', created_at: new Date() }];
      }
      return [{ id: 4, event_id: 7, user_id: 11, question: 'q', answer: 'a', answered_at: new Date() }];
    },
  };
  const s = createAnnouncementsService({ db, pollMs: 10000 });
  await s.refresh();
  assert.equal(calls, 5);
  for (let i = 0; i < 1000; i++) s.feed({ uid: 11, role: 'student', section_id: 3 });
  assert.equal(calls, 5);
  const f = s.feed({ uid: 11, role: 'student', section_id: 3 });
  assert.deepEqual(f.events[0].announcements.map((a) => [a.message, a.acked]), [['read until EOF', false]], 'not the one for student 12');
  assert.deepEqual(s.feed({ uid: 12, role: 'student', section_id: 3 }).events[0].announcements.map((a) => [a.id, a.acked]), [[1, true], [2, false]]);
  assert.equal(f.events[0].answers.length, 1);
  assert.equal(s.feed({ uid: 12, role: 'student', section_id: 3 }).events[0].answers.length, 0);
  assert.deepEqual(s.feed({ uid: 13, role: 'student', section_id: 4 }).events, []);
});
