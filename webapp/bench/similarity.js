#!/usr/bin/env node
'use strict';
// Benchmark (not part of `make test`): the similarity job on N submissions of a
// 60-line C program, through the same runner the webapp uses (a separate process
// at nice 19). Submissions are generated: each student renames the identifiers,
// reorders the helper functions, picks loop and output styles at random and adds
// a few lines of their own (the detector ignores names, so many of them are
// alike, which is the costly case: many shared fingerprints, many pairs). Prints
// wall time, the detector's CPU time and peak memory, and the load of the machine.
//
//   node bench/similarity.js [N=1000]
const os = require('node:os');
const { runDetector } = require('../src/similarity/runner');

const N = Number(process.argv[2] || 1000);

let seed = 42;
function rnd() { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; }
function pick(a) { return a[Math.floor(rnd() * a.length)]; }
function shuffle(a) { const b = a.slice(); for (let i = b.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [b[i], b[j]] = [b[j], b[i]]; } return b; }

const NAMES = ['a', 'b', 'arr', 'vals', 'data', 'marks', 'xs', 'num', 'cnt', 'len', 'size', 'total', 'acc', 'sum', 's', 'lo', 'hi', 'best',
  'worst', 'small', 'big', 'k', 'i', 'j', 'p', 'q', 'tmp', 'cur', 'res', 'out', 'flag', 'ok', 'good', 'limit', 'th', 'room', 'cap'];
function names() {
  const pool = shuffle(NAMES);
  return { arr: pool[0], n: pool[1], i: pool[2], t: pool[3], lo: pool[4], hi: pool[5], th: pool[6], f1: `read_${pick(['all', 'in', 'data'])}`,
    f2: `avg_${pick(['of', 'val', 'x'])}`, f3: `range_${pick(['of', 'get', 'x'])}`, f4: `count_${pick(['ok', 'pass', 'good'])}`, f5: `hist_${pick(['print', 'show'])}` };
}

// One student's program, ~60 lines: five functions in a random order plus main.
function program(v, style) {
  const loop = (body) => (style.loop === 'for'
    ? `    for (int ${v.i} = 0; ${v.i} < ${v.n}; ${v.i}++) {\n${body}\n    }`
    : `    int ${v.i} = 0;\n    while (${v.i} < ${v.n}) {\n${body}\n        ${v.i}++;\n    }`);
  const fns = [
    `static int ${v.f1}(int *${v.arr}, int cap) {\n    int ${v.n} = 0;\n    if (scanf("%d", &${v.n}) != 1) return -1;\n    if (${v.n} > cap) ${v.n} = cap;\n${loop(`        if (scanf("%d", &${v.arr}[${v.i}]) != 1) return -1;`)}\n    return ${v.n};\n}`,
    `static double ${v.f2}(const int *${v.arr}, int ${v.n}) {\n    long ${v.t} = 0;\n${loop(`        ${v.t} += ${v.arr}[${v.i}];`)}\n    return ${v.n} ? (double) ${v.t} / ${v.n} : 0.0;\n}`,
    `static void ${v.f3}(const int *${v.arr}, int ${v.n}, int *${v.lo}, int *${v.hi}) {\n    *${v.lo} = *${v.hi} = ${v.arr}[0];\n${loop(`        if (${v.arr}[${v.i}] < *${v.lo}) *${v.lo} = ${v.arr}[${v.i}];\n        if (${v.arr}[${v.i}] > *${v.hi}) *${v.hi} = ${v.arr}[${v.i}];`)}\n}`,
    `static int ${v.f4}(const int *${v.arr}, int ${v.n}, int ${v.th}) {\n    int c = 0;\n${loop(`        ${style.cond ? `if (${v.arr}[${v.i}] >= ${v.th}) c++;` : `c += ${v.arr}[${v.i}] >= ${v.th};`}`)}\n    return c;\n}`,
    `static void ${v.f5}(const int *${v.arr}, int ${v.n}) {\n    int bins[10] = {0};\n${loop(`        int b = ${v.arr}[${v.i}] / 10;\n        if (b > 9) b = 9;\n        if (b < 0) b = 0;\n        bins[b]++;`)}\n    for (int b = 0; b < 10; b++) printf("%d%c", bins[b], b == 9 ? '\\n' : ' ');\n}`,
  ];
  const own = Array.from({ length: 1 + Math.floor(style.extra * 4) }, (_, k) => `    /* note ${k} */ int pad${k} = ${k} * ${Math.floor(style.extra * 97)};\n    (void) pad${k};`).join('\n');
  return `#include <stdio.h>\n#include <stdlib.h>\n\n${style.order.map((k) => fns[k]).join('\n\n')}\n\nint main(void) {\n    int ${v.arr}[1000];\n    int ${v.n} = ${v.f1}(${v.arr}, 1000);\n    if (${v.n} <= 0) return EXIT_FAILURE;\n${own}\n    int ${v.lo}, ${v.hi};\n    ${v.f3}(${v.arr}, ${v.n}, &${v.lo}, &${v.hi});\n    printf("%d %.2f %d %d %d\\n", ${v.n}, ${v.f2}(${v.arr}, ${v.n}), ${v.lo}, ${v.hi}, ${v.f4}(${v.arr}, ${v.n}, 40));\n    ${v.f5}(${v.arr}, ${v.n});\n    return EXIT_SUCCESS;\n}\n`;
}
function style() { return { loop: pick(['for', 'while']), cond: rnd() < 0.5, extra: rnd(), order: shuffle([0, 1, 2, 3, 4]) }; }

async function main() {
  const files = [];
  for (let id = 1; id <= N; id++) {
    // the independent students share the task's structure; vary it heavily
    const s = style();
    let code = program(names(), s);
    if (rnd() < 0.6) code = code.replace(/static /g, '');
    if (rnd() < 0.5) code = code.replace(/ != 1\) return -1;/g, ' < 1) { return -1; }');
    files.push({ id, code });
  }
  const lines = files.reduce((m, f) => m + f.code.split('\n').length, 0) / files.length;
  const load0 = +os.loadavg()[0].toFixed(2);
  const t0 = process.hrtime.bigint();
  const out = await runDetector({ language: 'c', template: '', max_pairs: 200, files }, { niceness: 19, timeoutS: 3600, heapMb: 4096 });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(JSON.stringify({
    submissions: N, avg_lines: Math.round(lines), wall_s: +(wallMs / 1000).toFixed(1), detector_ms: out.ms, detector_cpu_s: +(out.cpu_ms / 1000).toFixed(1),
    max_rss_mb: out.max_rss_mb, niceness: out.niceness, pairs_kept: out.pairs.length,
    loadavg_1m_before: load0, loadavg_1m_after: +os.loadavg()[0].toFixed(2), cores: os.cpus().length,
  }, null, 1));
}
main().catch((e) => { console.error(e.message); process.exit(1); });
