'use strict';
// Steps in the exam editor that several browser tests take.
const assert = require('node:assert/strict');

// Replaces the whole text of the CodeMirror editor.
async function replaceCode(page, text) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

// Runs the code with the given stdin and returns what it printed.
async function runWithInput(page, stdin) {
  await page.click('#tab-run');
  await page.fill('#stdin', stdin);
  await page.click('#btn-run');
  await page.locator('#run-verdict').waitFor({ timeout: 60000 });
  return (await page.locator('#run-stdout').innerText()).trim();
}

// Submits and waits for this submit's own answer (the page may already say "Submitted").
async function submit(page) {
  await page.click('#btn-submit');
  const answered = page.waitForResponse((r) => r.url().endsWith('/editor/save')
    && /"trigger":"submit"|trigger=submit/.test(r.request().postData() || ''));
  await page.click('#submit-confirm');
  assert.equal((await answered).status(), 200);
  await page.locator('#save-state', { hasText: /^Saved/ }).waitFor({ timeout: 15000 });
}

module.exports = { replaceCode, runWithInput, submit };
