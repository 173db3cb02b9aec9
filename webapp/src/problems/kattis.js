'use strict';
// Export of a problem as a Kattis problem package (format 2023-07-draft, which carries
// a Markdown statement and a time limit), zipped:
//   problem.yaml                     name, uuid, source, limits (time, memory)
//   statement/problem.en.md          the statement as written
//   data/sample/NN.in|.ans           the visible test cases
//   data/secret/NN.in|.ans           the hidden ones
//   data/testdata.yaml               the default validator's flags for the comparison
//   output_validator/validator.EXT   the checker (Kattis convention only)
//   input_validators/text/validate.c every input is text: no NUL or CR, lines end in "\n"
//   submissions/accepted/main.EXT    the reference solution
// What the format cannot say is refused with a sentence rather than lost: a testlib
// checker, a case with a comparison of its own, a language Kattis does not know here.
// Test weights are not exported (a pass-fail package has none); README "Grading" says so.
const crypto = require('node:crypto');
const { zipSync, strToU8 } = require('fflate');
const { conflict } = require('../shared/errors');

const EXT = { c: 'c', cpp: 'cpp', python3: 'py' };

// Our comparison as flags of Kattis' default output validator (its default is
// case-insensitive tokens): the nearest that accepts every output we accept.
function validatorFlags(p) {
  switch (p.compare_mode) {
    case 'exact': return 'case_sensitive space_change_sensitive';
    case 'case': return '';
    case 'numbers': {
      const f = ['case_sensitive', `float_absolute_tolerance ${p.abs_tolerance ?? 0}`];
      if (p.rel_tolerance !== null && p.rel_tolerance !== undefined) f.push(`float_relative_tolerance ${p.rel_tolerance}`);
      return f.join(' ');
    }
    default: return 'case_sensitive'; // trim, whitespace, tokens
  }
}

// A stable UUID per problem (Kattis identifies a problem by it across versions).
function uuidOf(p) {
  const h = crypto.createHash('sha256').update(`prutor-problem:${p.id}:${p.created_by ?? ''}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const yamlString = (s) => JSON.stringify(String(s)); // a JSON string is a YAML double-quoted scalar
const withNewline = (s) => (s === '' || s.endsWith('\n') ? s : `${s}\n`);

const INPUT_VALIDATOR = `/* Prutor's problems have no input grammar: every input is text (no NUL, no CR),
   each line ending in a newline, as Kattis' format asks. Exit 42 accepts, 43 rejects. */
#include <stdio.h>
int main(void)
{
    int c, last = '\\n';
    while ((c = getchar()) != EOF) {
        if (c == 0 || c == '\\r') return 43;
        last = c;
    }
    return last == '\\n' ? 42 : 43;
}
`;

// The files of the package, by path; throws a 409 with a sentence for what cannot be exported.
function packageFiles(p, tests) {
  if (!EXT[p.env]) throw conflict(`A Kattis package cannot hold a ${p.env} reference solution here (C, C++ and Python 3 only).`);
  const own = tests.filter((t) => t.compare_mode || t.abs_tolerance !== null || t.rel_tolerance !== null || t.checker_code);
  if (own.length) throw conflict(`A Kattis package compares every case the same way: test case ${own[0].position} has a comparison of its own. Move it to the problem's setting to export.`);
  const files = {};
  files['problem.yaml'] = [
    'problem_format_version: 2023-07-draft',
    'name:',
    `  en: ${yamlString(p.title)}`,
    `uuid: ${uuidOf(p)}`,
    'source: Prutor',
    'license: unknown',
    'limits:',
    `  time_limit: ${Number(p.time_limit_ms) / 1000}`,
    `  memory: ${Math.max(1, Math.round(Number(p.memory_limit_kb) / 1024))}`,
    '',
  ].join('\n');
  files['statement/problem.en.md'] = withNewline(p.statement_md);
  let sample = 0;
  let secret = 0;
  for (const t of tests) {
    const dir = t.visibility === 'visible' ? 'sample' : 'secret';
    const n = String(dir === 'sample' ? ++sample : ++secret).padStart(2, '0');
    files[`data/${dir}/${n}.in`] = withNewline(t.input);
    files[`data/${dir}/${n}.ans`] = withNewline(t.expected_output);
  }
  if (p.compare_mode === 'checker') {
    if (p.checker_interface !== 'kattis') throw conflict('Only a checker of the Kattis convention can travel in a Kattis package; this one follows testlib\'s.');
    const ext = EXT[p.checker_env || 'c'];
    if (!ext) throw conflict(`A Kattis package cannot hold a ${p.checker_env} checker here (C, C++ and Python 3 only).`);
    files[`output_validator/validator.${ext}`] = withNewline(p.checker_code || '');
  } else {
    files['data/testdata.yaml'] = `output_validator_flags: ${yamlString(validatorFlags(p))}\n`;
  }
  files['input_validators/text/validate.c'] = INPUT_VALIDATOR;
  files[`submissions/accepted/main.${EXT[p.env]}`] = withNewline(p.solution_code);
  return files;
}

function exportZip(p, tests) {
  const files = packageFiles(p, tests);
  const name = String(p.title).toLowerCase().replace(/[^a-z0-9]+/g, '') || `problem${p.id}`;
  const tree = {};
  for (const [path, text] of Object.entries(files)) tree[`${name}/${path}`] = strToU8(text);
  return { name, zip: Buffer.from(zipSync(tree, { level: 6, mtime: new Date('2026-01-01T00:00:00Z') })) };
}

module.exports = { exportZip, packageFiles, validatorFlags };
