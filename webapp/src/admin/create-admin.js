'use strict';
// One-shot job of a deployment without the demo course (the compose file's
// `admin-init`): creates the first admin account, once.
//   node src/admin/create-admin.js
// ADMIN_USERNAME (default "admin"); the password is ADMIN_PASSWORD_FILE's content
// (a Docker secret), else ADMIN_PASSWORD, else generated and printed once, here and
// never again. When the account exists nothing changes (a rerun prints no password).
const crypto = require('node:crypto');
const fs = require('node:fs');
const { loadConfig } = require('../config');
const { createDb } = require('../shared/db');
const { createPasswords } = require('../accounts/passwords');

function chosenPassword(env) {
  if (env.ADMIN_PASSWORD_FILE) return fs.readFileSync(env.ADMIN_PASSWORD_FILE, 'utf8').trim();
  return env.ADMIN_PASSWORD || '';
}

// The job starts as soon as the migration is done, and the database may still be out of
// reach for a moment (a container network's name lookup failed right after MariaDB turned
// healthy): what db.js calls unavailable is retried every second until the deadline.
async function untilReachable(attempt, { deadlineMs = 60000, pauseMs = 1000 } = {}) {
  const giveUpAt = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!err.unavailable || Date.now() + pauseMs > giveUpAt) throw err;
      console.log(`create-admin: ${err.code || 'database'} unreachable, retrying`);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

async function main(env = process.env) {
  const cfg = loadConfig(env);
  const username = env.ADMIN_USERNAME || 'admin';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(username)) throw new Error(`ADMIN_USERNAME "${username}" is not a valid username`);
  let password = chosenPassword(env);
  const generated = password === '';
  if (generated) password = crypto.randomBytes(18).toString('base64url');
  if (password.length < 12) throw new Error('the admin password must have at least 12 characters');

  const db = createDb(cfg.db);
  try {
    const hash = await createPasswords({ cost: cfg.bcryptCost }).hash(password);
    const res = await untilReachable(() => db.query(
      `INSERT INTO users (username, password_hash, name, role) VALUES (?, ?, 'Administrator', 'admin')
       ON DUPLICATE KEY UPDATE id = id`, [username, hash]));
    if (res.affectedRows !== 1) {
      console.log(`create-admin: account "${username}" exists; nothing changed`);
      return;
    }
    console.log(`create-admin: created admin account "${username}"`);
    if (generated) console.log(`create-admin: its password (shown only this once): ${password}`);
  } finally {
    await db.close();
  }
}

if (require.main === module) {
  main().catch((e) => { console.error(`create-admin: ${e.message}`); process.exit(1); });
}
module.exports = { untilReachable };
