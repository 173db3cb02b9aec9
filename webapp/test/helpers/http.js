'use strict';
// A tiny HTTP client with a cookie jar, for API tests (no redirects followed).
const env = require('./env');

class Client {
  constructor(base = env.BASE) { this.base = base; this.cookies = new Map(); this.csrf = null; }

  cookieHeader() { return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '); }

  async request(method, url, { json, form, headers = {}, body, csrf } = {}) {
    const h = { ...headers };
    if (this.cookies.size) h.cookie = this.cookieHeader();
    let payload = body;
    if (json !== undefined) { h['content-type'] = 'application/json'; payload = JSON.stringify(json); }
    if (form !== undefined) { h['content-type'] = 'application/x-www-form-urlencoded'; payload = new URLSearchParams(form).toString(); }
    if (csrf === true && this.csrf) h['x-csrf-token'] = this.csrf;
    else if (typeof csrf === 'string') h['x-csrf-token'] = csrf;
    const res = await fetch(this.base + url, { method, headers: h, body: payload, redirect: 'manual' });
    for (const sc of res.headers.getSetCookie()) {
      const [pair, ...attrs] = sc.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || attrs.some((a) => /max-age=0/i.test(a))) this.cookies.delete(name); else this.cookies.set(name, value);
    }
    const text = await res.text();
    let data = null;
    if ((res.headers.get('content-type') || '').includes('json')) { try { data = JSON.parse(text); } catch { /* */ } }
    return { status: res.status, headers: res.headers, text, json: data, queries: res.headers.get('x-db-queries') };
  }

  get(url, opts) { return this.request('GET', url, opts); }
  post(url, opts) { return this.request('POST', url, opts); }
  getJson(url) { return this.get(url, { headers: { accept: 'application/json' } }); }

  async login(username, password = env.password) {
    const r = await this.post('/accounts/login', { form: { username, password } });
    if (r.status !== 302) throw new Error(`login ${username} failed: ${r.status} ${r.text.slice(0, 200)}`);
    const home = await this.get('/home');
    const m = /<meta name="csrf-token" content="([^"]+)">/.exec(home.text);
    this.csrf = m ? m[1] : null;
    return r;
  }

  sid() { const v = this.cookies.get('prutor.sid'); return v ? v.split('.')[0] : null; }
}

module.exports = { Client };
