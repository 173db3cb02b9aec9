'use strict';
// Runs an async refresh at once and then every `ms` on a timer that never keeps the
// process alive; a failed run is logged and the next one tries again. The tools'
// per-worker caches (lock-downs in force, announcements) use it, so no request ever
// waits on a timed refresh or pays for its query.
//
// The `refresh` it returns is the one to call after a change: runs never overlap, and
// a call made while one runs gets a fresh run after it. Two overlapping runs could
// finish out of order, and a timed run that read the rows before a save would then
// put the old state back over the new one until the next tick.
function periodic(name, ms, load, log = console) {
  let timer = null;
  let running = null;
  let queued = null;
  function refresh() {
    if (!running) {
      running = Promise.resolve().then(load).finally(() => { running = null; });
      return running;
    }
    if (!queued) {
      queued = running.catch(() => {}).then(() => { queued = null; return refresh(); });
    }
    return queued;
  }
  const tick = () => refresh().catch((err) => log.error(`${name}: refresh failed: ${err.message}`));
  return {
    refresh,
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, ms);
      timer.unref();
    },
    stop() { if (timer) clearInterval(timer); timer = null; },
  };
}

module.exports = { periodic };
