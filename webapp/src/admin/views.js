'use strict';
const { html } = require('../shared/html');
const { time } = require('../shared/format');
const ui = require('../staff/ui');

const dash = (v) => (v === null || v === undefined || v === '' ? html`<span class="muted">—</span>` : v);

function knobsPage(req, { k }) {
  const h = k.haproxy;
  const engineSrv = h.servers && h.servers.find((s) => s.backend === 'engine');
  const webSrv = h.servers && h.servers.find((s) => s.backend === 'webapp');
  return ui.page(req, {
    title: 'Deployment',
    active: '/admin',
    body: html`<div class="pagehead"><div><h1>Deployment</h1><p class="muted">What the running services use now (read-only). Change them with a tuning profile (tuning/) and restart or reload.</p></div>
<div class="actions"><a class="btn primary" href="/admin/haproxy/" id="haproxy-stats">HAProxy stats</a></div></div>
<div class="stats" id="knobs">
  <div class="stat"><span>HAProxy global maxconn</span><strong id="knob-haproxy-global">${dash(k.globalMaxconn)}</strong></div>
  <div class="stat"><span>HAProxy listen maxconn</span><strong id="knob-haproxy-listen">${dash(k.haproxy.frontend ? k.haproxy.frontend.maxconn : null)}</strong></div>
  <div class="stat"><span>Webapp server maxconn</span><strong id="knob-webapp-maxconn">${dash(webSrv && webSrv.maxconn)}</strong></div>
  <div class="stat"><span>Engine server maxconn</span><strong id="knob-engine-maxconn">${dash(engineSrv && engineSrv.maxconn)}</strong></div>
  <div class="stat"><span>Node workers</span><strong id="knob-workers">${dash(k.webWorkers)}</strong></div>
  <div class="stat"><span>Apache MaxRequestWorkers</span><strong id="knob-apache">${dash(k.apache.MaxRequestWorkers)}</strong></div>
  <div class="stat"><span>MySQL max_connections</span><strong id="knob-mysql">${dash(k.mysql.max_connections)}</strong></div>
</div>
<div class="cols">
<div class="card"><h2>HAProxy (live, from its stats)</h2>
${h.error ? html`<p class="flash error">HAProxy's stats page (${k.statsUrl}) is ${h.error}: the values below come from the environment only.</p>` : html`
<dl class="kv"><dt>Front end</dt><dd>${h.frontend ? html`${h.frontend.name}: maxconn ${h.frontend.maxconn}, now ${h.frontend.current}, max seen ${h.frontend.max_seen}` : '—'}</dd></dl>
<table class="list compact"><thead><tr><th>Backend / server</th><th class="num">maxconn</th><th class="num">maxqueue</th><th class="num">Now</th><th class="num">Queued</th><th>Status</th></tr></thead>
<tbody>${(h.servers || []).map((s) => html`<tr><td>${s.backend} / ${s.server}</td><td class="num">${dash(s.maxconn)}</td><td class="num">${dash(s.maxqueue)}</td><td class="num">${s.current}</td><td class="num">${s.queued}</td><td>${s.status}</td></tr>`)}</tbody></table>`}
<h2>Engine (Apache prefork)</h2>
${k.apache.found ? html`<dl class="kv"><dt>MaxRequestWorkers</dt><dd>${k.apache.MaxRequestWorkers}</dd><dt>ServerLimit</dt><dd>${dash(k.apache.ServerLimit)}</dd><dt>StartServers</dt><dd>${dash(k.apache.StartServers)}</dd><dt>Config</dt><dd class="small">${k.apache.file}</dd></dl>`
  : html`<p class="muted">No rendered engine config at ${k.apache.file}.</p>`}
<h2>MariaDB</h2>
${k.mysql.error ? html`<p class="flash error">${k.mysql.error}</p>` : html`<dl class="kv"><dt>max_connections</dt><dd>${k.mysql.max_connections}</dd><dt>Connected now</dt><dd>${k.mysql.Threads_connected}</dd><dt>Most at once</dt><dd>${k.mysql.Max_used_connections}</dd>
<dt>innodb_buffer_pool_size</dt><dd>${Math.round(Number(k.mysql.innodb_buffer_pool_size) / 1048576)} MB</dd><dt>skip_name_resolve</dt><dd>${k.mysql.skip_name_resolve}</dd><dt>Version</dt><dd>${k.mysql.version}</dd>
<dt>Webapp pool</dt><dd>${dash(k.dbPoolSize)} per worker × ${dash(k.webWorkers)} workers</dd></dl>`}
</div>
<div class="card"><h2>Environment of the services</h2>
${k.env.map((g) => html`<h3>${g.group}</h3><dl class="kv">${g.vars.map((x) => html`<dt>${x.name}</dt><dd>${dash(x.value)}</dd>`)}</dl>`)}
${k.profile ? html`<h3>tuning/profile.env</h3><pre class="code">${k.profile.text}</pre>` : ''}
</div>
</div>
<div class="card" id="tuning-report"><h2>Latest tuning report</h2>
${k.tuning ? html`<p class="muted small">${k.tuning.file} · ${time(k.tuning.mtime)}</p>${k.tuning.html ? html`<div class="statement">${k.tuning.html}</div>` : html`<p><a class="btn" href="/admin/tuning-report">Open the report</a></p>`}`
  : html`<p class="empty">No report yet. The tuning sweeps (tuning/) write var/tuning/report.md or report.html.</p>`}
</div>`,
  });
}

module.exports = { knobsPage };
