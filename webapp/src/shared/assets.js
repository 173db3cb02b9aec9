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

module.exports = { asset, load, DIST };
