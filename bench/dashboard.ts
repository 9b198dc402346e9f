/**
 * The dashboard's page weight and the product page's time to first render, on loopback (issue 31).
 *
 * Weight: every JS and CSS file the page loads, as served (fingerprinted, precompressed at start-up): identity,
 * gzip and brotli bytes, and the HTML page. Render: the service in this process against a fake StockX (the
 * fixtures), Chromium (playwright-core, /usr/bin/chromium or MARKETLENS_BROWSER_PATH) signed in with a session
 * cookie, a cold browser cache each round; the product page (`#/product/resale-a.product/<slug>`) opened
 * BENCH_ROUNDS times (default 7): first contentful paint (the shell) and the time at which the size table and the
 * chart are both drawn (the page's own `dashboard:product` mark; the product's data, which takes one product lookup, cached after the first round, one
 * history query and the cross-marketplace answer), from navigation start.
 *
 * `npm run bench:dashboard` → a table and bench/dashboard-results.json.
 */
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadAssets } from '../src/dashboard/assets.js';
import { testApp } from '../test/support/app.js';
import { chromiumPath } from '../test/support/chromium.js';
import { FakeUpstream } from '../test/support/fake-upstream.js';
import { readFixture } from '../test/support/fixtures.js';
import { REPO_ROOT } from '../test/support/repo-root.js';

const SLUG = 'marketlens-runner-1-harbor-blue';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

function weight() {
  const assets = loadAssets();
  const sum = (ext: string, enc: 'identity' | 'gzip' | 'br') =>
    [...assets.byName.values()].filter((a) => a.name.endsWith(ext)).reduce((n, a) => n + a[enc].length, 0);
  const row = (ext: string) => ({ identity: sum(ext, 'identity'), gzip: sum(ext, 'gzip'), br: sum(ext, 'br') });
  return {
    files: [...assets.byName.keys()],
    js: row('.js'),
    css: row('.css'),
    html: { identity: assets.html.identity.length, gzip: assets.html.gzip.length, br: assets.html.br.length },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function render() {
  const stockx = await new FakeUpstream().start();
  stockx.on('POST /api/p/e', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(readFixture('resale-a/market-data.json'));
  });
  stockx.serve(`/${SLUG}`, readFixture('resale-a/product-page.html'));
  const app = await testApp({ MARKETLENS_RESALE_A_ORIGIN: stockx.origin });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const { key } = await app.marketlens.keys.create('bench');
  const signIn = await app.inject({ method: 'POST', url: '/dashboard/session', payload: { key } });
  const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
  const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
  const browser = await chromium.launch({ executablePath: chromiumPath });
  const fcp: number[] = [];
  const data: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies([{ name, value, url: base, httpOnly: true, sameSite: 'Strict' }]);
      const page = await context.newPage();
      await page.goto(`${base}/#/product/resale-a.product/${SLUG}`);
      // The page marks `dashboard:product` once the table and the chart are drawn (dashboard/app.js).
      await page.evaluate(`new Promise((resolve) => {
        if (performance.getEntriesByName('dashboard:product').length > 0) return resolve(0);
        new PerformanceObserver((list, observer) => {
          if (list.getEntriesByName('dashboard:product').length > 0) observer.disconnect(), resolve(0);
        }).observe({ type: 'mark' });
      })`);
      const t = await page.evaluate<{ fcp: number; data: number }>(
        `({ fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
           data: performance.getEntriesByName('dashboard:product')[0]?.startTime ?? -1 })`,
      );
      fcp.push(t.fcp);
      data.push(t.data);
      await context.close();
    }
  } finally {
    await browser.close();
    await app.close();
    await stockx.stop();
  }
  return { rounds: ROUNDS, fcp_ms: { median: median(fcp), all: fcp }, data_ms: { median: median(data), all: data } };
}

const results = { at: new Date().toISOString(), weight: weight(), render: await render() };
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log('page weight (JS + CSS as served)');
for (const k of ['js', 'css', 'html'] as const) {
  const w = results.weight[k];
  console.log(
    `  ${k.padEnd(5)} identity ${kb(w.identity).padStart(9)}  gzip ${kb(w.gzip).padStart(9)}  br ${kb(w.br).padStart(9)}`,
  );
}
const r = results.render;
console.log(`product page, ${r.rounds} cold-cache rounds on loopback (median, ms from navigation start):`);
console.log(
  `  first contentful paint ${r.fcp_ms.median.toFixed(0)} ms; table and chart in the page ${r.data_ms.median.toFixed(0)} ms`,
);
writeFileSync(join(REPO_ROOT, 'bench', 'dashboard-results.json'), JSON.stringify(results, null, 2) + '\n');
