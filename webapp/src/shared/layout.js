'use strict';
// The shared page layout: header, navigation, user menu, flash area, footer.
const { html } = require('./html');
const { asset } = require('./assets');
const { navFor } = require('./nav');

const ROLE_LABEL = { admin: 'Admin', instructor: 'Instructor', ta: 'Teaching assistant', student: 'Student' };

function layout(req, { title, body, active = '', scripts = [], wide = false, bodyClass = '' }) {
  const s = req.session;
  const nav = s ? navFor(s.role) : [];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Prutor</title>
${s ? html`<meta name="csrf-token" content="${s.csrf}">` : ''}
<link rel="stylesheet" href="${asset('app.css')}">
<link rel="icon" href="data:,">
</head>
<body class="${bodyClass}">
<header class="topbar">
  <a class="brand" href="${s ? '/home' : '/accounts/login'}"><span class="brand-mark">P</span>Prutor</a>
  ${s ? html`<nav class="mainnav" aria-label="Main">
    ${nav.map((i) => html`<a href="${i.href}"${active === i.href ? html` class="active" aria-current="page"` : ''}>${i.label}</a>`)}
  </nav>
  <div class="usermenu">
    <span class="who"><strong>${s.name}</strong> <span class="muted">${s.username} · ${ROLE_LABEL[s.role] || s.role}</span></span>
    <a href="/accounts/password">Password</a>
    <form method="post" action="/accounts/logout" class="inline">
      <input type="hidden" name="_csrf" value="${s.csrf}">
      <button type="submit" class="linklike" id="logout">Sign out</button>
    </form>
  </div>` : ''}
</header>
<main class="${wide ? 'main wide' : 'main'}">
${body}
</main>
${scripts.map((src) => html`<script src="${src}" defer></script>`)}
<script src="${asset('app.js')}" defer></script>
</body>
</html>`;
}

function errorPage(req, status, title, message) {
  return layout(req, {
    title,
    body: html`<section class="card narrow errorcard">
      <p class="status">${status}</p>
      <h1>${title}</h1>
      <p>${message}</p>
      <p><a class="btn" href="${req.session ? '/home' : '/accounts/login'}">${req.session ? 'Back to home' : 'Sign in'}</a></p>
    </section>`,
  });
}

module.exports = { layout, errorPage };
