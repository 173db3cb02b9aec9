'use strict';
// The Safe Exam Browser hash rule shared with the engine (engine/tests/unit/SafeExamBrowserTest.php
// reads the same vectors, tests/seb-hash-vectors.json).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { hashOf } = require('../../src/lti/seb');
const v = require(path.join(__dirname, '../../../tests/seb-hash-vectors.json'));

test('the shared vectors: hex SHA-256 of the URL followed by the key', () => {
  assert.ok(v.vectors.length > 0);
  for (const t of v.vectors) {
    assert.equal(hashOf(t.url, t.key), t.hash, t.url);
    assert.notEqual(hashOf(`${t.url}/`, t.key), t.hash);
  }
});
