'use strict';
// The lock-down section of the exam-tools page: settings form and audit log.
const { html } = require('../shared/html');
const { time } = require('../shared/format');
const ui = require('../lib/ui');

const KIND_LABEL = {
  sign_in: 'signed in', sign_in_refused: 'sign-in refused', request_refused: 'request refused',
  address_change: 'address changed', session_end: 'session ended',
};

function lockdownSection(req, { event, s, log }) {
  return html`<section class="card" id="lockdown"><h2>Lab lock-down ${s.in_force ? html`<span class="pill ok" id="lockdown-state">in force now</span>` : s.enabled ? html`<span class="pill info" id="lockdown-state">set, not in force now</span>` : ''}</h2>
<p class="muted">In force for a section from 15 minutes before its start until 15 minutes after its stop (plus the largest extra time). Checked by the webapp and the engine on the address HAProxy saw.</p>
<form method="post" action="/tools/events/${event.id}/lockdown" class="inline-form">
${ui.csrf(req)}
${ui.checkbox({ values: s.enabled ? { enabled: '1' } : { x: '' } }, 'enabled', 'Lock this event down', {})}
${ui.input({ values: { allowed_ranges: s.allowed_ranges } }, 'allowed_ranges', 'Allowed addresses', { help: 'Ranges or addresses, comma separated, e.g. 10.20.0.0/16, 192.168.5.7. Empty: any address.' })}
${ui.checkbox({ values: s.single_session ? { single_session: '1' } : { x: '' } }, 'single_session', 'One session per student: a second sign-in ends the first', {})}
<div class="formactions"><button class="btn primary" type="submit" id="lockdown-save">Save lock-down</button></div>
</form>
<h3>Audit log</h3>
${log.length ? html`<div class="tablewrap"><table class="list compact" id="lockdown-audit"><thead><tr><th>When</th><th>Student</th><th>What</th><th>Address</th><th>Detail</th></tr></thead><tbody>
${log.map((l) => html`<tr class="audit-${l.kind}"><td class="small">${time(l.created_at)}</td><td>${l.username || ''}</td><td>${KIND_LABEL[l.kind] || l.kind}</td><td>${l.address}</td><td>${l.detail}</td></tr>`)}
</tbody></table></div>` : html`<p class="empty" id="lockdown-audit-empty">Nothing recorded yet.</p>`}
</section>`;
}

module.exports = { lockdownSection };
