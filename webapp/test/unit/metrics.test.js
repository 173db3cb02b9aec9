'use strict';
// src/metrics: the route label is the route that answered, never the URL a client made up;
// the cluster primary's /metrics sums every worker's figures; the admin page's parser.
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const net = require('node:net');
const { spawn } = require('node:child_process');
const express = require('express');
const client = require('prom-client');
const { requestMetrics } = require('../../src/metrics');
const { parseExposition, quantileMs } = require('../../src/metrics/live');

async function listen(app) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return server;
}

test('attack: made-up URLs cannot add series; routes are labelled by their pattern', async () => {
  const app = express();
  app.use(requestMetrics());
  const editor = express.Router();
  editor.get('/:id', (req, res) => res.send('editor'));
  const home = express.Router();
  home.get('/', (req, res) => res.send('home'));
  app.use('/editor', editor);
  app.use('/home', home);
  const server = await listen(app);
  const base = `http://127.0.0.1:${server.address().port}`;
  try {
    for (const id of [1, 2, 3]) await (await fetch(`${base}/editor/${id}`)).text();
    await (await fetch(`${base}/home`)).text();
    for (let i = 0; i < 40; i++) await (await fetch(`${base}/probe-${i}-${Math.random().toString(36).slice(2)}`)).text();
    const values = (await client.register.getSingleMetric('prutor_webapp_http_requests_total').get()).values;
    const count = (route, status) => values.filter((v) => v.labels.route === route && v.labels.status === status).reduce((a, v) => a + v.value, 0);
    assert.strictEqual(count('/editor/:id', '200'), 3);
    assert.strictEqual(count('/home', '200'), 1);
    assert.ok(count('(unmatched)', '404') >= 40);
    assert.ok(!values.some((v) => /probe|\/editor\/\d/.test(v.labels.route)), 'no raw URL in a label');
    assert.ok(new Set(values.map((v) => v.labels.route)).size <= 4, 'the series stay few');
    const h = await client.register.getSingleMetricAsString('prutor_webapp_http_request_duration_seconds');
    assert.match(h, /prutor_webapp_http_request_duration_seconds_count\{route="\/editor\/:id"\} 3/);
  } finally {
    server.close();
  }
});

test('the primary serves every worker\'s requests, summed (AggregatorRegistry)', { timeout: 60000 }, async () => {
  // a free port for the workers' shared listener
  const port = await new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); }); });
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'fixtures', 'metrics-cluster.js')], {
    env: { ...process.env, METRICS_TEST_PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const ready = await new Promise((resolve, reject) => {
      let buf = '';
      child.stdout.on('data', (d) => { buf += d; if (buf.includes('\n')) resolve(JSON.parse(buf.split('\n')[0])); });
      child.once('exit', (code) => reject(new Error(`the cluster exited (${code})`)));
    });
    const servedBy = new Set();
    const N = 30;
    for (let i = 0; i < N; i++) servedBy.add(await (await fetch(`http://127.0.0.1:${ready.port}/ping`)).text());
    const res = await fetch(`http://127.0.0.1:${ready.healthPort}/metrics`);
    assert.strictEqual(res.status, 200);
    const samples = parseExposition(await res.text());
    const total = samples.filter((s) => s.name === 'prutor_webapp_http_requests_total' && s.labels.route === '/ping').reduce((a, s) => a + s.value, 0);
    assert.strictEqual(total, N, `all ${N} requests counted, whichever of ${servedBy.size} workers served them`);
    assert.ok(samples.some((s) => s.name === 'prutor_webapp_signin_waiting'), 'the sign-in gauges are there');
  } finally {
    child.kill('SIGTERM');
  }
});

test('the admin page reads the exposition: sums by label, a percentile as its bucket bound', () => {
  const text = `# HELP x y
prutor_engine_slots_busy{lane="slots"} 2
prutor_engine_slots_busy{lane="jobe"} 1
prutor_engine_run_seconds_bucket{language="c",le="0.01"} 5
prutor_engine_run_seconds_bucket{language="c",le="0.1"} 9
prutor_engine_run_seconds_bucket{language="c",le="1"} 10
prutor_engine_run_seconds_bucket{language="c",le="+Inf"} 10
prutor_webapp_http_requests_total{route="/a \\"b\\"",method="GET",status="200"} 7
garbage line
`;
  const s = parseExposition(text);
  assert.strictEqual(s.filter((x) => x.name === 'prutor_engine_slots_busy').length, 2);
  assert.strictEqual(s.find((x) => x.name === 'prutor_webapp_http_requests_total').labels.route, '/a "b"');
  assert.strictEqual(quantileMs(s, 'prutor_engine_run_seconds', 0.5), 10);
  assert.strictEqual(quantileMs(s, 'prutor_engine_run_seconds', 0.95), 1000);
  assert.strictEqual(quantileMs(s, 'prutor_engine_compile_seconds', 0.95), null);
});
