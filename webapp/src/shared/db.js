'use strict';
// One mysql2 pool per worker; every statement goes through query() so it is a
// server-side prepared statement (pool.execute, cached per connection) and is
// counted against the request's query budget.
const mysql = require('mysql2/promise');
const { current } = require('./context');

const RETRYABLE = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);
const UNAVAILABLE = new Set(['ECONNREFUSED', 'PROTOCOL_CONNECTION_LOST', 'ETIMEDOUT', 'ER_CON_COUNT_ERROR', 'ECONNRESET', 'POOL_CLOSED', 'EHOSTUNREACH',
  // the server's name does not resolve (yet): a container network's DNS
  'ENOTFOUND', 'EAI_AGAIN']);

function createDb(cfg) {
  const pool = mysql.createPool({
    host: cfg.host,
    port: cfg.port,
    user: cfg.user,
    password: cfg.password,
    database: cfg.database,
    connectionLimit: cfg.poolSize,
    maxIdle: cfg.poolSize,
    waitForConnections: true,
    queueLimit: 0,
    connectTimeout: 5000,
    enableKeepAlive: true,
    timezone: 'Z',           // DATETIME values are UTC (CONTRACTS.md)
    dateStrings: false,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    charset: 'utf8mb4_unicode_ci',
  });
  // Once per physical connection (not per request): the session time zone is UTC,
  // so CURRENT_TIMESTAMP defaults and UTC_TIMESTAMP agree.
  pool.pool.on('connection', (conn) => { conn.query("SET time_zone = '+00:00'"); });

  // An outage (no server, lost connection, pool closed) is marked so that the
  // error handler answers 503 with Retry-After instead of 500 (shared/errors.js).
  function markUnavailable(err) {
    if (UNAVAILABLE.has(err.code) || err.fatal) {
      err.unavailable = true;
      err.message = 'The database is not reachable right now. Please retry in a moment.';
    }
    return err;
  }

  async function query(sql, params = []) {
    const ctx = current();
    for (let attempt = 1; ; attempt++) {
      if (ctx) ctx.queries++;
      try {
        const [rows] = await pool.execute(sql, params);
        return rows;
      } catch (err) {
        if (RETRYABLE.has(err.code) && attempt < 4) {
          await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 20));
          continue;
        }
        throw markUnavailable(err);
      }
    }
  }

  // Text protocol with client-side escaping: for statements whose shape varies
  // (multi-row inserts, IN lists), which must not fill the prepared-statement cache.
  async function text(sql, params = []) {
    const ctx = current();
    if (ctx) ctx.queries++;
    try {
      const [rows] = await pool.query(sql, params);
      return rows;
    } catch (err) {
      throw markUnavailable(err);
    }
  }

  // The one transaction helper: fn(tx) runs on one pooled connection between BEGIN
  // and COMMIT, rolled back on any error (nothing half-created) and run again whole
  // on a deadlock. tx.query is a prepared statement, tx.text the text protocol (see
  // text above); both count against the request's query budget.
  async function tx(fn, { retries = 3 } = {}) {
    for (let attempt = 1; ; attempt++) {
      let conn;
      try {
        conn = await pool.getConnection();
      } catch (err) {
        throw markUnavailable(err);
      }
      const ctx = current();
      const t = {
        async query(sql, params = []) {
          if (ctx) ctx.queries++;
          const [rows] = await conn.execute(sql, params);
          return rows;
        },
        async text(sql, params = []) {
          if (ctx) ctx.queries++;
          const [rows] = await conn.query(sql, params);
          return rows;
        },
      };
      try {
        await conn.beginTransaction();
        const out = await fn(t);
        await conn.commit();
        return out;
      } catch (err) {
        await conn.rollback().catch(() => {});
        if (RETRYABLE.has(err.code) && attempt < retries) {
          await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 30));
          continue;
        }
        throw markUnavailable(err);
      } finally {
        conn.release();
      }
    }
  }

  async function ping() {
    const [rows] = await pool.query('SELECT 1 AS ok');
    return rows[0].ok === 1;
  }

  return { pool, query, text, tx, ping, close: () => pool.end() };
}

module.exports = { createDb };
