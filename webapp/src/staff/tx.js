'use strict';
// Transactions for the staff side: one pooled connection, BEGIN ... COMMIT, rolled
// back on any error (nothing half-created), retried whole on a deadlock. Statements
// count against the request's query budget like db.query's.
const { current } = require('../shared/context');

const RETRYABLE = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']);

async function withTx(db, fn, { retries = 3 } = {}) {
  for (let attempt = 1; ; attempt++) {
    const conn = await db.pool.getConnection();
    const ctx = current();
    const tx = {
      // server-side prepared statement (fixed shapes)
      async query(sql, params = []) {
        if (ctx) ctx.queries++;
        const [rows] = await conn.execute(sql, params);
        return rows;
      },
      // text protocol with client-side escaping: for statements whose shape varies
      // (multi-row inserts, IN lists), which must not fill the prepared-statement cache
      async text(sql, params = []) {
        if (ctx) ctx.queries++;
        const [rows] = await conn.query(sql, params);
        return rows;
      },
    };
    try {
      await conn.beginTransaction();
      const out = await fn(tx);
      await conn.commit();
      return out;
    } catch (err) {
      await conn.rollback().catch(() => {});
      if (RETRYABLE.has(err.code) && attempt < retries) {
        await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 30));
        continue;
      }
      throw err;
    } finally {
      conn.release();
    }
  }
}

// Text-protocol query outside a transaction (varying shapes, see above).
async function textQuery(db, sql, params = []) {
  const ctx = current();
  if (ctx) ctx.queries++;
  const [rows] = await db.pool.query(sql, params);
  return rows;
}

module.exports = { withTx, textQuery };
