'use strict';
// LTI 1.3 (issue 27), the tool side, with `jose` for every JOSE step (JWKS, JWT
// verify/sign) and the OIDC/LTI rules written here (README "LTI 1.3", why not ltijs):
//   platforms   an admin registers each LMS (issuer, client id, endpoints, deployment ids)
//   keys        our RSA key pair(s), made on first use, private key sealed in MariaDB
//   launch      login initiation -> id_token verified -> the same browser continues ->
//               account (issuer, sub), section (context), session, landing page
//   grades      AGS: released marks of a linked event go to the LMS line item, retried
// No HTTP here (routes.js); every rule of the launch is in this file.
const crypto = require('node:crypto');
const jose = require('jose');
const { Form, fieldError } = require('../lib/form');
const { badRequest, forbidden, notFound, conflict } = require('../shared/errors');

const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';
const AGS_CLAIM = 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint';
const AGS_SCORE_SCOPE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score';
const DL_SETTINGS = 'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings';
const DL_ITEMS = 'https://purl.imsglobal.org/spec/lti-dl/claim/content_items';
const DL_DATA = 'https://purl.imsglobal.org/spec/lti-dl/claim/data';
const NRPS_CLAIM = 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice';
const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';
const HTTP_TIMEOUT_MS = 10000;
const MEMBERSHIP = 'http://purl.imsglobal.org/vocab/lis/v2/membership';
// LTI 1.3 requires RS256 for id_tokens; "none" and HMAC are never accepted.
const ALGS = ['RS256'];
const LOGIN_TIMEOUT = 'The launch took too long or was already used. Open the activity again from your course page.';

const b64url = (buf) => Buffer.from(buf).toString('base64url');
const randomId = () => b64url(crypto.randomBytes(32));
const sha = (s) => b64url(crypto.createHash('sha256').update(String(s)).digest());

// Platforms must be reached over https; plain http only on this host (tests, a local LMS).
function endpoint(f, name, label) {
  const v = f.str(name, { label, required: true, max: 1000 });
  if (!v) return v;
  let u;
  try { u = new URL(v); } catch { return f.fail(name, `${label} must be a full URL (https://...).`); }
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && local)) return f.fail(name, `${label} must start with https:// (http only for this host).`);
  return u.toString();
}

// Context roles of the launch -> our role. A TA sub-role wins over Instructor (the
// less powerful); LTI never makes anyone an admin here. null: no role we serve.
function roleOf(roles) {
  const list = Array.isArray(roles) ? roles.filter((r) => typeof r === 'string') : [];
  const has = (name) => list.some((r) => r === `${MEMBERSHIP}#${name}` || r === name);
  if (list.some((r) => r.startsWith(`${MEMBERSHIP}/Instructor#TeachingAssistant`))) return 'ta';
  if (has('Instructor')) return 'instructor';
  if (has('Learner')) return 'student';
  return null;
}

// What a launch opens, from its target_link_uri (ours, signed in the id_token):
// /lti/event/ID or /lti/problem/ID, /lti/link-account (a student links an account of
// theirs here); anything else: the home page of the role.
function targetOf(uri, origin) {
  let u;
  try { u = new URL(uri); } catch { return null; }
  if (u.origin !== origin) return null;
  if (u.pathname === '/lti/link-account') return { kind: 'link' };
  const m = /^\/lti\/(event|problem)\/(\d{1,10})$/.exec(u.pathname);
  return m ? { kind: m[1], id: Number(m[2]) } : { kind: 'home' };
}

function landingOf(role, target) {
  if (target.kind === 'link') return { student: '/lti/link', ta: '/grading', instructor: '/events' }[role];
  if (target.kind === 'event') return { student: `/exam/${target.id}`, ta: '/grading', instructor: `/events/${target.id}` }[role];
  if (target.kind === 'problem') return { student: '/practice', ta: '/grading', instructor: `/problems/${target.id}` }[role];
  return { student: '/home', ta: '/grading', instructor: '/events' }[role];
}

function createLtiService({ db, secret, log = console, fetchImpl = fetch, launchTtlS = 600, continueTtlS = 120, publishSql = null }) {
  const sealKey = crypto.createHmac('sha256', secret).update('prutor lti key seal v1').digest();
  function seal(text) {
    const iv = crypto.randomBytes(12);
    const c = crypto.createCipheriv('aes-256-gcm', sealKey, iv);
    const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
    return b64url(Buffer.concat([iv, c.getAuthTag(), body]));
  }
  function unseal(sealed) {
    try {
      const raw = Buffer.from(sealed, 'base64url');
      const d = crypto.createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
    } catch { return null; } // sealed under another SESSION_SECRET
  }

  // ---- our keys -------------------------------------------------------------
  // The newest readable key signs; all are published. Two workers starting at once
  // may each make one: both are published, so either signature verifies.
  let signing = null;
  async function toolKey() {
    if (signing) return signing;
    for (let i = 0; i < 2 && !signing; i++) {
      const rows = await db.query('SELECT kid, private_sealed FROM lti_tool_keys ORDER BY created_at DESC, kid LIMIT 5');
      for (const r of rows) {
        const pem = unseal(r.private_sealed);
        if (pem) { signing = { kid: r.kid, key: crypto.createPrivateKey(pem) }; break; }
      }
      if (!signing) {
        const { publicKey, privateKey } = await jose.generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
        const jwk = await jose.exportJWK(publicKey);
        const kid = await jose.calculateJwkThumbprint(jwk);
        await db.query('INSERT IGNORE INTO lti_tool_keys (kid, public_jwk, private_sealed) VALUES (?, ?, ?)',
          [kid, JSON.stringify({ ...jwk, kid, alg: 'RS256', use: 'sig' }), seal(await jose.exportPKCS8(privateKey))]);
        log.info && log.info(`[webapp ${process.pid}] LTI: made the tool's signing key ${kid}`);
      }
    }
    return signing;
  }

  async function jwks() {
    await toolKey();
    const rows = await db.query('SELECT public_jwk FROM lti_tool_keys ORDER BY created_at DESC LIMIT 10');
    return { keys: rows.map((r) => JSON.parse(r.public_jwk)) };
  }

  // An OAuth2 access token of a platform for a scope (AGS, NRPS): client_credentials
  // with a JWT client assertion signed with our key (LTI Security Framework);
  // kept until a minute before it expires. p: { id, client_id, token_url }.
  const tokens = new Map();
  async function accessToken(p, scope) {
    const k = `${p.id}\n${scope}`;
    const have = tokens.get(k);
    if (have && have.until > Date.now()) return have.token;
    const { kid, key } = await toolKey();
    const assertion = await new jose.SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(p.client_id).setSubject(p.client_id).setAudience(p.token_url)
      .setIssuedAt().setExpirationTime('5m').setJti(crypto.randomUUID())
      .sign(key);
    const res = await fetchImpl(p.token_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
        scope,
      }).toString(),
      signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
    });
    const text = await res.text();
    let body = null;
    try { body = JSON.parse(text); } catch { /* reported below */ }
    if (!res.ok || !body || typeof body.access_token !== 'string') {
      throw new Error(`the token endpoint answered ${res.status}: ${text.slice(0, 300)}`);
    }
    const life = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600;
    tokens.set(k, { token: body.access_token, until: Date.now() + Math.max(0, life - 60) * 1000 });
    return body.access_token;
  }
  function dropToken(p, scope) { tokens.delete(`${p.id}\n${scope}`); }

  // ---- platforms --------------------------------------------------------------
  async function platforms() {
    const rows = await db.query(`SELECT p.*, (SELECT COUNT(*) FROM lti_users u WHERE u.issuer = p.issuer) AS users,
        (SELECT COUNT(*) FROM lti_contexts c WHERE c.platform_id = p.id) AS contexts FROM lti_platforms p ORDER BY p.name, p.id`);
    const deps = await db.query('SELECT platform_id, deployment_id FROM lti_deployments ORDER BY deployment_id');
    for (const p of rows) p.deployments = deps.filter((d) => d.platform_id === p.id).map((d) => d.deployment_id);
    return rows;
  }

  async function platform(id) {
    const rows = await db.query('SELECT * FROM lti_platforms WHERE id = ?', [id]);
    if (!rows[0]) throw notFound('No such platform.');
    const p = rows[0];
    p.deployments = (await db.query('SELECT deployment_id FROM lti_deployments WHERE platform_id = ? ORDER BY deployment_id', [id])).map((d) => d.deployment_id);
    p.contexts = await db.query(`SELECT c.context_id, c.title, c.section_id, s.code AS section_code, s.name AS section_name
      FROM lti_contexts c JOIN sections s ON s.id = c.section_id WHERE c.platform_id = ? ORDER BY c.created_at`, [id]);
    return p;
  }

  function readPlatform(body) {
    const f = new Form(body);
    const v = {
      name: f.str('name', { label: 'Name', required: true, max: 128 }),
      issuer: f.str('issuer', { label: 'Issuer', required: true, max: 255 }),
      client_id: f.str('client_id', { label: 'Client id', required: true, max: 255 }),
      auth_login_url: endpoint(f, 'auth_login_url', 'Authentication (OIDC) URL'),
      token_url: endpoint(f, 'token_url', 'Access token URL'),
      jwks_url: endpoint(f, 'jwks_url', 'Public keyset (JWKS) URL'),
    };
    const deployments = [...new Set(f.str('deployments', { label: 'Deployment ids', required: true, max: 5000 }) ? f.raw('deployments').split(/[\s,]+/).filter(Boolean) : [])];
    if (deployments.some((d) => d.length > 255)) f.fail('deployments', 'A deployment id has 255 characters at most.');
    if (v.issuer && !/^https?:\/\/\S+$/.test(v.issuer)) f.fail('issuer', 'The issuer is the platform\'s URL (https://...), as the LMS shows it.');
    f.check();
    return { v, deployments, values: f.values };
  }

  async function savePlatform(id, body) {
    const { v, deployments, values } = readPlatform(body);
    return db.tx(async (tx) => {
      const dup = await tx.query('SELECT id FROM lti_platforms WHERE issuer = ? AND client_id = ? AND id <> ?', [v.issuer, v.client_id, id || 0]);
      if (dup[0]) throw fieldError('client_id', 'This issuer and client id are registered already.', values);
      let pid = id;
      const cols = [v.name, v.issuer, v.client_id, v.auth_login_url, v.token_url, v.jwks_url];
      if (id) {
        const r = await tx.query('UPDATE lti_platforms SET name = ?, issuer = ?, client_id = ?, auth_login_url = ?, token_url = ?, jwks_url = ? WHERE id = ?', [...cols, id]);
        if (!r.affectedRows) throw notFound('No such platform.');
        await tx.query('DELETE FROM lti_deployments WHERE platform_id = ?', [id]);
      } else {
        pid = (await tx.query('INSERT INTO lti_platforms (name, issuer, client_id, auth_login_url, token_url, jwks_url) VALUES (?, ?, ?, ?, ?, ?)', cols)).insertId;
      }
      for (const d of deployments) await tx.query('INSERT INTO lti_deployments (platform_id, deployment_id) VALUES (?, ?)', [pid, d]);
      return pid;
    });
  }

  async function deletePlatform(id) {
    const r = await db.query('DELETE FROM lti_platforms WHERE id = ?', [id]);
    if (!r.affectedRows) throw notFound('No such platform.');
  }

  // An LMS course is re-pointed to an existing section (its next launches land there).
  async function mapContext(platformId, contextId, sectionId) {
    if (typeof contextId !== 'string' || !/^\d{1,10}$/.test(String(sectionId))) throw badRequest('Choose a course and a section.');
    const s = await db.query('SELECT id FROM sections WHERE id = ?', [sectionId]);
    if (!s[0]) throw badRequest('No such section.');
    const r = await db.query('UPDATE lti_contexts SET section_id = ? WHERE platform_id = ? AND context_id = ?', [sectionId, platformId, contextId]);
    if (!r.affectedRows) throw notFound('No such course of this platform.');
  }

  // ---- launch, step 1: OIDC third-party login initiation ----------------------
  // p: the request's fields; origin: our public origin (scheme://host). Returns the
  // platform's authorization URL; the launch row holds state and nonce.
  async function beginLogin(p, { origin, browser }) {
    const str = (k, max = 2000) => (typeof p[k] === 'string' && p[k].length <= max ? p[k] : '');
    const iss = str('iss', 255);
    const loginHint = str('login_hint');
    const target = str('target_link_uri');
    if (!iss || !loginHint || !target) throw badRequest('This is not an LTI login: iss, login_hint and target_link_uri are required.');
    if (!targetOf(target, origin)) throw badRequest('The launch names a target_link_uri that is not on this site.');
    const clientId = str('client_id', 255);
    const found = await db.query(`SELECT id, client_id, auth_login_url FROM lti_platforms WHERE issuer = ?${clientId ? ' AND client_id = ?' : ''} LIMIT 2`,
      clientId ? [iss, clientId] : [iss]);
    if (!found.length) throw badRequest('This LMS (issuer and client id) is not registered here. An admin registers it under Admin > LTI platforms.');
    if (found.length > 1) throw badRequest('This LMS is registered with several client ids and the login did not say which one.');
    const pf = found[0];
    const state = randomId();
    const nonce = randomId();
    await db.query('INSERT INTO lti_launches (state, nonce, browser, platform_id, expires_at) VALUES (?, ?, ?, ?, UTC_TIMESTAMP(3) + INTERVAL ? SECOND)',
      [state, nonce, sha(browser), pf.id, launchTtlS]);
    if (Math.random() < 0.05) db.query('DELETE FROM lti_launches WHERE expires_at < UTC_TIMESTAMP(3) LIMIT 1000').catch(() => {});
    const u = new URL(pf.auth_login_url);
    const q = {
      scope: 'openid', response_type: 'id_token', response_mode: 'form_post', prompt: 'none',
      client_id: pf.client_id, redirect_uri: `${origin}/lti/launch`, login_hint: loginHint, state, nonce,
    };
    if (str('lti_message_hint')) q.lti_message_hint = str('lti_message_hint');
    for (const [k, v] of Object.entries(q)) u.searchParams.set(k, v);
    return u.toString();
  }

  // ---- launch, step 2: the id_token ----------------------------------------------
  const keysets = new Map(); // jwks_url -> jose remote key set (cached, refetched on an unknown kid)
  function keysetOf(url) {
    if (!keysets.has(url)) keysets.set(url, jose.createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cooldownDuration: 30000, cacheMaxAge: 600000 }));
    return keysets.get(url);
  }

  const refuse = (msg) => forbidden(`The launch was refused: ${msg}`, { code: 'lti_refused' });

  // Verifies everything the id_token says; on success the launch gets a ticket
  // the same browser redeems (continueLaunch). Any failure burns the state.
  async function verifyLaunch({ idToken, state }, { origin }) {
    if (typeof state !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(state) || typeof idToken !== 'string' || idToken.length > 20000) {
      throw badRequest('This is not an LTI launch (id_token and state are required).');
    }
    const rows = await db.query(`SELECT l.nonce, l.platform_id, p.issuer, p.client_id, p.jwks_url FROM lti_launches l
      JOIN lti_platforms p ON p.id = l.platform_id WHERE l.state = ? AND l.ticket IS NULL AND l.expires_at > UTC_TIMESTAMP(3)`, [state]);
    if (!rows[0]) throw badRequest(LOGIN_TIMEOUT, { code: 'lti_state' });
    const l = rows[0];
    try {
      let payload;
      try {
        ({ payload } = await jose.jwtVerify(idToken, keysetOf(l.jwks_url), {
          issuer: l.issuer, audience: l.client_id, algorithms: ALGS, clockTolerance: 60, requiredClaims: ['exp', 'iat', 'sub', 'nonce'],
        }));
      } catch (err) {
        if (err.code === 'ERR_JWT_EXPIRED') throw refuse('the LMS\'s token has expired. Open the activity again.');
        if (err.code === 'ERR_JWKS_TIMEOUT' || err.code === 'ERR_JOSE_GENERIC' && /fetch|network|Expected 200/i.test(err.message)) throw refuse('the LMS\'s keys could not be fetched.');
        throw refuse(`the LMS's token is not valid (${err.code || 'bad token'}).`);
      }
      const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      if ((aud.length > 1 || payload.azp !== undefined) && payload.azp !== l.client_id) throw refuse('the token\'s authorized party (azp) is not this tool.');
      if (payload.nonce !== l.nonce) throw refuse('the token\'s nonce does not belong to this launch.');
      if (payload[`${CLAIM}version`] !== '1.3.0') throw refuse('the LTI version is not 1.3.0.');
      const type = payload[`${CLAIM}message_type`];
      const deepLink = type === 'LtiDeepLinkingRequest';
      if (type !== 'LtiResourceLinkRequest' && !deepLink) throw refuse(`the message type ${JSON.stringify(String(type || ''))} is not served here.`);
      const dep = payload[`${CLAIM}deployment_id`];
      if (typeof dep !== 'string' || !dep) throw refuse('the token has no deployment id.');
      const known = await db.query('SELECT 1 FROM lti_deployments WHERE platform_id = ? AND deployment_id = ?', [l.platform_id, dep]);
      if (!known[0]) throw refuse('this deployment of the tool is not registered here.');
      if (typeof payload.sub !== 'string' || !payload.sub || payload.sub.length > 255) throw refuse('the token names no user (sub).');
      const role = roleOf(payload[`${CLAIM}roles`]);
      if (!role) throw refuse('your role in this course gives no access to this tool (Learner, Instructor or Teaching Assistant are served).');
      const link = payload[`${CLAIM}resource_link`];
      let dl = null;
      if (deepLink) {
        // "add activity": an instructor picks events or problems; the answer goes back signed
        if (role !== 'instructor') throw refuse('only an instructor of the course adds activities from this tool.');
        const st = payload[DL_SETTINGS];
        let ret = null;
        try { ret = st && typeof st.deep_link_return_url === 'string' && st.deep_link_return_url.length <= 1000 ? new URL(st.deep_link_return_url) : null; } catch { ret = null; }
        if (!ret || !['https:', 'http:'].includes(ret.protocol)) throw refuse('the deep linking request has no return URL.');
        if (Array.isArray(st.accept_types) && !st.accept_types.includes('ltiResourceLink')) throw refuse('the LMS does not accept resource links here.');
        // data: a string by the spec; some platforms send an object, echoed as it came
        dl = { platformId: l.platform_id, returnUrl: ret.toString(), data: st.data !== undefined && JSON.stringify(st.data).length <= 2000 ? st.data : null, multiple: st.accept_multiple !== false, deploymentId: dep };
      } else if (!link || typeof link.id !== 'string' || !link.id || link.id.length > 255) throw refuse('the token has no resource link.');
      const target = targetOf(payload[`${CLAIM}target_link_uri`], origin);
      if (!target) throw refuse('the activity\'s target is not on this site.');
      if (target.kind === 'event' || target.kind === 'problem') {
        const t = await db.query(target.kind === 'event' ? 'SELECT id FROM events WHERE id = ?' : 'SELECT id FROM problems WHERE id = ?', [target.id]);
        if (!t[0]) throw refuse(`the activity opens ${target.kind} ${target.id}, which does not exist here.`);
      }
      const ctx = payload[`${CLAIM}context`];
      const ags = payload[AGS_CLAIM];
      const nrps = payload[NRPS_CLAIM];
      const claims = {
        platformId: l.platform_id, issuer: l.issuer, sub: payload.sub, role, target,
        name: String(payload.name || [payload.given_name, payload.family_name].filter(Boolean).join(' ') || '').slice(0, 128),
        email: typeof payload.email === 'string' ? payload.email.slice(0, 190) : '',
        context: ctx && typeof ctx.id === 'string' && ctx.id && ctx.id.length <= 255 ? {
          id: ctx.id,
          title: String(ctx.title || ctx.label || '').slice(0, 255),
          memberships: nrps && typeof nrps.context_memberships_url === 'string' && nrps.context_memberships_url.length <= 1000 ? nrps.context_memberships_url : null,
        } : null,
        link: deepLink ? null : link.id,
        dl,
        lineitem: ags && typeof ags.lineitem === 'string' && ags.lineitem.length <= 1000 && Array.isArray(ags.scope) && ags.scope.includes(AGS_SCORE_SCOPE) ? ags.lineitem : null,
      };
      const ticket = randomId();
      const r = await db.query('UPDATE lti_launches SET ticket = ?, claims = ?, expires_at = UTC_TIMESTAMP(3) + INTERVAL ? SECOND WHERE state = ? AND ticket IS NULL',
        [ticket, JSON.stringify(claims), continueTtlS, state]);
      if (r.affectedRows !== 1) throw badRequest(LOGIN_TIMEOUT, { code: 'lti_state' });
      return ticket;
    } catch (err) {
      await db.query('DELETE FROM lti_launches WHERE state = ? AND ticket IS NULL', [state]);
      throw err;
    }
  }

  // ---- launch, step 3: the browser that began the login redeems the ticket --------
  async function continueLaunch({ ticket, browser }) {
    if (typeof ticket !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(ticket)) throw badRequest(LOGIN_TIMEOUT, { code: 'lti_state' });
    const rows = await db.query('SELECT browser, claims FROM lti_launches WHERE ticket = ? AND expires_at > UTC_TIMESTAMP(3)', [ticket]);
    const del = await db.query('DELETE FROM lti_launches WHERE ticket = ?', [ticket]);
    if (!rows[0] || del.affectedRows !== 1) throw badRequest(LOGIN_TIMEOUT, { code: 'lti_state' });
    const want = Buffer.from(rows[0].browser);
    const got = Buffer.from(sha(browser || ''));
    if (!browser || !crypto.timingSafeEqual(want, got)) {
      throw forbidden('The launch was refused: it did not end in the browser that began it. Open the activity again from your course page.', { code: 'lti_browser' });
    }
    return provision(JSON.parse(rows[0].claims));
  }

  // The account of (issuer, sub): made, or updated to what the platform says now (name,
  // email, role, and a student's section: one section per account here, so a student
  // follows the course they last launched from or were rostered in). On a launch
  // (login) a disabled account is refused; the roster (NRPS) also re-enables (active).
  async function upsertAccount(tx, { issuer, sub, name: given, email, role, section, login = false, active = 1 }) {
    const name = given || `LMS user ${sub.slice(0, 40)}`;
    const linked = await tx.query(`SELECT u.id, u.username, u.role, u.section_id, u.active FROM lti_users l JOIN users u ON u.id = l.user_id
      WHERE l.issuer = ? AND l.sub = ? FOR UPDATE`, [issuer, sub]);
    if (linked[0]) {
      const user = linked[0];
      // the roster lists a course's learners: it never demotes an account that is staff here
      if (!login && user.role !== role) return { user, roleChanged: false, created: false, skipped: true };
      if (login && !user.active) throw forbidden('This account is disabled here. Ask your instructor.');
      const newSection = role === 'student' ? (section ?? user.section_id) : null;
      await tx.query(`UPDATE users SET name = ?, email = ?, role = ?, section_id = ?, active = ?${login ? ', last_login_at = UTC_TIMESTAMP(3)' : ''} WHERE id = ?`,
        [name, email || '', role, newSection, login ? user.active : active, user.id]);
      return { user: { ...user, name, role, section_id: newSection }, roleChanged: user.role !== role, created: false };
    }
    const username = `lti-${sha(`${issuer}\n${sub}`).slice(0, 20)}`;
    // no password can match this hash: LTI accounts sign in only through their LMS
    const r = await tx.query(`INSERT INTO users (username, password_hash, name, email, role, section_id, active, last_login_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ${login ? 'UTC_TIMESTAMP(3)' : 'NULL'})`, [username, '!'.repeat(60), name, email || '', role, section, active]);
    await tx.query('INSERT INTO lti_users (issuer, sub, user_id) VALUES (?, ?, ?)', [issuer, sub, r.insertId]);
    return { user: { id: r.insertId, username, name, role, section_id: section }, roleChanged: false, created: true };
  }

  // Account by (issuer, sub), section by context, resource link; one transaction.
  // Returns { user (for sessions.create), landing, roleChanged }.
  async function provision(c) {
    return db.tx(async (tx) => {
      let sectionId = null;
      if (c.context) {
        const have = await tx.query('SELECT section_id FROM lti_contexts WHERE platform_id = ? AND context_id = ? FOR UPDATE', [c.platformId, c.context.id]);
        if (have[0]) {
          sectionId = have[0].section_id;
          await tx.query('UPDATE lti_contexts SET title = IF(? = \'\', title, ?), memberships_url = COALESCE(?, memberships_url) WHERE platform_id = ? AND context_id = ?',
            [c.context.title, c.context.title, c.context.memberships || null, c.platformId, c.context.id]);
        } else {
          const code = `lti-${sha(`${c.platformId}\n${c.context.id}`).slice(0, 12)}`;
          const sec = await tx.query('SELECT id FROM sections WHERE code = ?', [code]);
          sectionId = sec[0] ? sec[0].id
            : (await tx.query('INSERT INTO sections (code, name) VALUES (?, ?)', [code, (c.context.title || `LMS course ${c.context.id}`).slice(0, 128)])).insertId;
          await tx.query('INSERT INTO lti_contexts (platform_id, context_id, title, section_id, memberships_url) VALUES (?, ?, ?, ?, ?)',
            [c.platformId, c.context.id, c.context.title, sectionId, c.context.memberships || null]);
        }
      }
      const { user, roleChanged } = await upsertAccount(tx, { ...c, section: c.role === 'student' ? sectionId : null, login: true });
      if (c.dl) return { user, roleChanged, landing: '/lti/deeplink', dl: c.dl };
      await tx.query(`INSERT INTO lti_links (platform_id, resource_link_id, context_id, event_id, problem_id, lineitem_url) VALUES (?, ?, ?, ?, ?, ?)
        ON DUPLICATE KEY UPDATE context_id = VALUES(context_id), event_id = VALUES(event_id), problem_id = VALUES(problem_id),
          lineitem_url = COALESCE(VALUES(lineitem_url), lineitem_url)`,
      [c.platformId, c.link, c.context ? c.context.id : null, c.target.kind === 'event' ? c.target.id : null,
        c.target.kind === 'problem' ? c.target.id : null, c.lineitem]);
      // a student new to a published event gets its assignments (the publish rule, idempotent)
      if (c.role === 'student' && c.target.kind === 'event' && publishSql) {
        const ev = await tx.query('SELECT published_at FROM events WHERE id = ?', [c.target.id]);
        if (ev[0] && ev[0].published_at) await tx.query(publishSql, [c.target.id]);
      }
      return { user, roleChanged, landing: landingOf(c.role, c.target) };
    });
  }

  // ---- linking an LMS identity to one's existing password account -----------------
  // Only with its owner's consent: the caller proved the password (accounts.login,
  // with its limits). The account the LMS made (no password, no code saved yet) is
  // disabled; (issuer, sub) then signs into the local account, which joins the
  // LMS course's section and gets its published events.
  const LTI_HASH = '!'.repeat(60);
  async function linkable(userId) {
    const rows = await db.query(`SELECT l.issuer, u.password_hash = ? AS lti_made,
        (SELECT COUNT(*) FROM code c JOIN assignments a ON a.id = c.assignment_id WHERE a.user_id = u.id) AS saved
      FROM lti_users l JOIN users u ON u.id = l.user_id WHERE l.user_id = ?`, [LTI_HASH, userId]);
    const r = rows[0];
    if (!r || !r.lti_made) return { ok: false, why: 'This account was not made by an LMS launch: there is nothing to link.' };
    if (r.saved > 0) return { ok: false, why: 'Work is already saved under the account your LMS made, so it cannot be linked any more. Ask your instructor.' };
    return { ok: true };
  }

  async function linkAccount(ltiUserId, local) {
    if (local.role !== 'student') throw forbidden('Only a student account can be linked to an LMS account here.');
    if (local.id === ltiUserId || local.password_hash === LTI_HASH) throw badRequest('That is the account your LMS made; give the username of your own Prutor account.');
    return db.tx(async (tx) => {
      const me = await tx.query(`SELECT u.section_id, u.password_hash FROM lti_users l JOIN users u ON u.id = l.user_id WHERE l.user_id = ? FOR UPDATE`, [ltiUserId]);
      if (!me[0] || me[0].password_hash !== LTI_HASH) throw badRequest('This account was not made by an LMS launch: there is nothing to link.');
      const saved = await tx.query('SELECT COUNT(*) AS n FROM code c JOIN assignments a ON a.id = c.assignment_id WHERE a.user_id = ?', [ltiUserId]);
      if (saved[0].n > 0) throw conflict('Work is already saved under the account your LMS made, so it cannot be linked any more. Ask your instructor.');
      const taken = await tx.query('SELECT 1 FROM lti_users WHERE user_id = ?', [local.id]);
      if (taken[0]) throw conflict('That account is already linked to an LMS account.');
      await tx.query('UPDATE lti_users SET user_id = ? WHERE user_id = ?', [local.id, ltiUserId]);
      const section = me[0].section_id ?? local.section_id;
      await tx.query('UPDATE users SET section_id = ? WHERE id = ?', [section, local.id]);
      await tx.query('UPDATE users SET active = 0 WHERE id = ?', [ltiUserId]);
      if (publishSql && section) {
        const evs = await tx.query('SELECT DISTINCT sl.event_id FROM slots sl JOIN events e ON e.id = sl.event_id AND e.published_at IS NOT NULL WHERE sl.section_id = ?', [section]);
        for (const e of evs) await tx.query(publishSql, [e.event_id]);
      }
      return { id: local.id, username: local.username, name: local.name, role: local.role, section_id: section };
    });
  }

  // What the staff pages of one event (scores sent, SEB) show of it.
  async function eventBrief(id) {
    const rows = /^\d{1,10}$/.test(String(id)) ? await db.query('SELECT id, title, grades_released_at FROM events WHERE id = ?', [id]) : [];
    if (!rows[0]) throw notFound('No such event.');
    return rows[0];
  }
  const sections = () => db.query('SELECT id, code, name FROM sections ORDER BY code');

  // ---- Deep Linking: what an instructor may pick, and the signed answer ----------------
  async function linkables() {
    const [events, problems] = await Promise.all([
      // an event's maximum: per position the largest of its section variants, summed
      db.query(`SELECT e.id, e.title, e.type, e.published_at, m.max_marks FROM events e
        LEFT JOIN (SELECT event_id, SUM(m) AS max_marks FROM (SELECT event_id, position, MAX(max_marks) AS m FROM event_questions GROUP BY event_id, position) x
          GROUP BY event_id) m ON m.event_id = e.id
        ORDER BY e.created_at DESC, e.id DESC LIMIT 300`),
      db.query('SELECT id, title, category FROM problems WHERE archived_at IS NULL AND is_practice = 1 ORDER BY category, title LIMIT 500'),
    ]);
    return { events, problems };
  }

  // picks: ['event:12', 'problem:3']; dl: the deep linking settings of the launch.
  // Returns { returnUrl, jwt } for the form the browser posts back to the LMS.
  async function deepLinkResponse(dl, picks, { origin }) {
    const list = (Array.isArray(picks) ? picks : [picks]).filter((x) => typeof x === 'string' && /^((event|problem):\d{1,10}|link:account)$/.test(x));
    if (!list.length) throw badRequest('Choose an event or a problem to add to the course.');
    if (!dl.multiple && list.length > 1) throw badRequest('This LMS adds one activity at a time: choose one.');
    const pf = (await db.query('SELECT issuer, client_id FROM lti_platforms WHERE id = ?', [dl.platformId]))[0];
    if (!pf) throw notFound('The LMS of this request is no longer registered.');
    const { events, problems } = await linkables();
    const items = list.map((x) => {
      if (x === 'link:account') return { type: 'ltiResourceLink', title: 'Link your Prutor account', url: `${origin}/lti/link-account` };
      const [kind, id] = [x.split(':')[0], Number(x.split(':')[1])];
      if (kind === 'event') {
        const e = events.find((v) => v.id === id);
        if (!e) throw badRequest('No such event.');
        const item = { type: 'ltiResourceLink', title: e.title, url: `${origin}/lti/event/${id}`, custom: { event: String(id) } };
        if (Number(e.max_marks) > 0) item.lineItem = { scoreMaximum: Number(e.max_marks), label: e.title, resourceId: `event-${id}` };
        return item;
      }
      const p = problems.find((v) => v.id === id);
      if (!p) throw badRequest('No such practice problem.');
      return { type: 'ltiResourceLink', title: p.title, url: `${origin}/lti/problem/${id}`, custom: { problem: String(id) } };
    });
    const { kid, key } = await toolKey();
    const claims = {
      nonce: randomId(),
      [`${CLAIM}message_type`]: 'LtiDeepLinkingResponse',
      [`${CLAIM}version`]: '1.3.0',
      [`${CLAIM}deployment_id`]: dl.deploymentId,
      [DL_ITEMS]: items,
    };
    if (dl.data !== null) claims[DL_DATA] = dl.data;
    const jwt = await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(pf.client_id).setAudience(pf.issuer).setIssuedAt().setExpirationTime('5m').sign(key);
    return { returnUrl: dl.returnUrl, jwt, items };
  }

  return {
    linkables, deepLinkResponse, eventBrief, sections, linkable, linkAccount,
    toolKey, jwks, platforms, platform, savePlatform, deletePlatform, mapContext, beginLogin, verifyLaunch, continueLaunch,
    // for the grades sender and the roster (grades.js, roster.js)
    accessToken, dropToken, upsertAccount, db, fetchImpl, publishSql,
  };
}

module.exports = { createLtiService, roleOf, targetOf, AGS_SCORE_SCOPE, NRPS_SCOPE, HTTP_TIMEOUT_MS };
