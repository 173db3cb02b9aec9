'use strict';
// Sign-in limits an attacker can neither outrun nor turn against a student
// (rate-limiter-flexible, counters in memcached shared by all workers; OWASP's
// "device cookies" scheme).
//
// Reserved before the compare. An attempt is charged (one atomic memcached incr, or
// add for a new counter) and checked in the same step BEFORE its password is
// compared, so attempts sent at the same moment count while they are in flight: the
// 11th of 150 simultaneous guesses is already refused. A wrong
// password keeps the charge; a correct one clears the counter; a compare our side
// could not do (503) gives its charge back.
//
// Keyed on the account. The caller passes the account the sign-in's own lookup found
// (accountKey(user.id)), so a name spelled with letters the username collation folds
// (ſ, fullwidth ｓ, é) is the same account with the same counters (finding 3); a name
// that matches no account is keyed on its folded form (unknownKey), so its made-up
// variants share one counter and an unknown name is limited exactly like a known one.
//
//   per (account, device)  a browser holding a device cookie this account signed in
//                          with (signed, 180 days): its attempts count only there, so
//                          nobody elsewhere, however many, locks that browser out;
//   per account            every other browser: maxFailsPerAccount failures, then a
//                          lock-out of lockBaseS that doubles with each further lock-out
//                          of the day up to lockMaxS (a typo costs seconds, a guesser is
//                          slowed to ~maxFailsPerAccount per lockMaxS); the same rule
//                          per device;
//   per address            only failures for names that match no account, and past
//                          maxUnknownFailsPerAddress that address's sign-ins without a
//                          device cookie are slowed by addressDelayMs, never refused:
//                          an exam hall behind one NAT address keeps signing in
//                          (finding 4).
//
// When memcached is unreachable, or does not answer in time (a restart can swallow
// requests in flight), each worker keeps counting in memory (the library's insurance
// limiter), so sign-in neither fails, hangs nor goes unlimited.
const crypto = require('node:crypto');
const { RateLimiterMemcache, RateLimiterMemory, RLWrapperTimeouts } = require('rate-limiter-flexible');
const { tooMany } = require('../shared/errors');

const DEVICE_COOKIE = 'prutor.device';
const DEVICE_TTL_S = 180 * 86400;
const LOCKOUT_MEMORY_S = 86400; // lock-outs within this long make the next one longer

const sha = (s) => crypto.createHash('sha256').update(String(s)).digest('base64url');
const b64url = (b) => Buffer.from(b).toString('base64url');
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

// A name as the username column's collation (utf8mb4_unicode_ci: accent-, case- and
// width-insensitive, ignorable characters ignored, trailing spaces padded) compares
// it, as near as Unicode's own tables allow: compatibility forms (ſ, ｓ, ﬁ) to their
// letters, accents and other combining marks dropped, invisible format characters
// dropped, full case folding (ß -> ss).
function foldName(name) {
  return String(name).normalize('NFKD').replace(/[\p{M}\p{Cf}]/gu, '').toUpperCase().toLowerCase()
    .normalize('NFKC').replace(/ +$/, '');
}
const accountKey = (userId) => `u${userId}`;
const unknownKey = (name) => `n${sha(foldName(name))}`;

function createLoginLimiter({
  mc, secret, maxFailsPerAccount, maxFailsPerDevice, windowS, lockBaseS, lockMaxS, maxUnknownFailsPerAddress, addressDelayMs,
  secure = false, storeTimeoutMs = 1500,
}) {
  function limiter(keyPrefix, points, duration) {
    const insuranceLimiter = new RateLimiterMemory({ keyPrefix, points, duration });
    const store = new RateLimiterMemcache({ storeClient: mc.client, keyPrefix, points, duration, insuranceLimiter });
    const rl = new RLWrapperTimeouts({ limiter: store, timeoutMs: storeTimeoutMs, insuranceLimiter });
    rl.bound = points;
    // The library's reward() cannot lower a memcached counter (incr with a negative
    // delta is refused); decr can, atomically, and never below 0.
    rl.refund = (key) => new Promise((resolve) => { mc.client.decr(store.getKey(key), 1, () => resolve()); });
    return rl;
  }
  const byAccount = limiter('rl:acct', maxFailsPerAccount, windowS);
  const byDevice = limiter('rl:dev', maxFailsPerDevice, windowS);
  const byAddress = limiter('rl:addr', maxUnknownFailsPerAddress, windowS);
  const lockouts = limiter('rl:locks', Number.MAX_SAFE_INTEGER, LOCKOUT_MEMORY_S);

  // ---- device cookie: <nonce>.<issued>.<hmac(account|nonce|issued)>
  const deviceKey = crypto.createHmac('sha256', secret).update('prutor device cookie v2').digest();
  const deviceMac = (account, nonce, issued) => b64url(crypto.createHmac('sha256', deviceKey).update(`${account}|${nonce}|${issued}`).digest());

  // The device nonce when the cookie was issued to this account and is still valid.
  function deviceFor(account, value) {
    const m = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value || '');
    if (!m || Number(m[2]) + DEVICE_TTL_S < Date.now() / 1000) return null;
    const want = Buffer.from(deviceMac(account, m[1], m[2]));
    const got = Buffer.from(m[3]);
    return want.length === got.length && crypto.timingSafeEqual(want, got) ? m[1] : null;
  }

  function issueDevice(res, account) {
    const nonce = b64url(crypto.randomBytes(16));
    const issued = String(Math.floor(Date.now() / 1000));
    res.append('Set-Cookie', `${DEVICE_COOKIE}=${nonce}.${issued}.${deviceMac(account, nonce, issued)}; Path=/accounts; HttpOnly; SameSite=Strict; Max-Age=${DEVICE_TTL_S}${secure ? '; Secure' : ''}`);
  }

  const MESSAGES = {
    device: 'Too many failed sign-in attempts for this account in this browser.',
    account: 'Too many failed sign-in attempts for this account.',
  };

  // consume() rejects with the counter's state (not an Error) once it is over
  const consumed = (p) => p.then((r) => r, (r) => { if (r instanceof Error) throw r; return r; });

  const lockFor = (nth) => Math.min(lockMaxS, lockBaseS * 2 ** Math.min(nth - 1, 30));

  // The 429 for a spent counter. The attempt that spends it starts a lock-out, longer
  // for each one of the day. The others sent with it may have read the counter's end
  // before that lock-out set it: they are told the lock-out's length at most.
  async function refusal(l, key, kind, state) {
    const lockKey = `${kind}:${key}`;
    let secs = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    if (state.consumedPoints === l.bound + 1) {
      secs = lockFor((await consumed(lockouts.consume(lockKey))).consumedPoints);
      await l.block(key, secs);
    } else {
      const locks = await lockouts.get(lockKey);
      secs = Math.min(secs, lockFor(locks ? Number(locks.consumedPoints) : 1));
    }
    const wait = secs >= 120 ? `${Math.ceil(secs / 60)} minutes` : `${secs} seconds`;
    return tooMany(`${MESSAGES[kind]} Wait ${wait}, or ask the invigilator to help.`, { retryAfter: secs, code: 'rate_limited', limit: kind });
  }

  // Charges one attempt for `account` (accountKey or unknownKey) from `ip`, before the
  // compare; throws 429 (with retryAfter) when the counter is spent.
  async function reserve({ account, ip, deviceCookie }) {
    const device = deviceFor(account, deviceCookie);
    if (!device) {
      const hall = await byAddress.get(sha(ip));
      if (hall && hall.consumedPoints >= byAddress.bound) await sleep(addressDelayMs);
    }
    const [l, key, kind] = device ? [byDevice, `${account}:${device}`, 'device'] : [byAccount, account, 'account'];
    const state = await consumed(l.consume(key));
    if (state.consumedPoints > l.bound) throw await refusal(l, key, kind, state);
    return { l, key, ip };
  }

  // A wrong password: the attempt stays charged; one for a name that matches no account
  // counts against its address too.
  async function fail(attempt, { unknown }) {
    if (unknown) await consumed(byAddress.consume(sha(attempt.ip)));
  }

  // A correct password ends the count of the counter it was charged to.
  async function succeed(attempt) {
    await attempt.l.delete(attempt.key).catch(() => {});
  }

  // The compare did not happen or did not finish on our side: not the student's attempt.
  async function release(attempt) {
    await attempt.l.refund(attempt.key);
  }

  return { reserve, fail, succeed, release, issueDevice };
}

module.exports = { createLoginLimiter, DEVICE_COOKIE, foldName, accountKey, unknownKey };
