'use strict';
// Raw memcached text protocol over ONE persistent socket (so reading `stats`
// does not itself add to total_connections).
const net = require('node:net');
const env = require('./env');

function connect({ host, port } = env.memcached) {
  const sock = net.connect(port, host);
  sock.setEncoding('utf8');
  let buf = '';
  const waiters = [];
  sock.on('data', (d) => {
    buf += d;
    while (waiters.length) {
      const w = waiters[0];
      const m = w.end.exec(buf);
      if (!m) break;
      waiters.shift();
      const out = buf.slice(0, m.index + m[0].length);
      buf = buf.slice(m.index + m[0].length);
      w.resolve(out);
    }
  });
  const ready = new Promise((res, rej) => { sock.once('connect', res); sock.once('error', rej); });
  async function cmd(line, end) {
    await ready;
    return new Promise((resolve) => { waiters.push({ end, resolve }); sock.write(`${line}\r\n`); });
  }
  return {
    async stats() {
      const out = await cmd('stats', /END\r\n/);
      const s = {};
      for (const l of out.split('\r\n')) { const p = l.split(' '); if (p[0] === 'STAT') s[p[1]] = Number.isNaN(Number(p[2])) ? p[2] : Number(p[2]); }
      return s;
    },
    async get(key) {
      const out = await cmd(`get ${key}`, /END\r\n/);
      const m = /^VALUE \S+ (\d+) (\d+)\r\n([\s\S]*?)\r\nEND\r\n$/.exec(out);
      return m ? { flags: Number(m[1]), value: m[3] } : null;
    },
    async del(key) { return (await cmd(`delete ${key}`, /(DELETED|NOT_FOUND)\r\n/)).trim(); },
    // everything memcached holds is gone, as after its restart
    async flushAll() { return (await cmd('flush_all', /OK\r\n/)).trim(); },
    close() { sock.end(); },
  };
}

module.exports = { connect };
