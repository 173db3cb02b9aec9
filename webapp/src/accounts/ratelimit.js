'use strict';
// Sign-in limits that an attacker cannot turn against a student (rate-limiter-flexible,
// counters in memcached shared by all workers; only failures count).
//
//   per (account, address)  maxFailsPerAccountAddress in windowS: a guesser is stopped
//                           where he sits, while the student signs in from elsewhere;
//   per account             maxFailsPerAccount in accountWindowS, far higher: a guesser
//                           spread over many addresses;
//   per address             maxFailsPerAddress in windowS: an exam hall shares one NAT
//                           address, so this is high (a typo per student never locks
//                           the hall);
//   per device              a browser that has signed in to this account before holds
//                           a signed device cookie naming it (OWASP "device cookies");
//                           its attempts count only against that cookie, so a classmate
//                           behind the same NAT who fails on purpose, or floods the
//                           hall's address, cannot lock that student out.
//
// When memcached is unreachable, or does not answer in time (a restart can swallow
// requests in flight), each worker keeps counting in memory (the library's insurance
// limiter), so sign-in neither fails, hangs nor goes unlimited.
const crypto = require('node:crypto');
const { RateLimiterMemcache, RateLimiterMemory, RLWrapperTimeouts } = require('rate-limiter-flexible');
const { tooMany } = require('../shared/errors');

const DEVICE_COOKIE = 'prutor.device';
const DEVICE_TTL_S = 180 * 86400;

function keyPart(s) { return crypto.createHash('sha1').update(String(s).toLowerCase()).digest('hex'); }
const b64url = (b) => Buffer.from(b).toString('base64url');

function createLoginLimiter({
  mc, secret, maxFailsPerAccountAddress, maxFailsPerAccount, maxFailsPerAddress, windowS, accountWindowS, secure = false,
  storeTimeoutMs = 1500,
}) {
  function limiter(keyPrefix, points, duration) {
    const insuranceLimiter = new RateLimiterMemory({ keyPrefix, points, duration });
    const rl = new RLWrapperTimeouts({
      limiter: new RateLimiterMemcache({ storeClient: mc.client, keyPrefix, points, duration, insuranceLimiter }),
      timeoutMs: storeTimeoutMs,
      insuranceLimiter,
    });
    rl.bound = points;
    return rl;
  }
  const byAccountAddress = limiter('rl:acctaddr', maxFailsPerAccountAddress, windowS);
  const byAccount = limiter('rl:acct', maxFailsPerAccount, accountWindowS);
  const byAddress = limiter('rl:addr', maxFailsPerAddress, windowS);
  const byDevice = limiter('rl:dev', maxFailsPerAccountAddress, windowS);

  // ---- device cookie: <nonce>.<issued>.<hmac(username|nonce|issued)>
  const deviceKey = crypto.createHmac('sha256', secret).update('prutor device cookie v1').digest();
  const deviceMac = (user, nonce, issued) => b64url(crypto.createHmac('sha256', deviceKey).update(`${keyPart(user)}|${nonce}|${issued}`).digest());

  // The device nonce when the cookie was issued to this username and is still valid.
  function deviceFor(username, value) {
    const m = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value || '');
    if (!m || Number(m[2]) + DEVICE_TTL_S < Date.now() / 1000) return null;
    const want = Buffer.from(deviceMac(username, m[1], m[2]));
    const got = Buffer.from(m[3]);
    return want.length === got.length && crypto.timingSafeEqual(want, got) ? m[1] : null;
  }

  function issueDevice(res, username) {
    const nonce = b64url(crypto.randomBytes(16));
    const issued = String(Math.floor(Date.now() / 1000));
    res.append('Set-Cookie', `${DEVICE_COOKIE}=${nonce}.${issued}.${deviceMac(username, nonce, issued)}; Path=/accounts; HttpOnly; SameSite=Strict; Max-Age=${DEVICE_TTL_S}${secure ? '; Secure' : ''}`);
  }

  // Which counters an attempt is charged to.
  function plan(username, ip, deviceCookie) {
    const user = keyPart(username);
    const device = deviceFor(username, deviceCookie);
    if (device) return { checks: [[byDevice, `${user}:${device}`, 'device']] };
    return {
      checks: [
        [byAccountAddress, `${user}:${keyPart(ip)}`, 'account-address'],
        [byAccount, user, 'account'],
        [byAddress, keyPart(ip), 'address'],
      ],
    };
  }

  const MESSAGES = {
    device: 'Too many failed sign-in attempts for this account in this browser.',
    'account-address': 'Too many failed sign-in attempts for this account from this computer.',
    account: 'Too many failed sign-in attempts for this account.',
    address: 'Too many failed sign-in attempts from this computer.',
  };

  // Throws 429 (with Retry-After) when one of the attempt's counters is spent.
  async function check(username, ip, deviceCookie) {
    const p = plan(username, ip, deviceCookie);
    const states = await Promise.all(p.checks.map(([l, key]) => l.get(key)));
    p.checks.forEach(([l, , kind], i) => {
      const s = states[i];
      if (s && s.consumedPoints >= l.bound) {
        const secs = Math.max(1, Math.ceil(s.msBeforeNext / 1000));
        const wait = secs >= 120 ? `${Math.ceil(secs / 60)} minutes` : `${secs} seconds`;
        throw tooMany(`${MESSAGES[kind]} Wait ${wait}, or ask the invigilator to help.`, { retryAfter: secs, code: 'rate_limited', limit: kind });
      }
    });
    return p;
  }

  async function fail(p) {
    // consume() rejects with the counter's state once it is over: that is expected here
    await Promise.all(p.checks.map(([l, key]) => l.consume(key).catch((e) => { if (e instanceof Error) throw e; })));
  }

  // A correct password clears the attempt's per-(account, address) or device count.
  async function succeed(p) {
    await Promise.all(p.checks.filter(([l]) => l === byAccountAddress || l === byDevice)
      .map(([l, key]) => l.delete(key).catch(() => {})));
  }

  return { check, fail, succeed, issueDevice };
}

module.exports = { createLoginLimiter, DEVICE_COOKIE };
