'use strict';
// One bcrypt cost for every password hash (BCRYPT_COST): a chosen password, a
// generated one, an import's, the first admin's, and the dummy compared when a name
// matches no account. A sign-in then takes as long whether the name exists or not;
// a stored hash of another cost (made before, or under another BCRYPT_COST) would
// tell its accounts apart by timing (imported accounts were once hashed
// two steps cheaper), so it is redone at its account's next correct sign-in.
const crypto = require('node:crypto');
const bcrypt = require('bcrypt');

function createPasswords({ cost }) {
  let dummy = null;
  function needsRehash(hash) {
    try { return bcrypt.getRounds(hash) !== cost; } catch { return false; } // not a bcrypt hash: nothing to redo
  }
  return {
    cost,
    hash: (password) => bcrypt.hash(password, cost),
    // a hash of a password nobody knows, made once per process
    dummyHash: () => (dummy ||= bcrypt.hash(crypto.randomBytes(24).toString('base64'), cost)),
    needsRehash,
  };
}

module.exports = { createPasswords };
