'use strict';
// bcrypt compares in a child process of lower CPU priority (issue 17). A sign-in's
// compare costs ~53 ms of a core, a page load or a save about a millisecond; at an
// exam's start (the thesis: 21 sign-ins/s) the compares alone want more than half of
// two cores. Run at the workers' priority they slow every page by as much; run at
// SIGNIN_HASH_NICE, the kernel gives the CPU to page loads and saves first and the
// compares take what is left, so pages stay fast and sign-ins wait (in the
// admission queue of signin.js, which measures the slower compares and refuses at
// the door what would wait too long). On a host with CPU to spare the niceness
// costs nothing.
//
// createHasher() in a worker -> { compare(password, hash) -> Promise<boolean>, close() }:
// forks this file at most once (again after a crash), one message per compare.
const { fork } = require('node:child_process');
const os = require('node:os');
const { unavailable } = require('../shared/errors');

const COMPARE_TIMEOUT_MS = 120000; // a starved compare is slow, a lost one must not hang a sign-in
const RETRY_AFTER_S = 2;

// A compare that failed here (the hasher died, did not answer, could not be reached) is
// the server's fault, never the password's: the student gets 503 + Retry-After, which
// the login page waits out and sends again.
const lost = (why) => unavailable(`Signing in failed on our side (${why}). Trying again in ${RETRY_AFTER_S} seconds.`,
  { code: 'busy', retryAfter: RETRY_AFTER_S });

function createHasher({ nice = 10, log = console } = {}) {
  let child = null;
  let nextId = 1;
  const pending = new Map(); // id -> { resolve, reject, timer }

  function failAll(err) {
    for (const [id, p] of pending) { clearTimeout(p.timer); pending.delete(id); p.reject(err); }
  }

  function start() {
    child = fork(__filename, ['--hasher'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
    try { os.setPriority(child.pid, nice); } catch (err) { log.error(`[webapp] hasher: cannot lower its priority: ${err.message}`); }
    child.on('message', (m) => {
      const p = m && pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      clearTimeout(p.timer);
      holdOpen();
      if (m.error) p.reject(lost(m.error)); else p.resolve(m.ok === true);
    });
    // the channel closes when the child dies (also when this process is about to go
    // idle and would not wait for the exit event)
    const self = child;
    const gone = (why) => {
      if (child === self) child = null;
      failAll(lost(why));
    };
    child.on('disconnect', () => gone('the password checker stopped'));
    child.on('exit', (code, signal) => gone(`the password checker stopped: ${signal || code}`));
    child.unref();
    holdOpen();
  }

  // The channel keeps this process alive only while a compare is awaited: a draining
  // worker is not held open by an idle hasher.
  function holdOpen() {
    if (!child || !child.channel) return;
    if (pending.size) child.channel.ref(); else child.channel.unref();
  }

  function compare(password, hash) {
    if (!child) start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => { pending.delete(id); holdOpen(); reject(lost('the password checker did not answer')); }, COMPARE_TIMEOUT_MS);
      timer.unref();
      pending.set(id, { resolve, reject, timer });
      holdOpen();
      child.send({ id, password: String(password), hash: String(hash) }, (err) => {
        if (!err || !pending.has(id)) return;
        pending.delete(id);
        clearTimeout(timer);
        holdOpen();
        reject(lost(err.message));
      });
    });
  }

  function close() {
    if (child) child.kill();
    child = null;
  }

  return { compare, close, pid: () => (child ? child.pid : null) };
}

// The child: compares until its parent goes away.
if (require.main === module && process.argv[2] === '--hasher') {
  const bcrypt = require('bcrypt');
  process.on('message', async (m) => {
    let reply;
    try {
      reply = { id: m.id, ok: await bcrypt.compare(m.password, m.hash) };
    } catch (err) {
      reply = { id: m.id, error: err.message };
    }
    if (process.connected) process.send(reply);
  });
  process.on('disconnect', () => process.exit(0));
}

module.exports = { createHasher };
