'use strict';
// LTI Dynamic Registration (1EdTech LTI Dynamic Registration 1.0). An admin here
// makes a registration link (single use, LTI_REGISTRATION_LINK_TTL_S); the LMS
// admin pastes it into the LMS, which opens it (often in a frame, where our
// session cookie is not sent: the link's token is the authority) with
// ?openid_configuration=URL&registration_token=T. We read the platform's OpenID
// configuration (its issuer must be on the host the configuration came from),
// register the tool at its registration endpoint (our login, launch and JWKS URLs,
// AGS and NRPS scopes, deep linking), and store the platform with the client id and
// deployment id it answered. The page then asks the LMS to close it.
const crypto = require('node:crypto');
const { badRequest, forbidden, HttpError } = require('../shared/errors');
const { AGS_SCORE_SCOPE, NRPS_SCOPE, HTTP_TIMEOUT_MS } = require('./service');

const TOOL_CONFIG = 'https://purl.imsglobal.org/spec/lti-tool-configuration';
const PLATFORM_CONFIG = 'https://purl.imsglobal.org/spec/lti-platform-configuration';
const sha = (s) => crypto.createHash('sha256').update(String(s)).digest('base64url');
const LINK_GONE = 'This registration link has expired or was already used. Ask an admin of this tool for a new one (Admin > LTI platforms).';

// https, or http on this host (tests, a local LMS)
function checkedUrl(v, what) {
  let u;
  try { u = new URL(String(v)); } catch { throw badRequest(`The LMS's ${what} is not a URL.`); }
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && local)) throw badRequest(`The LMS's ${what} must be https.`);
  return u;
}

function createRegistration({ db, fetchImpl = fetch, linkTtlS = 86400 }) {
  async function createLink(adminId) {
    const token = crypto.randomBytes(32).toString('base64url');
    await db.query('INSERT INTO lti_registration_links (token_hash, created_by, expires_at) VALUES (?, ?, UTC_TIMESTAMP(3) + INTERVAL ? SECOND)', [sha(token), adminId, linkTtlS]);
    return token;
  }

  async function linkUsable(token) {
    if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
    const rows = await db.query('SELECT 1 FROM lti_registration_links WHERE token_hash = ? AND used_at IS NULL AND expires_at > UTC_TIMESTAMP(3)', [sha(token)]);
    return !!rows[0];
  }

  async function json(res, what) {
    const text = await res.text();
    if (!res.ok) throw new HttpError(502, `The LMS's ${what} answered ${res.status}: ${text.slice(0, 300)}`);
    try { return JSON.parse(text); } catch { throw new HttpError(502, `The LMS's ${what} did not answer JSON.`); }
  }

  // Returns { platformId, name, issuer, clientId, deploymentId, lmsOrigin }.
  async function register({ token, openidConfiguration, registrationToken, origin }) {
    if (!(await linkUsable(token))) throw forbidden(LINK_GONE, { code: 'lti_registration_link' });
    if (typeof openidConfiguration !== 'string' || !openidConfiguration) throw badRequest('This is not a registration request: openid_configuration is missing.');
    const cfgUrl = checkedUrl(openidConfiguration, 'configuration URL');
    let conf;
    try {
      conf = await json(await fetchImpl(cfgUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) }), 'OpenID configuration');
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new HttpError(502, `The LMS's OpenID configuration could not be read: ${err.message}`);
    }
    const issuer = typeof conf.issuer === 'string' ? conf.issuer : '';
    let issUrl;
    try { issUrl = new URL(issuer); } catch { throw badRequest('The LMS\'s configuration names no issuer.'); }
    if (issUrl.host !== cfgUrl.host) throw badRequest(`The LMS's issuer (${issuer}) is not on the host its configuration came from (${cfgUrl.host}).`);
    const need = ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'registration_endpoint'];
    for (const k of need) if (typeof conf[k] !== 'string') throw badRequest(`The LMS's configuration has no ${k}.`);
    const ep = Object.fromEntries(need.map((k) => [k, checkedUrl(conf[k], k).toString()]));
    if (issuer.length > 255 || Object.values(ep).some((v) => v.length > 1000)) throw badRequest('The LMS\'s configuration has values too long to store.');

    const body = {
      application_type: 'web',
      response_types: ['id_token'],
      grant_types: ['implicit', 'client_credentials'],
      initiate_login_uri: `${origin}/lti/login`,
      redirect_uris: [`${origin}/lti/launch`],
      client_name: 'Prutor',
      jwks_uri: `${origin}/lti/jwks`,
      token_endpoint_auth_method: 'private_key_jwt',
      scope: [AGS_SCORE_SCOPE, NRPS_SCOPE].join(' '),
      [TOOL_CONFIG]: {
        domain: new URL(origin).host,
        target_link_uri: `${origin}/lti/launch`,
        claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
        messages: [{ type: 'LtiDeepLinkingRequest', target_link_uri: `${origin}/lti/launch`, label: 'Prutor' }],
      },
    };
    let reg;
    try {
      reg = await json(await fetchImpl(ep.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...(registrationToken ? { authorization: `Bearer ${registrationToken}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(HTTP_TIMEOUT_MS),
      }), 'registration endpoint');
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw new HttpError(502, `The LMS's registration endpoint could not be reached: ${err.message}`);
    }
    const clientId = typeof reg.client_id === 'string' ? reg.client_id : '';
    if (!clientId || clientId.length > 255) throw new HttpError(502, 'The LMS registered the tool but gave no client id.');
    const dep = reg[TOOL_CONFIG] && typeof reg[TOOL_CONFIG].deployment_id === 'string' ? reg[TOOL_CONFIG].deployment_id.slice(0, 255) : null;
    const pc = conf[PLATFORM_CONFIG] || {};
    const name = String(pc.product_family_code ? `${pc.product_family_code} (${issUrl.host})` : issUrl.host).slice(0, 128);

    const platformId = await db.tx(async (tx) => {
      const used = await tx.query('UPDATE lti_registration_links SET used_at = UTC_TIMESTAMP(3) WHERE token_hash = ? AND used_at IS NULL AND expires_at > UTC_TIMESTAMP(3)', [sha(token)]);
      if (used.affectedRows !== 1) throw forbidden(LINK_GONE, { code: 'lti_registration_link' });
      const cols = [name, issuer, clientId, ep.authorization_endpoint, ep.token_endpoint, ep.jwks_uri];
      const have = await tx.query('SELECT id FROM lti_platforms WHERE issuer = ? AND client_id = ? FOR UPDATE', [issuer, clientId]);
      let id;
      if (have[0]) {
        id = have[0].id;
        await tx.query('UPDATE lti_platforms SET name = ?, issuer = ?, client_id = ?, auth_login_url = ?, token_url = ?, jwks_url = ? WHERE id = ?', [...cols, id]);
      } else {
        id = (await tx.query('INSERT INTO lti_platforms (name, issuer, client_id, auth_login_url, token_url, jwks_url) VALUES (?, ?, ?, ?, ?, ?)', cols)).insertId;
      }
      if (dep) await tx.query('INSERT IGNORE INTO lti_deployments (platform_id, deployment_id) VALUES (?, ?)', [id, dep]);
      await tx.query('UPDATE lti_registration_links SET platform_id = ? WHERE token_hash = ?', [id, sha(token)]);
      return id;
    });
    return { platformId, name, issuer, clientId, deploymentId: dep, lmsOrigin: cfgUrl.origin };
  }

  return { createLink, linkUsable, register };
}

module.exports = { createRegistration };
