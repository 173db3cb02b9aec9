'use strict';
// The shared page layout: header, navigation, user menu, flash area, footer.
const { html } = require('./html');
const { asset } = require('./assets');
const { navFor } = require('./nav');

const ROLE_LABEL = { admin: 'Admin', instructor: 'Instructor', ta: 'Teaching assistant', student: 'Student' };

// Display preferences remembered by the browser in the cookie prutor.prefs
// ("theme=dark&font=2"), written by client/app.js; read here so that the page is
// drawn in them from the first paint (no script needed before it).
const FONT_STEPS = ['90', '100', '115', '130', '150'];
function prefsOf(req) {
  const m = /(?:^|;\s*)prutor\.prefs=([^;]*)/.exec(req.headers.cookie || '');
  const p = new URLSearchParams(m ? decodeURIComponent(m[1]) : '');
  const font = Number.parseInt(p.get('font') || '1', 10);
  return { theme: p.get('theme') === 'dark' ? 'dark' : 'light', font: FONT_STEPS[font] ? font : 1 };
}

function layout(req, { title, body, active = '', scripts = [], wide = false, bodyClass = '', skipTo = '#main', skipLabel = 'Skip to main content' }) {
  const s = req.session;
  const nav = s ? navFor(s.role) : [];
  const prefs = prefsOf(req);
  return html`<!doctype html>
<html lang="en" data-theme="${prefs.theme}" data-font="${prefs.font}" style="font-size: ${FONT_STEPS[prefs.font]}%">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Prutor</title>
${s ? html`<meta name="csrf-token" content="${s.csrf}">` : ''}
<link rel="stylesheet" href="${asset('app.css')}">
<link rel="icon" href="data:,">
</head>
<body class="${bodyClass}">
<a class="skip-link" href="${skipTo}" id="skip-link">${skipLabel}</a>
<header class="topbar">
  <a class="brand" href="${s ? '/home' : '/accounts/login'}"><span class="brand-mark" aria-hidden="true">P</span>Prutor</a>
  <div class="prefs" role="group" aria-label="Display">
    <button type="button" class="prefbtn" id="theme-toggle" aria-pressed="${prefs.theme === 'dark' ? 'true' : 'false'}" title="Dark mode">Dark</button>
    <button type="button" class="prefbtn" id="font-down" title="Smaller text">A−<span class="sr-only"> smaller text</span></button>
    <button type="button" class="prefbtn" id="font-up" title="Larger text">A+<span class="sr-only"> larger text</span></button>
  </div>
  ${s ? html`<button type="button" class="navtoggle" id="nav-toggle" aria-expanded="false" aria-controls="site-menu">Menu</button>
  <div class="sitemenu" id="site-menu">
  <nav class="mainnav" aria-label="Main">
    ${nav.map((i) => html`<a href="${i.href}"${active === i.href ? html` class="active" aria-current="page"` : ''}>${i.label}</a>`)}
  </nav>
  <div class="usermenu">
    <span class="who"><strong>${s.name}</strong> <span class="muted">${s.username} · ${ROLE_LABEL[s.role] || s.role}</span></span>
    <a href="/accounts/password">Password</a>
    <form method="post" action="/accounts/logout" class="inline">
      <input type="hidden" name="_csrf" value="${s.csrf}">
      <button type="submit" class="linklike" id="logout">Sign out</button>
    </form>
  </div>
  </div>` : ''}
</header>
<main class="${wide ? 'main wide' : 'main'}" id="main" tabindex="-1">
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

module.exports = { layout, errorPage, FONT_STEPS };
