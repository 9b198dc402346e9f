/**
 * The dashboard's files (`dashboard/` at the package root: hand-written ES modules and CSS, no build step), read once
 * at start-up and served fingerprinted: each asset under a name carrying its content hash (`app.3f9c1a2b.js`,
 * `Cache-Control: immutable`), the HTML (no-cache) naming them, and an import map in the HTML so the modules' own
 * `import './chart.js'` lines resolve to the fingerprinted names without rewriting them. Each file is also kept
 * compressed (brotli, gzip) and answered in the encoding the browser accepts.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';

/** `dashboard/` beside `src/` (running from sources) and `dist/` (compiled): both are two levels up from here. */
export const DASHBOARD_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dashboard');
export const ASSET_PREFIX = '/dashboard/assets/';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.html': 'text/html; charset=utf-8',
};

export interface Asset {
  /** The fingerprinted file name, e.g. `app.3f9c1a2b.js`. */
  name: string;
  type: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

export interface DashboardAssets {
  /** By fingerprinted name. */
  byName: Map<string, Asset>;
  /** The page, with its asset URLs and import map filled in. */
  html: Asset;
  /** `sha256-…` of the inline import map, for the Content-Security-Policy. */
  importMapHash: string;
}

function compressed(name: string, type: string, identity: Buffer): Asset {
  return {
    name,
    type,
    identity,
    br: brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
    gzip: gzipSync(identity, { level: 9 }),
  };
}

export function loadAssets(dir = DASHBOARD_DIR): DashboardAssets {
  const byName = new Map<string, Asset>();
  /** Plain name (`app.js`) → its URL (`/dashboard/assets/app.3f9c1a2b.js`). */
  const urls = new Map<string, string>();
  for (const file of readdirSync(dir).sort()) {
    const ext = extname(file);
    if (!(ext in TYPES) || ext === '.html') continue;
    const body = readFileSync(join(dir, file));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const name = `${file.slice(0, -ext.length)}.${hash}${ext}`;
    byName.set(name, compressed(name, TYPES[ext]!, body));
    urls.set(file, ASSET_PREFIX + name);
  }
  const importMap = JSON.stringify({
    imports: Object.fromEntries(
      [...urls].filter(([f]) => f.endsWith('.js')).map(([f, url]) => [ASSET_PREFIX + f, url]),
    ),
  });
  const importMapHash = `sha256-${createHash('sha256').update(importMap).digest('base64')}`;
  const template = readFileSync(join(dir, 'index.html'), 'utf8');
  const page = template
    .replace('<!--importmap-->', `<script type="importmap">${importMap}</script>`)
    // Every module fetched at once, not import by import (the product page's first render: bench/dashboard.ts).
    .replace(
      '<!--modulepreload-->',
      [...urls.entries()]
        .filter(([f]) => f.endsWith('.js'))
        .map(([, url]) => `<link rel="modulepreload" href="${url}" />`)
        .join('\n    '),
    )
    .replace(/\{\{asset:([\w.-]+)\}\}/g, (_m, file: string) => {
      const url = urls.get(file);
      if (!url) throw new Error(`dashboard/index.html names ${file}, which is not in ${dir}`);
      return url;
    });
  return { byName, html: compressed('index.html', TYPES['.html']!, Buffer.from(page)), importMapHash };
}

/** The body to send for an Accept-Encoding header, and its Content-Encoding (none for identity). */
export function encodingFor(asset: Asset, acceptEncoding: string | undefined): { body: Buffer; encoding?: string } {
  const accepted = new Set<string>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    if (name && !(q && Number(q.slice(2)) === 0)) accepted.add(name);
  }
  if (accepted.has('br')) return { body: asset.br, encoding: 'br' };
  if (accepted.has('gzip')) return { body: asset.gzip, encoding: 'gzip' };
  return { body: asset.identity };
}
