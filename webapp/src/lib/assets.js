'use strict';
// The page scripts and stylesheets that are not part of the bundled client (the
// staff pages' and the students' announcement banner, src/lib/public): read and
// fingerprinted once at start-up, served from memory with a one-year immutable
// cache at /staff-assets/<name>.<hash>.<ext>. No file read per request.
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const DIR = path.join(__dirname, 'public');
const TYPES = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
const files = new Map(); // served name -> { body, type }
const names = {};        // logical name -> url

for (const f of fs.readdirSync(DIR)) {
  const ext = path.extname(f);
  if (!TYPES[ext]) continue;
  const body = fs.readFileSync(path.join(DIR, f));
  const hash = crypto.createHash('sha256').update(body).digest('base64url').slice(0, 10);
  const served = `${path.basename(f, ext)}.${hash}${ext}`;
  files.set(served, { body, type: TYPES[ext] });
  names[f] = `/staff-assets/${served}`;
}

function staffAsset(name) {
  if (!names[name]) throw new Error(`Unknown staff asset ${name}`);
  return names[name];
}

function serveStaffAssets(req, res, next) {
  const f = files.get(req.path.replace(/^\//, ''));
  if (!f || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
  res.set({ 'Content-Type': f.type, 'Cache-Control': 'public, max-age=31536000, immutable' });
  return res.send(f.body);
}

module.exports = { staffAsset, serveStaffAssets };
