// Ranks pairs of submissions by similarity with Dolos (tree-sitter tokens, winnowed
// k-gram fingerprints; https://dolos.ugent.be). Run by the webapp as its own
// low-priority process (src/similarity/runner.js), so a large job never shares an
// event loop, a heap or a core's priority with the exam's requests.
//
//   stdin : {"language": "c", "template": "<code or empty>", "max_pairs": 200,
//            "files": [{"id": 12, "code": "..."}, ...]}
//   stdout: {"files": N, "pairs": [{"left": 12, "right": 40, "similarity": 0.93,
//            "longest": 57, "overlap": 120, "fragments": [{"left": [r0, c0, r1, c1],
//            "right": [r0, c0, r1, c1]}]}], "ms": 812, "max_rss_mb": 143, "niceness": 19,
//            "sched_idle": true}
// Rows and columns are 0-based (Dolos' regions). The template's fingerprints are
// ignored (Dolos' "ignore" file): code every student was given never counts.
// Errors: one line on stderr, exit 1.
import fs from 'node:fs';
import os from 'node:os';
import { Dolos, File } from '@dodona/dolos-lib';

// Whether this process runs under SCHED_IDLE (policy 5, field 41 of /proc/self/stat).
function schedIdle() {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]) === 5;
  } catch {
    return false;
  }
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function region(r) { return [r.startRow, r.startCol, r.endRow, r.endCol]; }

async function main() {
  const t0 = Date.now();
  const job = await readStdin();
  const files = (job.files || []).map((f) => new File(`${f.id}.c`, String(f.code)));
  const maxPairs = Math.max(1, Math.min(Number(job.max_pairs) || 200, 5000));
  if (files.length < 2) {
    process.stdout.write(JSON.stringify({ files: files.length, pairs: [], ms: Date.now() - t0, max_rss_mb: 0, niceness: os.getPriority(), sched_idle: schedIdle() }));
    return;
  }
  const dolos = new Dolos({ language: job.language || 'c' });
  const ignored = job.template && String(job.template).trim() ? new File('template.c', String(job.template)) : undefined;
  const report = await dolos.analyze(files, 'prutor', ignored);
  const ranked = report.allPairs()
    .filter((p) => p.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || b.longest - a.longest)
    .slice(0, maxPairs);
  const idOf = (file) => Number(file.path.slice(0, -2));
  const pairs = ranked.map((p) => ({
    left: idOf(p.leftFile),
    right: idOf(p.rightFile),
    similarity: Math.round(p.similarity * 10000) / 10000,
    longest: p.longest,
    overlap: p.overlap,
    fragments: p.buildFragments().map((f) => ({ left: region(f.leftSelection), right: region(f.rightSelection) })),
  }));
  const maxRss = Math.round(process.resourceUsage().maxRSS / 1024);
  process.stdout.write(JSON.stringify({ files: files.length, pairs, ms: Date.now() - t0, max_rss_mb: maxRss, cpu_ms: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000), niceness: os.getPriority(), sched_idle: schedIdle() }));
}

main().catch((err) => {
  process.stderr.write(`similarity: ${err && err.message ? err.message : err}\n`);
  process.exit(1);
});
