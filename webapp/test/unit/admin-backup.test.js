'use strict';
// The admin page's backup status: read from the file backup/'s daemon writes, judged
// (no backups / ok / attention with the reason), escaped into the page.
const test = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');
const { createAdminService } = require('../../src/admin/service');

const iso = (msAgo) => new Date(Date.now() - msAgo).toISOString().replace(/\.\d+Z$/, 'Z');
function status(over = {}) {
  return {
    updated_at: iso(1000), target: '/backups', timeline: 2, fulls: 3, full_interval_s: 21600,
    last_full: { finished_at: iso(3600e3), duration_ms: 1200, bytes: 800000, mongo: true },
    binlog: { streaming: true, file: 'mariadb-bin.000004', bytes: 123456, last_shipped_at: iso(2000), in_sync_at: iso(1000), lag_bytes: 0 },
    ...over,
  };
}

test('backup status: none, ok, and each problem named', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prutor-backup-status-'));
  const file = path.join(dir, 'backup-status.json');
  const svc = createAdminService({ db: null, cfg: { varDir: dir, backupStatusFile: file }, env: {} });
  assert.equal(svc.backupStatus().state, 'none');

  fs.writeFileSync(file, JSON.stringify(status()));
  const ok = svc.backupStatus();
  assert.equal(ok.state, 'ok', ok.problems.join(' '));
  assert.equal(ok.binlog.file, 'mariadb-bin.000004');
  assert.ok(ok.full.ageS >= 3599 && ok.full.ageS <= 3700);
  assert.ok(ok.binlog.lagS <= 5);

  const cases = [
    [{ updated_at: iso(120e3) }, /not running/],
    [{ binlog: { ...status().binlog, streaming: false } }, /not being shipped/],
    [{ binlog: { ...status().binlog, in_sync_at: iso(300e3), lag_bytes: 5000 } }, /behind the server by 30\d s/],
    [{ last_full: null }, /No full backup yet/],
    [{ last_full: { ...status().last_full, finished_at: iso(13 * 3600e3) } }, /full backup is 13 h old/],
    [{ standby: { io: 'Connecting', sql: 'Yes', seconds_behind: '', primary_semi_sync: 'OFF' } }, /standby is not replicating \(receiving: Connecting, applying: Yes\)/],
    [{ standby: { io: 'Yes', sql: 'Yes', seconds_behind: '0', primary_semi_sync: 'OFF' } }, /Semi-synchronous replication is off/],
  ];
  for (const [over, why] of cases) {
    fs.writeFileSync(file, JSON.stringify(status(over)));
    const s = svc.backupStatus();
    assert.equal(s.state, 'warn');
    assert.match(s.problems.join(' '), why);
  }
  fs.writeFileSync(file, '{not json');
  assert.equal(svc.backupStatus().state, 'none');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('backup status on the admin page: escaped', () => {
  const { knobsPage } = require('../../src/admin/views');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prutor-backup-status-'));
  const file = path.join(dir, 'backup-status.json');
  fs.writeFileSync(file, JSON.stringify(status({ target: '<script>x</script>' })));
  const svc = createAdminService({ db: null, cfg: { varDir: dir, backupStatusFile: file }, env: {} });
  const k = { haproxy: { error: 'not reachable' }, mysql: { error: 'no db' }, apache: { found: false, file: 'x' }, env: [], backup: svc.backupStatus() };
  const req = { session: { uid: 1, role: 'admin', name: 'A', username: 'admin', csrf: 'x' }, headers: {} };
  const page = String(knobsPage(req, { k }));
  assert.match(page, /id="backup-last-full">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(60 min ago\)/);
  assert.match(page, /id="backup-binlog">mariadb-bin.000004 at 123456 bytes/);
  assert.match(page, /id="backup-lag">\d s/);
  assert.doesNotMatch(page, /id="backup-standby"/);
  fs.writeFileSync(file, JSON.stringify(status({ standby: { io: 'Yes', sql: 'Yes', seconds_behind: '0', primary_semi_sync: 'ON' } })));
  const withStandby = String(knobsPage(req, { k: { ...k, backup: svc.backupStatus() } }));
  assert.match(withStandby, /id="backup-standby">receiving Yes, applying Yes, 0 s behind, semi-sync ON/);
  assert.match(withStandby, /<span class="pill ok">ok<\/span>/);
  assert.doesNotMatch(page, /<script>x<\/script>/);
  assert.doesNotMatch(page, /id="backup-deferred"/);
  // a scheduled full waiting for an exam: said, with why and until when, and not a problem
  const why = 'exam window open or opening within 30 min: event 12 (until 2026-12-01 12:00 UTC) <b>';
  fs.writeFileSync(file, JSON.stringify(status({
    full_deferred: { due_at: iso(600e3), runs_by: '2026-12-01T16:10:00Z', reason: why },
    last_full: { ...status().last_full, priority: 'low', deferred_s: 21600, deferred_for: 'event 9 <i>' },
  })));
  const deferred = svc.backupStatus();
  assert.equal(deferred.state, 'ok', deferred.problems.join(' '));
  const withDefer = String(knobsPage(req, { k: { ...k, backup: deferred } }));
  assert.match(withDefer, /id="backup-deferred">deferred \(due 10 min ago\): exam window open or opening within 30 min: event 12 \(until 2026-12-01 12:00 UTC\) &lt;b&gt;; runs when it ends, at the latest 2026-12-01 16:10:00 UTC/);
  assert.match(withDefer, /id="backup-last-full">[^<]*, deferred 6 h \(event 9 &lt;i&gt;\), at low priority/);
  fs.rmSync(dir, { recursive: true, force: true });
});
