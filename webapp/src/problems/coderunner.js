'use strict';
// Import of Moodle CodeRunner questions from Moodle's question XML (as CodeRunner's own
// export writes it): per question of type coderunner, its name as the title, its text
// (HTML) as the statement, the answer as the reference solution, the answer preload as
// the template, the CPU and memory limits, and each test case's stdin, expected output,
// visibility (display SHOW: visible; HIDE, HIDE_IF_FAIL, HIDE_IF_SUCCEED: hidden) and
// mark (as its weight). What cannot be graded here as it is in Moodle skips the question,
// with the reason, and the rest are imported:
//   a question type other than c_program, cpp_program, python3 (a program reading stdin);
//   a customised template or a combinator template; a RegexGrader or TemplateGrader;
//   a python3 question whose tests run test code after the answer.
// c_program and cpp_program ignore a test's test code in CodeRunner too (a label there).
const { XMLParser, XMLValidator } = require('fast-xml-parser');
const { badRequest } = require('../shared/errors');

const ENV_OF = { c_program: 'c', cpp_program: 'cpp', python3: 'python3', python3_w_input: 'python3' };
const GRADER_MODE = { '': 'trim', EqualityGrader: 'trim', NearEqualityGrader: 'whitespace' };
const MAX_XML_BYTES = 16 * 1024 * 1024;

const parser = new XMLParser({
  ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, trimValues: false,
  isArray: (name) => name === 'question' || name === 'testcase',
});

// <x><text>…</text></x>, <x>…</x> or nothing, as a string
function textOf(node) {
  if (node === undefined || node === null) return '';
  if (typeof node === 'string') return node;
  if (typeof node === 'object' && 'text' in node) return textOf(node.text);
  if (typeof node === 'object' && '#text' in node) return String(node['#text']);
  return '';
}

// The question's HTML as the Markdown-ish text our statements are: paragraphs, line
// breaks, preformatted blocks as code blocks, the rest of the markup dropped.
function htmlToText(h) {
  const decode = (s) => s.replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n))).replace(/&amp;/g, '&');
  let s = String(h).replace(/\r\n?/g, '\n');
  s = s.replace(/<pre[^>]*>([\s\S]*?)<\/pre>/gi, (_, body) => `\n\n\`\`\`\n${decode(body.replace(/<br\s*\/?>/gi, '\n').replace(/<[^>]+>/g, ''))}\n\`\`\`\n\n`);
  s = s.replace(/<h[1-6][^>]*>([\s\S]*?)<\/h[1-6]>/gi, (_, t) => `\n\n### ${t.replace(/<[^>]+>/g, '').trim()}\n\n`);
  s = s.replace(/<(strong|b)>([\s\S]*?)<\/\1>/gi, '**$2**').replace(/<(em|i)>([\s\S]*?)<\/\1>/gi, '*$2*').replace(/<code>([\s\S]*?)<\/code>/gi, '`$1`');
  s = s.replace(/<br\s*\/?>/gi, '  \n').replace(/<\/p>|<p[^>]*>/gi, '\n\n').replace(/<li[^>]*>/gi, '\n- ');
  s = s.split(/(```[\s\S]*?```)/).map((part, i) => (i % 2 ? part : decode(part.replace(/<[^>]+>/g, '')))).join('');
  return s.replace(/\n{3,}/g, '\n\n').trim();
}

// Returns { problems: [{ problem, tests, warnings }], skipped: [{ name, reason }] }.
function parseQuestions(xml) {
  if (xml.length > MAX_XML_BYTES) throw badRequest(`The question file is larger than ${MAX_XML_BYTES / 1048576} MB.`);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw badRequest(`The question file is not valid XML: line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`, { line: valid.err.line });
  const doc = parser.parse(xml);
  const questions = doc && doc.quiz && Array.isArray(doc.quiz.question) ? doc.quiz.question : null;
  if (!questions) throw badRequest('The question file has no <quiz> of <question> elements: export the questions from Moodle in "Moodle XML format".');
  const problems = [];
  const skipped = [];
  for (const q of questions) {
    if (q['@_type'] === 'category') continue;
    const name = textOf(q.name).trim() || '(unnamed question)';
    const skip = (reason) => skipped.push({ name, reason });
    if (q['@_type'] !== 'coderunner') { skip(`a ${q['@_type'] || 'untyped'} question, not a CodeRunner one`); continue; }
    const type = textOf(q.coderunnertype).trim();
    if (!ENV_OF[type]) { skip(`its question type ${type || '(none)'} is not a program reading stdin in C, C++ or Python 3 (c_program, cpp_program, python3)`); continue; }
    if (textOf(q.template).trim()) { skip('it has a customised template, which cannot be mapped to a program and its test cases here'); continue; }
    if (textOf(q.iscombinatortemplate).trim() === '1') { skip('it uses a combinator template'); continue; }
    const grader = textOf(q.grader).trim();
    if (!(grader in GRADER_MODE)) { skip(`its ${grader} cannot be mapped: the comparisons here are exact, whitespace, case, tokens, numbers or a checker program`); continue; }
    const cases = q.testcases && Array.isArray(q.testcases.testcase) ? q.testcases.testcase : [];
    if (!cases.length) { skip('it has no test cases'); continue; }
    if (ENV_OF[type] === 'python3' && cases.some((t) => textOf(t.testcode).trim())) {
      skip('its tests run test code after the answer (python3 questions), which a program reading stdin cannot hold');
      continue;
    }
    const warnings = [];
    const marks = cases.map((t) => Number(t['@_mark'] ?? 1));
    const scale = marks.every((m) => Number.isInteger(m)) ? 1 : 100;
    const tests = cases.map((t, i) => {
      const display = textOf(t.display).trim().toUpperCase() || 'SHOW';
      if (display === 'HIDE_IF_FAIL' || display === 'HIDE_IF_SUCCEED') warnings.push(`Test ${i + 1} (${display}) is hidden here: students see hidden tests as passed or not.`);
      return {
        input: textOf(t.stdin), expected_output: textOf(t.expected), visibility: display === 'SHOW' ? 'visible' : 'hidden',
        weight: Math.max(0, Math.min(1000, Math.round((Number.isFinite(marks[i]) ? marks[i] : 1) * scale))),
      };
    });
    if (grader === 'NearEqualityGrader') warnings.push('CodeRunner\'s near-equality also ignores case: compared here ignoring whitespace differences, with case.');
    if (textOf(q.allornothing).trim() !== '0') warnings.push('All-or-nothing marking is not kept: each test case earns its own weight here.');
    const cpu = Number(textOf(q.cputimelimitsecs));
    const mem = Number(textOf(q.memlimitmb));
    const answer = textOf(q.answer);
    if (!answer.trim()) { skip('it has no answer, which is the reference solution here'); continue; }
    problems.push({
      problem: {
        title: name.slice(0, 200), category: 'coderunner', statement_md: htmlToText(textOf(q.questiontext)) || name, env: ENV_OF[type],
        template_code: textOf(q.answerpreload), solution_code: answer,
        time_limit_ms: cpu > 0 ? Math.min(60000, Math.max(100, Math.round(cpu * 1000))) : 2000,
        memory_limit_kb: (mem >= 8 ? Math.min(4096, Math.round(mem)) : 256) * 1024,
        compare_mode: GRADER_MODE[grader],
      },
      tests,
      warnings,
    });
  }
  return { problems, skipped };
}

module.exports = { parseQuestions, htmlToText };
