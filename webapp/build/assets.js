'use strict';
// Bundles the browser code with esbuild into fingerprinted files under
// public/dist/ and writes public/dist/manifest.json ({"editor.js": "editor.3F2A1B9C.js", ...}).
// Run at install time (install.sh, Dockerfile), never at request time.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const out = path.join(root, 'public', 'dist');

async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { editor: 'client/editor.js', app: 'client/app.js', 'app-style': 'client/styles.css' },
    bundle: true,
    minify: true,
    sourcemap: false,
    format: 'iife',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    outdir: out,
    entryNames: '[name].[hash]',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const manifest = {};
  for (const [file, meta] of Object.entries(result.metafile.outputs)) {
    if (!meta.entryPoint) continue;
    const base = path.basename(file);
    const name = path.basename(meta.entryPoint).replace(/^styles\.css$/, 'app.css');
    manifest[name] = base;
  }
  // precompressed copies, served to browsers that accept gzip (no per-request compression)
  for (const file of Object.values(manifest)) {
    const buf = fs.readFileSync(path.join(out, file));
    fs.writeFileSync(path.join(out, `${file}.gz`), zlib.gzipSync(buf, { level: 9 }));
  }
  fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  const sizes = Object.entries(manifest).map(([k, v]) => `${k} -> ${v} (${Math.round(fs.statSync(path.join(out, v)).size / 1024)} KiB)`);
  console.log(`assets built:\n  ${sizes.join('\n  ')}`);
}

main().catch((err) => { console.error(err); process.exit(1); });
