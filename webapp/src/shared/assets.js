'use strict';
// Fingerprinted static assets built by build/assets.js (esbuild). The manifest is
// read once at start-up; pages link to /static/<name>.<hash>.<ext>, served with
// a one-year immutable cache.
const fs = require('node:fs');
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', '..', 'public', 'dist');
let manifest = null;

function load() {
  const file = path.join(DIST, 'manifest.json');
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`Static assets are not built (${file} missing): run webapp/install.sh or "npm run build"`);
  }
  return manifest;
}

function asset(name) {
  if (!manifest) load();
  const file = manifest[name];
  if (!file) throw new Error(`Unknown asset ${name}`);
  return `/static/${file}`;
}

const TYPES = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

// Serves the build's .gz copy of an asset to browsers that accept gzip; the
// file list is known at start-up, so no file system check per request.
function precompressed() {
  if (!manifest) load();
  const gz = new Set(Object.values(manifest).filter((f) => fs.existsSync(path.join(DIST, `${f}.gz`))));
  return function servePrecompressed(req, res, next) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const name = req.path.slice(1);
    if (!gz.has(name) || !/\bgzip\b/.test(req.get('accept-encoding') || '')) return next();
    res.set({
      'Content-Type': TYPES[path.extname(name)] || 'application/octet-stream',
      'Content-Encoding': 'gzip',
      'Cache-Control': 'public, max-age=31536000, immutable',
      Vary: 'Accept-Encoding',
    });
    res.sendFile(path.join(DIST, `${name}.gz`), { headers: {}, lastModified: false, etag: false, cacheControl: false }, (err) => { if (err) next(err); });
  };
}

module.exports = { asset, load, precompressed, DIST };
