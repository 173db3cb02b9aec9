'use strict';
// "Is this host ready for N students?": the answer of tuning/'s own rule
// (`tuning recommend --json`: the cheapest setting whose measured run at >= N
// users passed), from the sweeps recorded on this host, with the report's plots,
// the recommended profile and the command to run when nothing was measured.
const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');

const TUNING = path.resolve(__dirname, '../../../tuning/tuning');
const PLOTS = ['webapp-error.png', 'webapp-response.png', 'webapp-throughput.png'];

function createReadiness({ varDir, env = process.env, timeoutMs = 20000 }) {
  const plotsDir = path.join(varDir, 'tuning', 'report', 'plots');

  function decision(users) {
    return new Promise((resolve) => {
      if (!fs.existsSync(TUNING)) { resolve({ error: 'tuning/ is not installed beside the webapp (e.g. in its container): run the sweeps on the host.' }); return; }
      execFile(TUNING, ['recommend', '--users', String(users), '--plan', 'webapp', '--json'],
        { timeout: timeoutMs, env: { ...env, PRUTOR_VAR: varDir }, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
          if (err) { resolve({ error: `tuning recommend failed: ${String(stderr || err.message).trim().split('\n').pop()}` }); return; }
          try { resolve(JSON.parse(stdout)); } catch { resolve({ error: 'tuning recommend gave no JSON.' }); }
        });
    });
  }

  function plots() {
    return PLOTS.filter((p) => { try { return fs.statSync(path.join(plotsDir, p)).isFile(); } catch { return false; } });
  }

  function plotFile(name) { return PLOTS.includes(name) ? path.join(plotsDir, name) : null; }

  async function ready(users) {
    const d = await decision(users);
    return { users, ...d, plots: plots() };
  }

  return { ready, plotFile };
}

module.exports = { createReadiness, PLOTS };
