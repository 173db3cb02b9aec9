'use strict';
// Runs the detector (webapp/similarity/detect.mjs, Dolos) as its own process at the
// lowest CPU priority, with a heap cap and a wall-clock limit, so a similarity job
// never competes with a running exam's requests for the event loop or, beyond the
// scheduler's leftovers, for a core. The lowest priority is Linux's SCHED_IDLE
// (`chrt --idle 0`: it runs only on a core nothing else wants, and any request's
// process preempts it at once) where the host allows it, else `nice -n 19`, which
// still gets a small share of a busy core and a full time slice before it yields.
// Input on stdin, JSON on stdout.
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');

let idlePolicy = null; // whether `chrt --idle` works here, asked once
function idlePrefix() {
  if (idlePolicy === null) {
    const probe = spawnSync('chrt', ['--idle', '0', 'true'], { stdio: 'ignore', timeout: 5000 });
    idlePolicy = probe.status === 0;
  }
  return idlePolicy ? ['chrt', '--idle', '0'] : [];
}

const DETECTOR = path.join(__dirname, '..', '..', 'similarity', 'detect.mjs');

function runDetector(input, { niceness = 19, timeoutS = 1800, heapMb = 2048 } = {}) {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = [...idlePrefix(), 'nice', '-n', String(niceness), process.execPath, `--max-old-space-size=${heapMb}`, DETECTOR];
    const child = spawn(cmd, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out = [];
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutS * 1000);
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => { if (err.length < 2000) err += c; });
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        const why = timedOut ? `stopped after ${timeoutS} s` : signal ? `killed by ${signal}` : (err.trim().split('\n').pop() || `exit ${code}`);
        return reject(new Error(`the detector failed: ${why}`));
      }
      try { resolve(JSON.parse(Buffer.concat(out).toString('utf8'))); } catch { reject(new Error('the detector answered something that is not JSON')); }
    });
    child.stdin.on('error', () => { /* the close handler reports the failure */ });
    child.stdin.end(JSON.stringify(input));
  });
}

module.exports = { runDetector, DETECTOR };
