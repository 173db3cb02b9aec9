'use strict';
// The one client of the engine's staff evaluation, ENGINE_URL/evaluate (CONTRACTS.md
// "Staff calls to the engine"): {problem_id, code} sent as a session (its cookie
// value and CSRF token); every test case of the problem, nothing stored by the
// engine. Callers decide what a busy or refusing engine means to them, from the
// status; a network failure or timeout is thrown as fetch throws it.
const { COOKIE } = require('../shared/session');

function createEngineClient({ engineUrl, fetchImpl = fetch, timeoutMs = 120000 }) {
  // -> { ok, status, body (parsed JSON or null), retryAfterS (0 when absent) }
  async function evaluate({ cookie, csrf, problemId, code }) {
    const res = await fetchImpl(`${engineUrl}/evaluate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', cookie: `${COOKIE}=${cookie}`, 'x-csrf-token': csrf },
      body: JSON.stringify({ problem_id: problemId, code }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await res.json().catch(() => null);
    return { ok: res.ok, status: res.status, body, retryAfterS: Number(res.headers.get('retry-after')) || 0 };
  }
  return { evaluate };
}

module.exports = { createEngineClient };
