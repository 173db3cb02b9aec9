'use strict';
// Runs an async refresh at once and then every `ms` on a timer that never keeps the
// process alive; a failed run is logged and the next one tries again. The tools'
// per-worker caches (lock-downs in force, announcements) use it, so no request ever
// waits on a refresh or pays for its query.
function periodic(name, ms, refresh, log = console) {
  let timer = null;
  const tick = () => refresh().catch((err) => log.error(`${name}: refresh failed: ${err.message}`));
  return {
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
