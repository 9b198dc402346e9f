// Callbacks of page.$$eval run in the page; the repo's tsconfig has no DOM types, hence the narrow casts there.
/**
 * GET /status in a real Chromium: the page renders on its own (no external request), shows every marketplace with
 * its figures, colours a failing marketplace red, and the screenshot is a real page, not a blank one.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATION_NAMES } from '../src/operations/types.js';
import { auth, testApp } from './support/app.js';
import { chromiumAvailable, chromiumPath } from './support/chromium.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { BUY_BAR, buyBarFor } from './support/slow-goat.js';
import { CLOUDFLARE_CHALLENGE, PERIMETERX_BLOCK } from './support/upstream-fixtures.js';

describe.runIf(chromiumAvailable)('GET /status in Chromium', () => {
  const goat = new FakeUpstream();
  const stockx = new FakeUpstream();
  let app: FastifyInstance;
  let base = '';
  let blocked = false;

  beforeAll(async () => {
    await Promise.all([goat.start(), stockx.start()]);
    goat.on(BUY_BAR, (req, res) => {
      if (blocked)
        return void res
          .writeHead(403, { 'content-type': 'text/html', 'cf-mitigated': 'challenge' })
          .end(CLOUDFLARE_CHALLENGE);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(buyBarFor(req.query.get('productTemplateId') ?? '1')));
    });
    stockx.otherwise(
      (_req, res) =>
        void res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify(PERIMETERX_BLOCK)),
    );
    app = await testApp({
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_RESALE_A_ORIGIN: stockx.origin,
      MARKETLENS_RETRY_ATTEMPTS: '1',
      MARKETLENS_BREAKER_THRESHOLD: '2',
    });
    const get = (url: string) => app.inject({ method: 'GET', url, headers: auth });
    for (const id of [1, 2, 3]) await get(`/api/v1/scraper/resale-b/prices?query=${id}`);
    await get('/api/v1/scraper/resale-b/prices?query=1'); // a cache hit
    blocked = true;
    await get('/api/v1/scraper/resale-b/prices?query=4');
    // Two blocked searches open StockX's circuit (threshold 2); the third is refused without a request.
    for (const q of ['one', 'two', 'three']) await get(`/api/v1/scraper/resale-a/search?query=${q}`);
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([goat.stop(), stockx.stop()]);
  });

  it('reads at a glance: every marketplace, its state and figures; a self-contained page', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1500, height: 800 }, extraHTTPHeaders: auth });
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      const res = await page.goto(`${base}/status`);
      expect(res?.status()).toBe(200);
      // Nothing but the page itself was loaded: no script, stylesheet, font or image from anywhere.
      expect(requested).toEqual([`${base}/status`]);
      const rows = await page.$$eval('tr[data-marketplace]', (trs) =>
        trs.map((tr) => ({
          mp: tr.getAttribute('data-marketplace'),
          state: tr.className,
          text: (tr as unknown as { innerText: string }).innerText.replace(/\s+/g, ' '),
        })),
      );
      expect(rows.map((r) => r.mp)).toEqual(['watchmarket', 'resale-a', 'resale-b', 'sportswear', 'electronics']);
      const goatRow = rows.find((r) => r.mp === 'resale-b')!;
      // 3 live answers + 1 hit + 1 block = 5 lookups, 80 % answered, 20 % from cache, direct tier.
      expect(goatRow.state).toBe('degraded');
      expect(goatRow.text).toContain('GOAT');
      expect(goatRow.text).toMatch(/\b5 \(5\)/);
      expect(goatRow.text).toContain('80 % (80 %)');
      expect(goatRow.text).toContain('20 %');
      expect(goatRow.text).toMatch(/direct 3/);
      const problems = await page.$$eval('tr[data-problem]', (trs) =>
        trs.map((tr) => (tr as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ')),
      );
      // The last block of each marketplace: when, which operation, and what upstream answered.
      expect(problems).toHaveLength(2);
      expect(problems.find((p) => p.startsWith('GOAT'))).toMatch(
        /^GOAT blocked \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC resale-b\.prices resale-b answered with a Cloudflare challenge/,
      );
      expect(problems.find((p) => p.startsWith('StockX'))).toMatch(/resale-a\.search .*PerimeterX/);
      const stockxRow = rows.find((r) => r.mp === 'resale-a')!;
      expect(stockxRow.state).toBe('down');
      expect(stockxRow.text).toContain('failing');
      expect(stockxRow.text).toMatch(/open until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
      expect(rows.find((r) => r.mp === 'watchmarket')!.text).toContain('no lookups');
      const colour = await page.$eval(
        'tr[data-marketplace="resale-a"] .dot',
        (el) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el)
            .backgroundColor,
      );
      expect(colour).toBe('rgb(217, 45, 32)');
      const ops = await page.$$eval('tr[data-operation]', (trs) =>
        trs.map((tr) => ({
          op: tr.getAttribute('data-operation'),
          text: (tr as unknown as { innerText: string }).innerText.replace(/\s+/g, ' '),
        })),
      );
      expect(ops.map((o) => o.op).sort()).toEqual([...OPERATION_NAMES].sort());
      // Per operation too: its lookups' upstream time, the tier that answered them, requests and bytes per live lookup.
      const prices = ops.find((o) => o.op === 'resale-b.prices')!.text;
      expect(prices).toMatch(/≤\d+ ms \/ ≤\d+ ms/);
      expect(prices).toMatch(/direct 3/);
      expect(prices).toMatch(/\b1 \/ \d+ B\b/); // 4 live lookups, 4 requests (one attempt each)
      expect(ops.find((o) => o.op === 'electronics.product')!.text).toMatch(/— \/ — — — \/ —/);
      const dir = join(tmpdir(), 'marketlens-status-page');
      mkdirSync(dir, { recursive: true });
      const png = await page.screenshot({ path: join(dir, 'status.png'), fullPage: true });
      // A blank or broken page compresses to a few kB; a rendered table of text and colours does not.
      expect(png.length).toBeGreaterThan(30_000);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
