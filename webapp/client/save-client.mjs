// The exam editor's save transport: exactly-once saves over an unreliable path.
//
// Every save gets an id made here (client_save_id) that each retry of it reuses, so
// the server stores it once however often it arrives (a retry after a lost answer,
// HAProxy resending). A save that is not acknowledged (no connection, 5xx, 429) is
// retried with exponential backoff, or after the server's Retry-After when it sent
// one; the status callback tells the student what is going on. Refusals that a retry
// cannot change (400, 401, 403, 404, 409, 413) are thrown at once.
//
// Kept apart from editor.js (the UI) so both can change independently; no DOM here.

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

export function newSaveId() {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_'); // 24 base64url characters
}

// Seconds from a Retry-After header (delta-seconds or an HTTP date), or null.
export function retryAfterMs(value, now = Date.now()) {
  if (value === null || value === undefined || value === '') return null;
  if (/^\d+$/.test(String(value).trim())) return Number(value) * 1000;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

function describe(err) {
  if (err.network) return 'no connection to the server';
  if (err.status === 503) return 'the server is restarting or busy';
  if (err.status === 429) return 'the server asks to slow down';
  return `the server answered ${err.status}`;
}

// createSaveClient({ url, csrf, onStatus, fetchImpl, sleep, maxAttempts, baseDelayMs, maxDelayMs })
//   csrf: the token, or a function returning the current one (read at every attempt, so a
//   retry after signing in again in place carries the new token).
//   .save(fields, { keepalive }) -> the server's answer ({ok, code_id, saved_at, ...}),
//   or throws an Error with .status / .code / .network / .retryAfter.
// onStatus(text, kind) is called with kind 'busy' (sending) or 'retry' (waiting to resend).
export function createSaveClient({
  url = '/editor/save', csrf, onStatus = () => {}, fetchImpl = (...a) => fetch(...a),
  sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
  maxAttempts = 8, baseDelayMs = 1000, maxDelayMs = 30000,
} = {}) {
  async function once(body, keepalive) {
    let res;
    try {
      res = await fetchImpl(url, {
        method: 'POST', credentials: 'same-origin', keepalive,
        headers: {
          'Content-Type': 'application/json', Accept: 'application/json',
          'X-CSRF-Token': typeof csrf === 'function' ? csrf() : csrf, 'X-Requested-With': 'XMLHttpRequest',
        },
        body,
      });
    } catch {
      const err = new Error('No connection to the server. Your code is kept in this browser; it will be saved when the connection is back.');
      err.network = true;
      throw err;
    }
    let answer = null;
    try { answer = await res.json(); } catch { /* not JSON (a proxy's page) */ }
    if (!res.ok || !answer || answer.ok !== true) {
      const err = new Error((answer && answer.error) || `The server answered ${res.status}.`);
      err.status = res.ok ? 502 : res.status; // a 2xx without our answer is not an acknowledgement
      err.code = answer && answer.code;
      err.retryAfter = res.headers.get('Retry-After');
      throw err;
    }
    return answer;
  }

  async function save(fields, { keepalive = false } = {}) {
    const clientSaveId = newSaveId();
    const body = JSON.stringify({ ...fields, client_save_id: clientSaveId });
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await once(body, keepalive);
        answer.attempts = attempt;
        answer.client_save_id = clientSaveId;
        return answer;
      } catch (err) {
        const retryable = err.network || RETRYABLE_STATUS.has(err.status);
        // a keepalive save runs as the page goes away: nobody is left to retry it
        if (!retryable || keepalive || attempt >= maxAttempts) {
          err.attempts = attempt;
          throw err;
        }
        const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1)) * (0.75 + Math.random() * 0.5);
        const wait = Math.min(maxDelayMs * 2, retryAfterMs(err.retryAfter) ?? backoff);
        onStatus(`Not saved yet: ${describe(err)}. Retrying in ${Math.max(1, Math.round(wait / 1000))} s (attempt ${attempt + 1} of ${maxAttempts})…`, 'retry');
        await sleep(wait);
        onStatus('Saving again…', 'busy');
      }
    }
  }

  return { save };
}
