'use strict';
// Login attempt limits in memcached counters (shared by all workers): failed
// attempts per account and per client address within a window. Only failures
// count, so a whole lab signing in from one NAT address is never blocked.
const crypto = require('node:crypto');
const { tooMany } = require('../shared/errors');

function keyPart(s) { return crypto.createHash('sha1').update(String(s).toLowerCase()).digest('hex'); }

function createLoginLimiter({ mc, maxFailsPerAccount, maxFailsPerAddress, windowS }) {
  const acctKey = (u) => `rl:acct:${keyPart(u)}`;
  const addrKey = (ip) => `rl:addr:${keyPart(ip)}`;
  const minutes = Math.ceil(windowS / 60);

  async function check(username, ip) {
    const ka = acctKey(username);
    const kb = addrKey(ip);
    const got = await mc.getMulti([ka, kb]);
    if (Number(got[ka] || 0) >= maxFailsPerAccount) {
      throw tooMany(`Too many failed sign-in attempts for this account. Wait ${minutes} minutes, or ask the invigilator to help.`, { retryAfter: windowS, code: 'rate_limited' });
    }
    if (Number(got[kb] || 0) >= maxFailsPerAddress) {
      throw tooMany(`Too many failed sign-in attempts from this computer. Wait ${minutes} minutes, or ask the invigilator to help.`, { retryAfter: windowS, code: 'rate_limited' });
    }
  }

  async function bump(key) {
    const n = await mc.incr(key, 1);
    if (n !== false && n !== undefined) return;
    if (await mc.add(key, '1', windowS)) return;
    await mc.incr(key, 1); // lost a race with another worker's add
  }

  async function fail(username, ip) {
    await Promise.all([bump(acctKey(username)), bump(addrKey(ip))]);
  }

  async function succeed(username) {
    await mc.del(acctKey(username)).catch(() => {});
  }

  return { check, fail, succeed, acctKey, addrKey };
}

module.exports = { createLoginLimiter };
