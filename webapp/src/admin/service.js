'use strict';
// The deployment's knobs, read-only: what HAProxy runs with (its stats CSV: the
// live session limits), node workers, Apache MaxRequestWorkers (the engine's
// rendered config), MySQL max_connections (SHOW VARIABLES), next to the
// environment the services were started from (bin/prutor exports it). Plus the
// latest tuning report if tuning/ produced one.
const fs = require('node:fs');
const path = require('node:path');
const { renderMarkdown } = require('../shared/markdown');
const { createReadiness } = require('./readiness');
const { createLiveFigures } = require('../metrics/live');

function readText(file, max = 2 * 1024 * 1024) {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > max) return null;
    return { text: fs.readFileSync(file, 'utf8'), mtime: st.mtime };
  } catch { return null; }
}

function parseStatsCsv(text) {
  const lines = text.split('\n').filter(Boolean);
  if (!lines.length) return [];
  const head = lines[0].replace(/^#\s*/, '').split(',');
  return lines.slice(1).map((l) => { const c = l.split(','); const o = {}; head.forEach((h, i) => { o[h] = c[i]; }); return o; });
}

function createAdminService({ db, cfg, env = process.env, fetchImpl = fetch }) {
  const varDir = (cfg && cfg.varDir) || env.PRUTOR_VAR || path.resolve(__dirname, '../../../var');
  const statsHost = env.HAPROXY_STATS_BIND && env.HAPROXY_STATS_BIND !== '0.0.0.0' ? env.HAPROXY_STATS_BIND : '127.0.0.1';
  const statsUrl = `http://${statsHost}:${env.HAPROXY_STATS_PORT || 8404}`;

  async function haproxyLive() {
    try {
      const res = await fetchImpl(`${statsUrl}/;csv`, { signal: AbortSignal.timeout(2000) });
      if (!res.ok) return { error: `HTTP ${res.status}` };
      const rows = parseStatsCsv(await res.text());
      const pick = (px, sv) => rows.find((r) => r.pxname === px && r.svname === sv);
      const out = {};
      const fe = rows.find((r) => r.svname === 'FRONTEND' && r.pxname !== 'stats');
      if (fe) out.frontend = { name: fe.pxname, maxconn: fe.slim, current: fe.scur, max_seen: fe.smax };
      out.servers = rows.filter((r) => r.svname !== 'FRONTEND' && r.svname !== 'BACKEND' && r.pxname !== 'stats')
        .map((r) => ({ backend: r.pxname, server: r.svname, maxconn: r.slim, maxqueue: r.qlimit, current: r.scur, queued: r.qcur, status: r.status }));
      out.backends = ['webapp', 'engine'].map((b) => pick(b, 'BACKEND')).filter(Boolean).map((r) => ({ backend: r.pxname, current: r.scur, queued: r.qcur, status: r.status }));
      return out;
    } catch (e) {
      return { error: e.name === 'TimeoutError' ? 'no answer' : 'not reachable' };
    }
  }

  function apacheConf() {
    const file = path.join(env.ENGINE_VAR || path.join(varDir, 'engine'), 'httpd.conf');
    const f = readText(file);
    if (!f) return { file, found: false };
    const get = (k) => { const m = new RegExp(`^\\s*${k}\\s+(\\S+)`, 'mi').exec(f.text); return m ? m[1] : null; };
    return { file, found: true, MaxRequestWorkers: get('MaxRequestWorkers'), ServerLimit: get('ServerLimit'), StartServers: get('StartServers') };
  }

  async function mysqlVars() {
    try {
      const rows = await db.query("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('max_connections', 'innodb_buffer_pool_size', 'skip_name_resolve', 'thread_cache_size', 'version')");
      const st = await db.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Threads_connected', 'Max_used_connections')");
      const o = {};
      for (const r of [...rows, ...st]) o[r.Variable_name] = r.Value;
      return o;
    } catch (e) { return { error: e.message }; }
  }

  // `tuning/tuning report` writes var/tuning/report/report.html (plots embedded) and
  // report.md beside it; the HTML is preferred since it carries its plots.
  function tuningReport() {
    const dir = path.join(varDir, 'tuning', 'report');
    for (const name of ['report.html', 'report.md']) {
      const f = readText(path.join(dir, name));
      if (f) return { name, file: path.join(dir, name), mtime: f.mtime, html: name.endsWith('.md') ? renderMarkdown(f.text) : null, text: f.text };
    }
    return null;
  }

  // What backup/'s daemon last wrote (backup/README.md), judged: a status not rewritten
  // for BACKUP_STALE_S means the daemon is not running; a binlog not in sync for
  // as long means the shipped copy misses the latest saves; a full older than two
  // intervals means the schedule is not keeping up.
  const BACKUP_STALE_S = 30;
  function backupStatus(nowMs = Date.now()) {
    const file = (cfg && cfg.backupStatusFile) || env.BACKUP_STATUS_FILE || path.join(varDir, 'run', 'backup-status.json');
    const f = readText(file, 1024 * 1024);
    if (!f) return { file, state: 'none', problems: ['No backup status: the backup program (backup/) has not run on this host.'] };
    let s;
    try { s = JSON.parse(f.text); } catch { return { file, state: 'none', problems: ['The backup status file is not JSON.'] }; }
    const age = (iso) => (iso ? Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000)) : null);
    const b = s.binlog || {};
    const out = { file, target: s.target, timeline: s.timeline, fulls: s.fulls, updatedAgeS: age(s.updated_at),
      full: s.last_full ? { ...s.last_full, ageS: age(s.last_full.finished_at) } : null,
      binlog: { streaming: !!b.streaming, file: b.file, bytes: b.bytes, lastShippedAt: b.last_shipped_at, lastShippedAgeS: age(b.last_shipped_at),
        lagS: b.in_sync_at ? age(b.in_sync_at) : null, lagBytes: b.lag_bytes } };
    // a scheduled full waiting for an exam (backup.sh exam_now): deliberate, not a problem
    if (s.full_deferred) out.deferred = { reason: s.full_deferred.reason, dueAt: s.full_deferred.due_at, runsBy: s.full_deferred.runs_by, dueAgeS: age(s.full_deferred.due_at) };
    if (s.standby) out.standby = { io: s.standby.io, sql: s.standby.sql, secondsBehind: s.standby.seconds_behind, semiSync: s.standby.primary_semi_sync, notAcked: s.standby.not_acked_tx };
    const problems = [];
    if (out.updatedAgeS > BACKUP_STALE_S) problems.push(`The backup program last reported ${out.updatedAgeS} s ago: it is not running.`);
    if (!out.binlog.streaming) problems.push('The binary log is not being shipped.');
    else if (out.binlog.lagS === null || out.binlog.lagS > BACKUP_STALE_S) problems.push(`The shipped binary log is behind the server${out.binlog.lagS === null ? '' : ` by ${out.binlog.lagS} s`}.`);
    if (!out.full) problems.push('No full backup yet.');
    else if (s.full_interval_s && out.full.ageS > 2 * s.full_interval_s) problems.push(`The last full backup is ${Math.round(out.full.ageS / 3600)} h old.`);
    if (out.standby && (out.standby.io !== 'Yes' || out.standby.sql !== 'Yes')) problems.push(`The standby is not replicating (receiving: ${out.standby.io || 'no'}, applying: ${out.standby.sql || 'no'}).`);
    else if (out.standby && out.standby.semiSync !== 'ON') problems.push('Semi-synchronous replication is off: saves are acknowledged before the standby has them.');
    return { ...out, state: problems.length ? 'warn' : 'ok', problems };
  }

  const KNOB_LABELS = {
    HAPROXY_MAXCONN: 'HAProxy: connections in all', HAPROXY_LISTEN_MAXCONN: 'HAProxy: connections on the front end', HAPROXY_NBTHREAD: 'HAProxy: threads',
    WEBAPP_MAXCONN: 'Webapp: requests at once (server maxconn)', ENGINE_MAXCONN: 'Engine: requests at once (server maxconn)', ENGINE_MAXQUEUE: 'Engine: queue length',
    HAPROXY_TIMEOUT_CONNECT: 'Timeout: connect', HAPROXY_TIMEOUT_CLIENT: 'Timeout: client idle', HAPROXY_TIMEOUT_HTTP_REQUEST: 'Timeout: request headers',
    WEBAPP_TIMEOUT_SERVER: 'Timeout: webapp answer', WEBAPP_TIMEOUT_QUEUE: 'Timeout: webapp queue', ENGINE_TIMEOUT_SERVER: 'Timeout: engine answer', ENGINE_TIMEOUT_QUEUE: 'Timeout: engine queue',
    WEB_WORKERS: 'Node workers', DB_POOL_SIZE: 'MySQL connections per worker', MEMCACHED_POOL_SIZE: 'memcached connections per worker', BCRYPT_COST: 'Password hash cost (bcrypt)',
    ENGINE_SLOTS: 'Sandbox slots (runs at once)', ENGINE_MAX_WORKERS: 'Apache workers (MaxRequestWorkers)', ENGINE_SERVER_LIMIT: 'Apache ServerLimit', ENGINE_START_SERVERS: 'Apache StartServers',
    DB_MAX_CONNECTIONS: 'MySQL max_connections', DB_BUFFER_POOL_SIZE: 'InnoDB buffer pool',
    MEMCACHED_MAX_CONN: 'memcached connections', MEMCACHED_THREADS: 'memcached threads', MEMCACHED_MEMORY_MB: 'memcached memory (MB)',
  };

  const ENV_KEYS = [
    ['HAProxy', ['HAPROXY_MAXCONN', 'HAPROXY_LISTEN_MAXCONN', 'HAPROXY_NBTHREAD', 'WEBAPP_MAXCONN', 'ENGINE_MAXCONN', 'ENGINE_MAXQUEUE',
      'HAPROXY_TIMEOUT_CONNECT', 'HAPROXY_TIMEOUT_CLIENT', 'HAPROXY_TIMEOUT_HTTP_REQUEST', 'WEBAPP_TIMEOUT_SERVER', 'WEBAPP_TIMEOUT_QUEUE', 'ENGINE_TIMEOUT_SERVER', 'ENGINE_TIMEOUT_QUEUE']],
    ['Webapp', ['WEB_WORKERS', 'DB_POOL_SIZE', 'MEMCACHED_POOL_SIZE', 'BCRYPT_COST']],
    ['Engine', ['ENGINE_SLOTS', 'ENGINE_MAX_WORKERS', 'ENGINE_SERVER_LIMIT', 'ENGINE_START_SERVERS']],
    ['MariaDB', ['DB_MAX_CONNECTIONS', 'DB_BUFFER_POOL_SIZE']],
    ['memcached', ['MEMCACHED_MAX_CONN', 'MEMCACHED_THREADS', 'MEMCACHED_MEMORY_MB']],
  ];

  // A knob's value: the environment the services got; else what the running service
  // shows (the webapp's own config, the engine's rendered Apache config); else the
  // active tuning profile. Never "—" when one of them knows it.
  function knobValue(name, apache, profileText) {
    if (env[name] !== undefined && env[name] !== '') return { value: env[name], from: 'environment' };
    const running = {
      DB_POOL_SIZE: cfg && cfg.db && cfg.db.poolSize, MEMCACHED_POOL_SIZE: cfg && cfg.memcached && cfg.memcached.poolSize,
      BCRYPT_COST: cfg && cfg.bcryptCost, WEB_WORKERS: cfg && cfg.workers,
      ENGINE_MAX_WORKERS: apache.MaxRequestWorkers, ENGINE_SERVER_LIMIT: apache.ServerLimit, ENGINE_START_SERVERS: apache.StartServers,
    }[name];
    if (running !== undefined && running !== null) return { value: String(running), from: 'running service' };
    const m = profileText && new RegExp(`^\\s*(?:export\\s+)?${name}=["']?([^"'#\\s]+)`, 'm').exec(profileText);
    if (m) return { value: m[1], from: 'tuning/profile.env' };
    return { value: null, from: null };
  }

  async function knobs() {
    const [haproxy, mysql] = await Promise.all([haproxyLive(), mysqlVars()]);
    const apache = apacheConf();
    const profile = readText(path.resolve(__dirname, '../../../tuning/profile.env'));
    return {
      haproxy, mysql, apache, tuning: tuningReport(), backup: backupStatus(),
      webWorkers: cfg ? cfg.workers : Number(env.WEB_WORKERS) || null,
      globalMaxconn: env.HAPROXY_MAXCONN || null, // global maxconn is not in the stats CSV
      dbPoolSize: cfg && cfg.db ? cfg.db.poolSize : null,
      env: ENV_KEYS.map(([group, keys]) => ({ group, vars: keys.map((k) => ({ name: k, label: KNOB_LABELS[k] || k, ...knobValue(k, apache, profile && profile.text) })) })),
      profile,
      statsUrl,
    };
  }

  // Admin-only view of HAProxy's stats page (the port itself listens on 127.0.0.1).
  async function stats(subpath, search) {
    const res = await fetchImpl(`${statsUrl}/${subpath || ''}${search || ''}`, { signal: AbortSignal.timeout(3000) });
    return { status: res.status, type: res.headers.get('content-type') || 'text/html', body: Buffer.from(await res.arrayBuffer()) };
  }

  return { knobs, stats, tuningReport, backupStatus, statsUrl, readiness: createReadiness({ varDir, env }),
    live: cfg ? createLiveFigures({ cfg, env, fetchImpl }) : null };
}

module.exports = { createAdminService, parseStatsCsv };
