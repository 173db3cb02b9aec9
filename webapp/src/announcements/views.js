'use strict';
// The announcements section of the exam-tools page.
const { html } = require('../shared/html');
const { time } = require('../shared/format');
const ui = require('../lib/ui');

function announcementsSection(req, { event, d }) {
  return html`<section class="card" id="announcements"><h2>Announcements</h2>
<p class="muted">Shown within seconds on the exam page of every student of the event, and kept there.</p>
<form method="post" action="/tools/events/${event.id}/announcements">
${ui.csrf(req)}
${ui.textarea({}, 'message', 'New announcement', { rows: 2, attrs: { maxlength: '1000' } })}
<div class="grid2">
${ui.select({ values: { scope: 'event' } }, 'scope', 'To', [{ value: 'event', label: 'Every student of the event' }, { value: 'room', label: 'A room (address ranges)' }, { value: 'student', label: 'One student' }])}
${ui.input({}, 'ranges', 'Room addresses (for a room)', { help: 'e.g. 10.1.2.0/24' })}
${ui.input({}, 'username', 'Username (for one student)')}
</div>
<div class="formactions"><button class="btn primary" type="submit" id="announce">Announce</button></div>
</form>
${d.list.length ? html`<ul id="announcement-list">${d.list.map((a) => html`<li data-announcement="${a.id}">${time(a.created_at)} <span class="muted">${a.author || ''}${a.scope !== 'event' ? ` to ${a.scope} ${a.target}` : ''}</span>: ${a.message}
  <div class="small"><span class="pill ${a.unseenCount ? 'warn' : 'ok'}">${a.acked} read · ${a.unseenCount} not yet</span>${a.unseenCount ? html` <span class="unseen">Not yet: ${a.unseen.join(', ')}${a.unseenCount > a.unseen.length ? ` and ${a.unseenCount - a.unseen.length} more` : ''}</span>` : ''}</div></li>`)}</ul>` : ''}
<h3>Questions from students</h3>
<form method="post" action="/tools/events/${event.id}/announcements/questions" class="inline">
${ui.csrf(req)}${d.questionsEnabled ? '' : html`<input type="hidden" name="enabled" value="1">`}
<button class="btn small" type="submit" id="questions-toggle">${d.questionsEnabled ? 'Stop taking questions' : 'Allow students to ask questions'}</button>
</form>
${d.questions.length ? html`<table class="list compact" id="student-questions"><thead><tr><th>When</th><th>Student</th><th>Question</th><th>Answer (only the student sees it, unless sent to everyone)</th></tr></thead><tbody>
${d.questions.map((q) => html`<tr><td class="small">${time(q.created_at)}</td><td>${q.username}</td><td>${q.question}</td>
<td>${q.answered_at ? q.answer : html`<form method="post" action="/tools/events/${event.id}/announcements/questions/${q.id}/answer" class="inline">${ui.csrf(req)}
<input name="answer" maxlength="1000" aria-label="Answer to ${q.username}" required>
<label class="small"><input type="checkbox" name="to_all" value="1"> to everyone</label> <button class="btn small" type="submit">Answer</button></form>`}</td></tr>`)}
</tbody></table>` : html`<p class="empty">No questions.</p>`}
</section>`;
}

module.exports = { announcementsSection };
