'use strict';
// A stand-in backend for tests/haproxy.sh: answers every request with JSON
// naming itself, the path it saw and the body bytes it received, DELAY_MS after
// the body ended (at once for /healthz).
//   node tests/fake-backend.js NAME PORT DELAY_MS
const http = require('node:http');
const [name, port, delay] = process.argv.slice(2);
http.createServer((req, res) => {
  let bytes = 0;
  const answer = () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ backend: name, path: req.url, xff: req.headers['x-forwarded-for'] || null, bytes }));
  };
  req.on('data', (d) => { bytes += d.length; });
  req.on('end', () => {
    if (req.url.startsWith('/healthz')) answer();
    else setTimeout(answer, Number(delay) || 0);
  });
}).listen(Number(port), '127.0.0.1');
