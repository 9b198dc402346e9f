/**
 * The dashboard end to end in real Chromium (issue 31), against fake StockX and a local webhook receiver: sign in,
 * search a SKU, open the product, read a price from the size table and from the chart's tooltip (mouse and
 * keyboard), track it, create an alert and see its signed test delivery arrive, visit every page, sign out; then a
 * key revoked while its session is open is refused on the next click. axe-core checks every page for serious or
 * critical violations, and each page is saved as a screenshot at desktop and phone width (test-artifacts/dashboard).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveResult } from '../../src/operations/live-results.js';
import { auth, testApp } from '../support/app.js';
import { chromiumAvailable, chromiumPath } from '../support/chromium.js';
import {
  SKU,
  STOCKX_SLUG as SLUG,
  startProductUpstreams,
  type ProductUpstreams,
} from '../support/product-upstreams.js';
import { REPO_ROOT } from '../support/repo-root.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const NAME = 'Marketlens Runner 1 Harbor Blue';
const DAY = 86_400_000;
const ARTIFACTS = join(REPO_ROOT, 'test-artifacts', 'dashboard');
const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } };
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Offer {
  marketplace: string;
  amount: number;
  currency: string;
}

/** Text as shown, with the no-break spaces of number formatting as plain spaces. */
async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s/g, ' ');
}

/** A copy of a product record with every market price scaled (for earlier points of its history). */
function scaled(record: unknown, factor: number): unknown {
  return JSON.parse(JSON.stringify(record), (k, v: unknown) =>
    ['lowest_ask', 'highest_bid', 'last_sale'].includes(k) && typeof v === 'number' ? Math.round(v * factor) : v,
  );
}

describe.skipIf(!chromiumAvailable)('dashboard in Chromium', () => {
  let upstreams: ProductUpstreams;
  let receiver: Receiver;
  let app: FastifyInstance;
  let browser: Browser;
  let base: string;
  let key: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    [upstreams, receiver] = await Promise.all([startProductUpstreams(), startReceiver()]);
    upstreams.serveProduct({ stockxSearchHasSku: true });
    app = await testApp(
      {
        ...upstreams.env,
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      { alerts: { timing: { baseDelayMs: 40, maxDelayMs: 200, pollMs: 20, leaseMs: 2_000 } } },
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    key = (await app.marketlens.keys.create('dashboard e2e')).key;
    // History to draw: the product looked up once (the live result), recorded again as if seen 20 and 10 days ago
    // at lower prices, through the recorder every live result goes through.
    let live: LiveResult | undefined;
    const off = app.marketlens.liveResults.onResult((r) => (live ??= r));
    const res = await app.inject({ url: `/api/v1/scraper/resale-a/product?query=${SLUG}&currency=USD`, headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    off();
    for (const [daysAgo, factor] of [
      [20, 0.9],
      [10, 0.95],
    ] as const) {
      app.history.recorder.record({
        ...live!,
        fetchedAt: Date.now() - daysAgo * DAY,
        record: scaled(live!.record, factor),
      });
    }
    await app.history.recorder.flush();
    browser = await chromium.launch({ executablePath: chromiumPath });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await Promise.all([upstreams?.stop(), receiver?.stop()]);
  });

  /** axe-core in the page (evaluated, so the page's own CSP stays on): no serious or critical violation. */
  async function checkAccessibility(page: Page, name: string): Promise<void> {
    await page.evaluate(`${axeSource};0`);
    // A string, run in the page (this file is compiled without DOM types).
    const violations = await page.evaluate<string[]>(`axe.run().then((r) => r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.map((n) => n.target.join(' ')).join(', ')))`);
    expect(violations, name).toEqual([]);
  }

  /** Accessibility at both widths, and a screenshot of each. */
  async function capture(page: Page, name: string): Promise<void> {
    for (const [width, size] of Object.entries(VIEWPORTS)) {
      await page.setViewportSize(size);
      await checkAccessibility(page, `${name} at ${width} width`);
      await page.screenshot({ path: join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  }

  // 13–17 s alone on 2 cores (fourteen axe runs and twelve full-page screenshots are most of it); the bound leaves
  // room for the suite's other files running beside it.
  it('signs in, searches, reads prices, tracks, alerts, visits every page, signs out; a revoked key is refused', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    // A step that does not happen fails with its own message, well inside the test's time.
    context.setDefaultTimeout(5_000);
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    const failed: string[] = [];
    page.on('response', (r) => void (r.status() >= 400 && failed.push(`${r.status()} ${new URL(r.url()).pathname}`)));
    page.on(
      'console',
      (m) =>
        void (m.type() === 'error' && !m.text().startsWith('Failed to load resource') && consoleErrors.push(m.text())),
    );
    page.on('pageerror', (e) => consoleErrors.push(e.message));

    await page.goto(`${base}/`);
    await page.getByLabel('API key').waitFor();
    await capture(page, 'sign-in');
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Search' }).waitFor();
    // The key is nowhere the page's scripts can read.
    const readable = await page.evaluate<string>(
      'JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie + document.documentElement.outerHTML',
    );
    expect(readable).not.toContain(key);
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['ml_session', true, 'Strict']]);

    // Chrono24's filters by name, from the finder (the catalog the service ships; no upstream request).
    await page.getByLabel('Marketplace').selectOption('watchmarket');
    await page.getByLabel('Filter name').fill('dial color');
    await page.getByRole('button', { name: 'Find filters' }).click();
    await page.getByText(/^\d+ filter values found\.$/).waitFor();
    expect(await page.getByLabel('Filter value').locator('option').allTextContents()).toContain('Dial color: Black');
    await checkAccessibility(page, 'search with the Chrono24 filter');
    await page.getByLabel('Marketplace').selectOption('resale-a');
    expect(await page.getByLabel('Filter name').isVisible()).toBe(false);

    await page.getByLabel('Name, SKU or URL').fill(SKU);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hit = page.getByRole('link', { name: NAME }).first();
    await hit.waitFor();
    await capture(page, 'search');
    await hit.click();

    await page.getByRole('heading', { name: NAME }).waitFor();
    // The size table across StockX, GOAT and Nike: the men's 8 row's best buy and best sell as the API answers them.
    const answer = JSON.parse((await app.inject({ url: `/api/v1/products/${SKU}`, headers: auth })).body) as {
      sizes: Array<{ size: string; size_system: string; best_buy: Offer | null; best_sell: Offer | null }>;
    };
    const eight = answer.sizes.find((r) => r.size === '8' && r.size_system === 'us_men')!;
    expect(eight.best_buy).not.toBeNull();
    const sizeRow = page.getByRole('row', { name: /^8 US M / });
    const bestBuy = sizeRow.locator('td.best-buy');
    expect(await text(bestBuy)).toBe(`${eight.best_buy!.currency} ${eight.best_buy!.amount.toFixed(2)} best buy`);
    expect(await bestBuy.getAttribute('data-marketplace')).toBe(eight.best_buy!.marketplace);
    if (eight.best_sell) {
      expect(await text(sizeRow.locator('td.best-sell'))).toBe(
        `${eight.best_sell.currency} ${eight.best_sell.amount.toFixed(2)} best sell`,
      );
    }
    expect(await page.getByRole('columnheader').allTextContents()).toEqual(
      expect.arrayContaining(['StockX lowest ask', 'GOAT lowest price', 'Nike retail']),
    );

    // The chart: the product's own lines; the latest point under the mouse, the earliest with the keyboard.
    const chart = page.getByRole('group', { name: /Price history/ });
    await chart.waitFor();
    const box = (await chart.boundingBox())!;
    await chart.hover({ position: { x: box.width - 20, y: box.height / 2 } });
    const tooltip = chart.getByRole('status');
    await tooltip.waitFor();
    expect(await text(tooltip)).toContain('StockX lowest ask: USD 131.00');
    await chart.focus();
    await chart.press('Home');
    expect(await text(tooltip)).toContain('StockX lowest ask: USD 118.00'); // 131 × 0.9, 20 days ago
    await chart.press('ArrowRight');
    expect(await text(tooltip)).toContain('StockX lowest ask: USD 124.00'); // 131 × 0.95
    await capture(page, 'product');

    await page.getByRole('button', { name: 'Track this product' }).click();
    await page.getByText(/^Tracked: refreshed every 15 min\.$/).waitFor();
    await page.getByRole('button', { name: 'Track across marketplaces (SKU)' }).click();
    await page.getByText(`Tracked ${SKU} across marketplaces: refreshed every 15 min.`).waitFor();
    // The rows the API creates: the lookup, and the product by SKU.
    const tracked = await app.inject({ url: '/api/v1/tracked', headers: { 'x-api-key': key } });
    expect(JSON.parse(tracked.body).data).toMatchObject([
      { operation: 'resale-a.product', params: { query: SLUG, currency: 'USD' } },
      { operation: 'product', params: { sku: SKU } },
    ]);

    await page.getByRole('button', { name: 'Create an alert' }).click();
    await page.getByLabel('Webhook URL').fill(receiver.url);
    expect(await page.getByLabel('When').locator('option').allTextContents()).toEqual([
      'Price falls below',
      'Price changes by at least (%)',
      'Spread (best sell − best buy) reaches (% of buy)',
    ]);
    await page.getByLabel('When').selectOption('below');
    await page.getByLabel('Threshold').fill('100');
    await page.getByRole('button', { name: 'Create alert' }).click();
    const secret = await page.locator('.action-status code').textContent();
    expect(secret).toMatch(/^whsec_/);
    const sentBy = Date.now() + 5_000;
    while (receiver.all.length === 0) {
      expect(Date.now(), 'the test delivery arrives').toBeLessThan(sentBy);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const delivery = receiver.all[0]!;
    const verified = new Webhook(secret!).verify(delivery.raw, delivery.headers as Record<string, string>);
    expect(verified).toMatchObject({ type: 'webhook.test' });

    await page.getByRole('link', { name: 'Alerts' }).click();
    await page.getByRole('heading', { name: 'Alerts' }).waitFor();
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return page.locator('tr[data-status="delivered"]').count();
      })
      .toBe(1);
    expect(await page.locator('tr[data-status="delivered"] td').allTextContents()).toEqual(
      expect.arrayContaining(['webhook.test', 'delivered', '204', '1']),
    );
    await capture(page, 'alerts');

    await page.getByRole('link', { name: 'Tracked' }).click();
    const item = page.getByRole('listitem').filter({ hasText: SLUG });
    await item.waitFor();
    await page.getByRole('listitem').filter({ hasText: SKU }).waitFor();
    expect(await text(item)).toMatch(/USD \d+\.\d\d/);
    expect(await text(item)).not.toContain('paused');
    // Pause: the PATCH carries the session's CSRF header like Remove's DELETE; the list says "paused" instead of
    // the next refresh, and the API agrees. Resume brings the next refresh back.
    const trackedDoc = async () =>
      JSON.parse((await app.inject({ url: '/api/v1/tracked', headers: { 'x-api-key': key } })).body).data[0];
    await item.getByRole('button', { name: 'Pause' }).click();
    await page.getByText(`Paused ${SLUG}`).waitFor();
    await item.getByRole('button', { name: 'Resume' }).waitFor();
    expect(await text(item)).toMatch(/Next refresh\s*paused/);
    expect(await trackedDoc()).toMatchObject({ paused: true, nextRunAt: null });
    await capture(page, 'tracked-paused');
    await item.getByRole('button', { name: 'Resume' }).click();
    await page.getByText(new RegExp(`^Resumed ${SLUG}`)).waitFor();
    await item.getByRole('button', { name: 'Pause' }).waitFor();
    expect(await text(item)).toMatch(/Next refresh\s*\d/);
    expect(await trackedDoc()).toMatchObject({ paused: false, nextRunAt: expect.any(String) });
    await capture(page, 'tracked');

    await page.getByRole('link', { name: 'Status', exact: true }).click();
    await page.getByRole('heading', { name: 'Status' }).waitFor();
    await capture(page, 'status');
    // The full status page opens with the session alone.
    const statusPage = await context.newPage();
    expect((await statusPage.goto(`${base}/status`))!.status()).toBe(200);
    await statusPage.close();

    await page.getByRole('button', { name: /^Sign out/ }).click();
    await page.getByText('Signed out.').waitFor();
    expect(await context.cookies()).toEqual([]);

    // A second key signs in; revoked while its session is open, the next click is refused.
    const second = await app.marketlens.keys.create('revoked in the test');
    await page.getByLabel('API key').fill(second.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Search' }).waitFor();
    await app.marketlens.keys.revoke(second.record.id);
    await page.getByRole('link', { name: 'Tracked' }).click();
    await page.getByText(/Your session ended: The session's API key is no longer valid/).waitFor();
    expect(await page.getByLabel('API key').isVisible()).toBe(true);

    expect(consoleErrors).toEqual([]);
    // The first load's "am I signed in?" and the one refusal the revoked session met; the product's history across
    // marketplaces is a 404 until a product answer has linked the SKU (then the page draws StockX's own history).
    expect(failed.filter((f) => f !== `404 /api/v1/products/${SKU}/history`)).toEqual([
      '401 /dashboard/session',
      '401 /api/v1/tracked',
    ]);
    await context.close();
  }, 60_000);
});
