'use strict';
// The slow-body attack: N connections each POST a request that
// announces LENGTH bytes of body and sends one byte every EVERY_MS. Prints one line per
// connection, "STATUS SECONDS" (STATUS 0: closed without an answer, or still waiting
// after MAX_S), once all are done. Used by tests/haproxy.sh and the live retries.
//   node tests/slow-body.js URL N [LENGTH [EVERY_MS [MAX_S]]] [-H 'Name: value' ...]
const net = require('node:net');

const args = process.argv.slice(2);
const headers = [];
for (let i = args.indexOf('-H'); i >= 0; i = args.indexOf('-H')) headers.push(...args.splice(i, 2).slice(1));
const [url, n = '4', length = '100000', every = '3000', maxS = '60'] = args;
const u = new URL(url);

function one() {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let timer = null;
    let answer = '';
    const done = (status) => {
      clearInterval(timer);
      clearTimeout(deadline);
      sock.destroy();
      resolve(`${status} ${((Date.now() - t0) / 1000).toFixed(2)}`);
    };
    const sock = net.connect(Number(u.port || 80), u.hostname, () => {
      sock.write(`POST ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\n`
        + headers.map((h) => `${h}\r\n`).join('') + `Content-Length: ${length}\r\n\r\n{`);
      timer = setInterval(() => sock.write('x'), Number(every));
    });
    sock.on('data', (d) => {
      answer += d.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(answer);
      if (m) done(Number(m[1]));
    });
    sock.on('error', () => done(0));
    sock.on('close', () => done(0));
    const deadline = setTimeout(() => done(0), Number(maxS) * 1000);
  });
}

Promise.all(Array.from({ length: Number(n) }, one)).then((lines) => console.log(lines.join('\n')));
