'use strict';
// A small LTI 1.3 platform for the tests: its own RSA key, its JWKS, an OAuth2 token
// endpoint that checks our client assertion against our published JWKS, and an AGS
// line item that records scores (and can refuse the next N). Signs id_tokens as an
// LMS does. The test drives the browser side with the cookie-keeping Client.
const http = require('node:http');
const crypto = require('node:crypto');
const jose = require('jose');
const env = require('./env');

const C = 'https://purl.imsglobal.org/spec/lti/claim/';
const ROLE = {
  learner: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner',
  instructor: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor',
  ta: 'http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant',
};

async function startLms({ tag, name = 'A', issuerIsBase = false }) {
  const { publicKey, privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const kid = `${name}-${tag}`;
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const lms = {
    issuer: `https://lms-${name.toLowerCase()}-${tag}.example.edu`,
    clientId: `client-${name}-${tag}`,
    deploymentId: `dep-${name}-${tag}`,
    kid, publicKey, privateKey, jwk,
    scores: [], tokens: [], members: {}, browserUser: null, registrations: [], rosterFails: false, refuseNext: 0, refusal: { status: 400, body: 'The score was refused: the line item is closed.' },
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', async () => {
      try {
        const url = new URL(req.url, 'http://lms');
        // The LMS's pages, for a browser: the course page's activity link starts the
        // login initiation; /auth is its OIDC authorization endpoint, which answers with
        // the self-submitting form_post of the id_token (as Moodle and Canvas do).
        if (url.pathname === '/course') {
          const q = new URLSearchParams({ iss: lms.issuer, login_hint: lms.browserUser.sub, target_link_uri: lms.browserUser.target, client_id: lms.clientId, lti_message_hint: 'course-page' });
          return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Course</title><h1>CS101</h1><a id="activity" href="${env.BASE}/lti/login?${q.toString().replace(/&/g, '&amp;')}">Lab exam</a>`);
        }
        if (url.pathname === '/gradebook') {
          const esc = (v) => String(v).replace(/&/g, '&amp;').replace(/</g, '&lt;');
          return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Gradebook</title><h1>Gradebook</h1><table id="gradebook">${lms.scores.map((x) => `<tr><td>${esc(x.userId)}</td><td class="score">${esc(x.scoreGiven)} / ${esc(x.scoreMaximum)}</td></tr>`).join('')}</table>`);
        }
        if (url.pathname === '/auth') {
          const p = url.searchParams;
          if (p.get('redirect_uri') !== `${env.BASE}/lti/launch` || p.get('client_id') !== lms.clientId || p.get('response_mode') !== 'form_post') return res.writeHead(400).end('bad authorization request');
          const token = await lms.sign(lms.claims({ ...lms.browserUser, nonce: p.get('nonce') }));
          const esc = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
          return res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Launching</title><body onload="document.forms[0].submit()">
<form method="post" action="${esc(p.get('redirect_uri'))}"><input type="hidden" name="id_token" value="${esc(token)}"><input type="hidden" name="state" value="${esc(p.get('state'))}"></form></body>`);
        }
        // LTI Dynamic Registration: its OpenID configuration and registration endpoint
        if (url.pathname === '/.well-known/openid-configuration' || url.pathname === '/bad-configuration') {
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
            issuer: url.pathname === '/bad-configuration' ? 'https://elsewhere.example.org' : lms.issuer,
            authorization_endpoint: lms.authUrl, token_endpoint: lms.tokenUrl, jwks_uri: lms.jwksUrl, registration_endpoint: `${base}/register`,
            'https://purl.imsglobal.org/spec/lti-platform-configuration': { product_family_code: 'testlms', version: '1.0' },
          }));
        }
        if (url.pathname === '/register' && req.method === 'POST') {
          lms.registrations.push({ authorization: req.headers.authorization, body: JSON.parse(body) });
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
            client_id: lms.clientId, 'https://purl.imsglobal.org/spec/lti-tool-configuration': { deployment_id: lms.deploymentId },
          }));
        }
        if (req.url === '/jwks') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
        if (req.url === '/token' && req.method === 'POST') {
          const f = new URLSearchParams(body);
          const ours = jose.createRemoteJWKSet(new URL(`${env.BASE}/lti/jwks`));
          try {
            await jose.jwtVerify(f.get('client_assertion'), ours, { issuer: lms.clientId, subject: lms.clientId, audience: lms.tokenUrl, algorithms: ['RS256'] });
          } catch (err) {
            return res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_client', error_description: err.code }));
          }
          if (f.get('grant_type') !== 'client_credentials') return res.writeHead(400).end('{"error":"unsupported_grant_type"}');
          const token = crypto.randomBytes(16).toString('hex');
          lms.tokens.push({ token, scope: f.get('scope') });
          return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600, scope: f.get('scope') }));
        }
        const nm = /^\/memberships\/([\w-]+)(?:\?page=(\d+))?$/.exec(req.url);
        if (nm && req.method === 'GET') {
          const auth = /^Bearer (\w+)$/.exec(req.headers.authorization || '');
          const tok = auth && lms.tokens.find((t) => t.token === auth[1]);
          if (!tok || !/contextmembership\.readonly/.test(tok.scope)) return res.writeHead(401).end('no token for the roster');
          if (lms.rosterFails) return res.writeHead(503).end('roster service down for maintenance');
          const all = lms.members[nm[1]] || [];
          const page = Number(nm[2] || 0);
          const head = { 'content-type': 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json' };
          if ((page + 1) * 2 < all.length) head.link = `<${base}/memberships/${nm[1]}?page=${page + 1}>; rel="next"`;
          return res.writeHead(200, head).end(JSON.stringify({ id: req.url, context: { id: nm[1] }, members: all.slice(page * 2, page * 2 + 2) }));
        }
        const m = /^\/lineitems\/([\w-]+)\/scores$/.exec(req.url);
        if (m && req.method === 'POST') {
          const auth = /^Bearer (\w+)$/.exec(req.headers.authorization || '');
          if (!auth || !lms.tokens.some((t) => t.token === auth[1])) return res.writeHead(401).end('no token');
          if (req.headers['content-type'] !== 'application/vnd.ims.lis.v1.score+json') return res.writeHead(415).end('wrong type');
          if (lms.refuseNext > 0) { lms.refuseNext--; return res.writeHead(lms.refusal.status).end(lms.refusal.body); }
          lms.scores.push({ lineitem: m[1], ...JSON.parse(body) });
          return res.writeHead(200).end('{}');
        }
        return res.writeHead(404).end('not found');
      } catch (err) {
        return res.writeHead(500).end(String(err.message));
      }
    });
  });
  await new Promise((r) => { server.listen(0, '127.0.0.1', r); });
  const base = `http://127.0.0.1:${server.address().port}`;
  // dynamic registration wants the issuer on the configuration's host
  if (issuerIsBase) lms.issuer = base;
  Object.assign(lms, {
    base,
    authUrl: `${base}/auth`, tokenUrl: `${base}/token`, jwksUrl: `${base}/jwks`,
    lineitem: (id) => `${base}/lineitems/${id}`,
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
    form() {
      return { name: `LMS ${name} ${tag}`, issuer: lms.issuer, client_id: lms.clientId, auth_login_url: lms.authUrl, token_url: lms.tokenUrl, jwks_url: lms.jwksUrl, deployments: `${lms.deploymentId}\nother-${tag}` };
    },
    // The claims an LMS puts in a resource link launch; `over` replaces or removes (undefined) any.
    claims({ sub, role = 'learner', target, nonce, context = `course-${tag}`, link = `link-${tag}`, lineitem, over = {} }) {
      const c = {
        iss: lms.issuer, aud: lms.clientId, sub, nonce, name: `Test ${sub}`, email: `${sub}@example.edu`,
        [`${C}message_type`]: 'LtiResourceLinkRequest', [`${C}version`]: '1.3.0', [`${C}deployment_id`]: lms.deploymentId,
        [`${C}target_link_uri`]: target, [`${C}resource_link`]: { id: link, title: 'Lab exam' },
        [`${C}roles`]: [ROLE[role] || role], [`${C}context`]: { id: context, label: 'CS101', title: `CS101 ${tag}` },
      };
      c['https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice'] = { context_memberships_url: `${base}/memberships/${context}`, service_versions: ['2.0'] };
      if (lineitem) c['https://purl.imsglobal.org/spec/lti-ags/claim/endpoint'] = { scope: ['https://purl.imsglobal.org/spec/lti-ags/scope/score'], lineitem };
      for (const [k, v] of Object.entries(over)) { if (v === undefined) delete c[k]; else c[k] = v; }
      return c;
    },
    sign(claims, { key = privateKey, kidOf = kid, exp = '5m', iat } = {}) {
      const j = new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: kidOf, typ: 'JWT' });
      j.setIssuedAt(iat); j.setExpirationTime(exp);
      return j.sign(key);
    },
  });
  return lms;
}

// Step 1 of a launch in the test's "browser": the login initiation. Returns state,
// nonce and the redirect URI the tool asked the LMS to post to.
async function initiate(client, lms, { target, hint = 'hint-1' }) {
  const q = new URLSearchParams({ iss: lms.issuer, login_hint: hint, target_link_uri: target, client_id: lms.clientId, lti_message_hint: 'mh' });
  const r = await client.get(`/lti/login?${q}`);
  if (r.status !== 302) return { status: r.status, text: r.text };
  const u = new URL(r.headers.get('location'));
  return { status: 302, url: u, state: u.searchParams.get('state'), nonce: u.searchParams.get('nonce'), redirect: u.searchParams.get('redirect_uri') };
}

// The LMS's form post, then the redirect to /lti/continue (followed) and to the landing page.
async function post(client, idToken, state) {
  const r = await client.post('/lti/launch', { form: { id_token: idToken, state } });
  if (r.status !== 303) return { status: r.status, text: r.text, step: 'launch' };
  const cont = r.headers.get('location');
  const r2 = await client.get(cont);
  return { status: r2.status, text: r2.text, landing: r2.headers.get('location'), step: 'continue', cont };
}

// A whole launch: returns the landing page's path (or the refusal).
async function launch(client, lms, opts) {
  const i = await initiate(client, lms, opts);
  if (i.status !== 302) return i;
  const token = await lms.sign(lms.claims({ ...opts, nonce: i.nonce }), opts.signOpts);
  return post(client, token, i.state);
}

module.exports = { startLms, initiate, post, launch, ROLE, C };
