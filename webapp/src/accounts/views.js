'use strict';
const { html } = require('../shared/html');
const { layout } = require('../shared/layout');

function loginPage(req, { error = '', username = '', next = '', notice = '' } = {}) {
  return layout(req, {
    title: 'Sign in',
    bodyClass: 'loginbody',
    body: html`<section class="login">
  <div class="login-intro">
    <h1>Lab exams, in the browser.</h1>
    <p>Write C, compile and run it, test it against the problem's cases and submit before the event closes. Your work is saved as you type.</p>
  </div>
  <form class="card login-card" method="post" action="/accounts/login" novalidate>
    <h2>Sign in</h2>
    ${notice ? html`<p class="flash ok" role="status">${notice}</p>` : ''}
    ${error ? html`<p class="flash error" role="alert" id="login-error">${error}</p>` : ''}
    <label for="username">Username</label>
    <input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${username}" autofocus>
    <label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="current-password" required>
    ${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
    <button class="btn primary block" type="submit">Sign in</button>
    <p class="muted small">Trouble signing in? Ask the invigilator in the lab.</p>
  </form>
</section>`,
  });
}

function passwordPage(req, { error = '', done = false } = {}) {
  return layout(req, {
    title: 'Change password',
    body: html`<section class="card narrow">
  <h1>Change password</h1>
  ${done ? html`<p class="flash ok" role="status">Your password has been changed.</p>` : ''}
  ${error ? html`<p class="flash error" role="alert">${error}</p>` : ''}
  <form method="post" action="/accounts/password" class="stack">
    <input type="hidden" name="_csrf" value="${req.session.csrf}">
    <label for="current">Current password</label>
    <input id="current" name="current" type="password" autocomplete="current-password" required>
    <label for="next">New password <span class="muted small">(at least 8 characters)</span></label>
    <input id="next" name="next" type="password" autocomplete="new-password" minlength="8" required>
    <label for="confirm">New password again</label>
    <input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="8" required>
    <button class="btn primary" type="submit">Change password</button>
  </form>
</section>`,
  });
}

module.exports = { loginPage, passwordPage };
