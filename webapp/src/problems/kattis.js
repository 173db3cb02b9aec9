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
const { zipSync, unzipSync, strToU8, strFromU8 } = require('fflate');
const YAML = require('yaml');
const { conflict, badRequest } = require('../shared/errors');

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

// ---------------------------------------------------------------- import
// A Kattis problem package (legacy or 2023-07-draft) as a problem: its statement
// (Markdown; a LaTeX one is kept as text), sample data as visible cases and secret
// data (every group) as hidden ones, weight 1 each; the default validator's flags as a
// comparison mode, or its output validator as a Kattis-convention checker; the first
// accepted submission in C, C++ or Python as the reference solution. Errors name the
// file (and the line, for YAML); what is kept only in part comes back as warnings.

const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_TOTAL_BYTES = 32 * 1024 * 1024;
const MAX_TEXT = 64 * 1024;
const ENV_OF = { c: 'c', cc: 'cpp', cpp: 'cpp', py: 'python3' };

class PackageError extends Error {
  constructor(file, message, line) {
    super(`${file}${line ? ` line ${line}` : ''}: ${message}`);
    this.file = file;
    this.line = line || null;
  }
}

function unzip(buf) {
  let total = 0;
  let files;
  try {
    files = unzipSync(new Uint8Array(buf), {
      // sizes are checked before anything is inflated: no zip bomb fills memory
      filter: (f) => {
        if (f.originalSize > MAX_FILE_BYTES) throw new PackageError(f.name, `is larger than ${MAX_FILE_BYTES / 1048576} MB`);
        total += f.originalSize;
        if (total > MAX_TOTAL_BYTES) throw new PackageError(f.name, `the package unpacks to more than ${MAX_TOTAL_BYTES / 1048576} MB`);
        return !f.name.endsWith('/');
      },
    });
  } catch (e) {
    if (e instanceof PackageError) throw e;
    throw new PackageError('the upload', 'is not a zip file');
  }
  return files;
}

// The package's files by path from its root (the folder that holds problem.yaml).
function packageTree(buf) {
  const files = unzip(buf);
  const yamls = Object.keys(files).filter((n) => /(^|\/)problem\.yaml$/.test(n)).sort((a, b) => a.length - b.length);
  if (!yamls.length) throw new PackageError('problem.yaml', 'is missing: a Kattis package has problem.yaml at its root');
  const root = yamls[0].slice(0, -'problem.yaml'.length);
  const tree = {};
  for (const [n, data] of Object.entries(files)) if (n.startsWith(root)) tree[n.slice(root.length)] = data;
  return tree;
}

function text(tree, file, { max = MAX_TEXT } = {}) {
  const data = tree[file];
  if (data.length > max) throw new PackageError(file, `is longer than ${max} bytes, the most a test case or program holds here`);
  const s = strFromU8(data);
  if (s.includes('\u0000')) throw new PackageError(file, 'is not text');
  return s;
}

function parseYaml(tree, file) {
  if (!tree[file]) return {};
  try {
    const v = YAML.parse(text(tree, file));
    return v && typeof v === 'object' ? v : {};
  } catch (e) {
    if (e instanceof PackageError) throw e;
    const line = e.linePos && e.linePos[0] ? e.linePos[0].line : null;
    throw new PackageError(file, String(e.message).split('\n')[0].replace(/ at line \d+, column \d+:?$/, ''), line);
  }
}

// The default validator's flags as our comparison, and what is only approximated.
function comparisonOf(flags, warnings) {
  const f = String(flags || '').trim().split(/\s+/).filter(Boolean);
  const val = (k) => { const i = f.indexOf(k); return i >= 0 && i + 1 < f.length ? Number(f[i + 1]) : null; };
  const tol = val('float_tolerance');
  const abs = val('float_absolute_tolerance') ?? tol;
  const rel = val('float_relative_tolerance') ?? tol;
  const caseSensitive = f.includes('case_sensitive');
  if (abs !== null || rel !== null) {
    if (!caseSensitive) warnings.push('Words among the numbers are compared with case here (the package ignores case).');
    return { compare_mode: 'numbers', abs_tolerance: Number.isFinite(abs) ? abs : null, rel_tolerance: Number.isFinite(rel) ? rel : null };
  }
  if (caseSensitive && f.includes('space_change_sensitive')) return { compare_mode: 'exact' };
  if (caseSensitive) return { compare_mode: 'tokens' };
  if (f.includes('space_change_sensitive')) warnings.push('Compared ignoring case and trailing whitespace (the package: ignoring case, spacing exact).');
  else warnings.push('Compared ignoring case and trailing whitespace; the package also ignores other spacing.');
  return { compare_mode: 'case' };
}

// A checker here is one source file: the validator's one C, C++ or Python source, with
// the local headers it includes ("x.h") written in at their #include.
function oneSource(tree, files) {
  const sources = files.filter((n) => ENV_OF[n.split('.').pop()]);
  const headers = files.filter((n) => /\.(h|hpp|hh)$/.test(n));
  const other = files.filter((n) => !sources.includes(n) && !headers.includes(n));
  if (sources.length !== 1) throw new PackageError(sources[1] || files[0], `the output validator must be one C, C++ or Python source (with headers) to be a checker here; it has ${files.join(', ')}`);
  if (other.length) throw new PackageError(other[0], 'is a file of the output validator that is neither its source nor a header: a checker here is one source file');
  const dir = sources[0].slice(0, sources[0].lastIndexOf('/') + 1);
  const inline = (code, depth) => code.replace(/^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[^\n]*$/gm, (line, name) => {
    const h = dir + name;
    if (!headers.includes(h) || depth > 4) return line;
    return `/* ${name}, written in by the import */\n${inline(text(tree, h), depth + 1)}\n/* end of ${name} */`;
  });
  return { checker_env: ENV_OF[sources[0].split('.').pop()], checker_code: inline(text(tree, sources[0]), 0) };
}

function importZip(buf) {
  const tree = packageTree(buf);
  const warnings = [];
  const meta = parseYaml(tree, 'problem.yaml');
  const v2023 = String(meta.problem_format_version || 'legacy') !== 'legacy';
  const type = [].concat(meta.type || []).map(String).join(' ') + (String(meta.validation || '').includes('interactive') ? ' interactive' : '');
  if (/interactive|multi-pass|submit-answer/.test(type)) {
    throw new PackageError('problem.yaml', `is of type ${type.trim()}: here a program reads its input and is judged on its output`);
  }
  if (/scoring/.test(type)) warnings.push('A scoring problem: its groups\' scores are not kept; every case is weighted 1 (partial marks follow the cases passed).');
  const p = { category: 'kattis', template_code: '', is_practice: 0, checker_env: null, checker_interface: 'kattis', checker_code: null, abs_tolerance: null, rel_tolerance: null };

  // statement and title
  const stDir = v2023 ? 'statement/' : 'problem_statement/';
  const statements = Object.keys(tree).filter((n) => n.startsWith(stDir) && /^problem(\.[a-z]{2,3})?\.(md|tex)$/.test(n.slice(stDir.length)));
  const pick = statements.find((n) => /problem\.en\.md$/.test(n)) || statements.find((n) => /problem(\.en)?\.tex$/.test(n))
    || statements.find((n) => /\.md$/.test(n)) || statements[0];
  if (!pick) throw new PackageError(`${stDir}problem.en.md`, 'is missing: the package has no statement');
  let statement = text(tree, pick, { max: 100000 });
  const nameYaml = typeof meta.name === 'string' ? meta.name : (meta.name && (meta.name.en || Object.values(meta.name)[0]));
  const texName = /\\problemname\{([^}]*)\}/.exec(statement);
  p.title = String(nameYaml || (texName && texName[1]) || '').trim().slice(0, 200);
  if (!p.title) throw new PackageError('problem.yaml', 'has no name, and the statement no \\problemname');
  if (pick.endsWith('.tex')) {
    warnings.push(`${pick} is LaTeX: kept as text in the statement; edit it into Markdown.`);
    statement = statement.replace(/\\problemname\{[^}]*\}\s*/, '');
  }
  p.statement_md = statement;

  // limits
  const limits = meta.limits && typeof meta.limits === 'object' ? meta.limits : {};
  const tl = Number(limits.time_limit);
  if (Number.isFinite(tl) && tl > 0) p.time_limit_ms = Math.min(60000, Math.max(100, Math.round(tl * 1000)));
  else { p.time_limit_ms = 2000; warnings.push('The package sets no time limit (Kattis derives it from its solutions): 2000 ms here.'); }
  const mem = Number(limits.memory);
  p.memory_limit_kb = (Number.isFinite(mem) && mem >= 8 ? Math.min(4096, Math.round(mem)) : 256) * 1024;

  // test data: sample visible, every secret group hidden, in name order
  const tests = [];
  for (const [dir, visibility] of [['data/sample/', 'visible'], ['data/secret/', 'hidden']]) {
    const ins = Object.keys(tree).filter((n) => n.startsWith(dir) && n.endsWith('.in')).sort();
    for (const n of ins) {
      const ans = `${n.slice(0, -3)}.ans`;
      if (!tree[ans]) throw new PackageError(n, `has no answer file ${ans}`);
      tests.push({ input: text(tree, n), expected_output: text(tree, ans), visibility, weight: 1 });
    }
  }
  if (!tests.some((t) => t.visibility === 'hidden') && !tests.length) throw new PackageError('data/secret', 'holds no test case (NAME.in with NAME.ans)');
  if (Object.keys(tree).some((n) => /^data\/.*testdata\.yaml$/.test(n) && n !== 'data/testdata.yaml')) {
    warnings.push('Test groups\' own testdata.yaml files are not kept: every case is weighted 1.');
  }

  // comparison: an output validator, else the default validator's flags
  const valDir = v2023 ? 'output_validator/' : 'output_validators/';
  const valFiles = Object.keys(tree).filter((n) => n.startsWith(valDir));
  const custom = v2023 ? valFiles.length > 0 : String(meta.validation || 'default').startsWith('custom');
  if (custom) {
    if (!valFiles.length) throw new PackageError('problem.yaml', 'asks for a custom output validator, and output_validators/ is empty');
    Object.assign(p, { compare_mode: 'checker', checker_interface: 'kattis', ...oneSource(tree, valFiles) });
    if (meta.validator_flags) warnings.push('The output validator\'s flags (validator_flags) are not passed to the checker here.');
  } else {
    const td = parseYaml(tree, 'data/testdata.yaml');
    Object.assign(p, comparisonOf(v2023 ? td.output_validator_flags : (meta.validator_flags ?? td.output_validator_flags), warnings));
  }

  // the reference solution
  const accepted = Object.keys(tree).filter((n) => n.startsWith('submissions/accepted/')).sort();
  const sol = accepted.find((n) => ENV_OF[n.split('.').pop()]);
  if (!sol) throw new PackageError('submissions/accepted', 'holds no solution in C, C++ or Python: one is the reference solution here');
  p.env = ENV_OF[sol.split('.').pop()];
  p.solution_code = text(tree, sol);
  return { problem: p, tests, warnings };
}

function importError(e) {
  if (e instanceof PackageError) return badRequest(`The package cannot be imported: ${e.message}`, { file: e.file, line: e.line });
  return e;
}

module.exports = { exportZip, packageFiles, validatorFlags, importZip, importError, PackageError };
