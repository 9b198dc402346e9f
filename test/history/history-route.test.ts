/**
 * GET /api/v1/history: the series of one lookup's parameters as JSON (raw and bucketed min/max/last), CSV and an SVG
 * chart checked in Chromium (screenshot: every line drawn in its colour, axis labels inside the picture). Also the
 * recorder's promises: a failing write never fails a lookup, a failed lookup marks the product, retention prunes.
 */
import { SILENT_LOGGER } from '../../src/platform/logger.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketlensError } from '../../src/errors.js';
import { HistoryRecorder } from '../../src/history/recorder.js';
import type { Series } from '../../src/history/series.js';
import type { PriceEntry } from '../../src/marketplaces/resale-b/schema.js';
import type { LiveResult } from '../../src/operations/live-results.js';
import { auth, testApp } from '../support/app.js';
import { chromiumAvailable, chromiumPath } from '../support/chromium.js';
import { liveResultFrom } from '../support/live-result.js';
import { expectProblem } from '../support/problem.js';
import { sharedAvailable } from '../support/shared.js';
import { createTestDatabase, engineAvailable, ENGINES, openTestStore, type TestDatabase } from '../support/stores.js';

const BUY_BAR = 'goat/dewuapiparser_goat_1341930_buy_bar_data.json';
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1, 9); // 2026-11-01 09:00 UTC, a Sunday
const PARAMS = { query: '1341930', country: 'US' };

/** The GOAT capture observed at `at`, every amount shifted by `cents` (prices that move day by day). */
function goatAt(at: number, cents: number): LiveResult {
  const r = liveResultFrom('resale-b.prices', [{ capture: BUY_BAR }], {
    params: PARAMS,
    identity: { id: '1341930', country: 'US', currency: 'USD' },
    fetchedAt: at,
  });
  for (const e of r.record as PriceEntry[])
    for (const k of ['lowestPriceCents', 'lastSoldPriceCents', 'instantShipLowestPriceCents'] as const) {
      const money = e[k];
      if (money.amount !== undefined && money.amount > 0) money.amount += cents;
    }
  return r;
}

/** The JSON answer of GET /api/v1/history (src/history/routes.ts). */
interface HistoryBody {
  params: Record<string, string>;
  series: Array<Series & { label: string }>;
}

/** The few DOM shapes the chart test touches inside the page (this Node project has no DOM types). */
interface PageRect {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}
interface PageElement {
  textContent: string | null;
  getBoundingClientRect(): PageRect;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}
interface PageImage {
  src: string;
  width: number;
  height: number;
  decode(): Promise<void>;
}
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(image: PageImage, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  } | null;
}
interface PageGlobals {
  document: PageElement & { createElement(tag: 'canvas'): PageCanvas };
  Image: new () => PageImage;
}

describe.each(ENGINES)('GET /api/v1/history on %s', (engine) => {
  const run = engineAvailable(engine) && sharedAvailable;
  let db: TestDatabase;
  let app: FastifyInstance;
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ url, headers: { ...auth, ...headers } });
  const H = '/api/v1/history?operation=resale-b.prices&query=1341930&country=US';
  const range = `&from=${new Date(T0 - DAY).toISOString()}&to=${new Date(T0 + 10 * DAY).toISOString()}`;

  beforeAll(async () => {
    if (!run) return;
    db = await createTestDatabase(engine);
    app = await testApp(db.env);
    // Four days, two observations a day (09:00 and 15:00); the afternoon is 1 USD dearer than the morning.
    for (let d = 0; d < 4; d++) {
      app.history.recorder.record(goatAt(T0 + d * DAY, d * 100));
      app.history.recorder.record(goatAt(T0 + d * DAY + 6 * 3_600_000, d * 100 + 100));
    }
    await app.history.recorder.flush();
  });
  afterAll(async () => {
    if (!run) return;
    await app.close();
    await db.drop();
  });

  it.skipIf(!run)('raw points per size × kind × condition, in time order', async () => {
    const res = await get(`${H}${range}&size=5&kind=last_sale`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<HistoryBody>();
    expect(body.params).toEqual(PARAMS);
    // Size 5 has three conditions with a last sale: three lines of 8 points each.
    expect(body.series).toHaveLength(3);
    const newGood = body.series.find((s) => s.condition === 'new_no_defects/good_condition')!;
    expect(newGood.points.map((p) => p.last)).toEqual([107, 108, 108, 109, 109, 110, 110, 111]);
    expect(newGood.points[0]).toEqual({ t: new Date(T0).toISOString(), min: 107, max: 107, last: 107, count: 1 });
  });

  it.skipIf(!run)('interval=day gives min, max and last per day; week buckets start on Monday', async () => {
    const body = (await get(`${H}${range}&size=5&kind=last_sale&interval=day`)).json<HistoryBody>();
    const s = body.series.find((x) => x.condition === 'new_no_defects/good_condition')!;
    expect(s.points).toEqual(
      [0, 1, 2, 3].map((d) => ({
        t: new Date(Date.UTC(2026, 10, 1 + d)).toISOString(),
        min: 107 + d,
        max: 108 + d,
        last: 108 + d,
        count: 2,
      })),
    );
    const week = (await get(`${H}${range}&size=5&kind=last_sale&interval=week`)).json<HistoryBody>();
    const w = week.series.find((x) => x.condition === 'new_no_defects/good_condition')!;
    // Sunday 1 Nov belongs to the week of Monday 26 Oct; 2–4 Nov to the week of Monday 2 Nov.
    expect(w.points.map((p) => [p.t.slice(0, 10), p.min, p.max, p.last, p.count])).toEqual([
      ['2026-10-26', 107, 108, 108, 2],
      ['2026-11-02', 108, 111, 111, 6],
    ]);
  });

  it.skipIf(!run)("another lookup's parameters (country) select another series; from/to bound it", async () => {
    expect((await get(`${H.replace('country=US', 'country=FR')}${range}`)).json().series).toEqual([]);
    const late = (
      await get(
        `${H}&from=${new Date(T0 + 3 * DAY).toISOString()}&to=${new Date(T0 + 4 * DAY).toISOString()}&size=5&kind=last_sale`,
      )
    ).json();
    expect(late.series[0].points).toHaveLength(2);
  });

  it.skipIf(!run)('CSV by format=csv or Accept: text/csv', async () => {
    for (const res of [
      await get(`${H}${range}&size=5&interval=day&format=csv`),
      await get(`${H}${range}&size=5&interval=day`, { accept: 'text/csv' }),
    ]) {
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const lines = res.body.trim().split('\r\n');
      expect(lines[0]).toBe('size,kind,condition,currency,t,min,max,last,count');
      expect(lines).toContain(
        `5,last_sale,new_no_defects/good_condition,USD,${new Date(Date.UTC(2026, 10, 1)).toISOString()},107,108,108,2`,
      );
    }
  });

  it.skipIf(!run)('bad input is a 400 naming the parameter', async () => {
    expect(expectProblem(await get('/api/v1/history?query=1'), 400, 'invalid_parameter').detail).toMatch(/operation/);
    expect(
      expectProblem(await get('/api/v1/history?operation=watchmarket.finder&query=x'), 400, 'invalid_parameter').detail,
    ).toMatch(/operation/);
    expect(expectProblem(await get(`${H}&interval=month`), 400, 'invalid_parameter').detail).toMatch(/interval/);
    expect(expectProblem(await get(`${H}&from=yesterday`), 400, 'invalid_parameter').detail).toMatch(/from/);
    expect(expectProblem(await get(`${H}&kind=cheapest`), 400, 'invalid_parameter').detail).toMatch(/kind/);
    expect(expectProblem(await get(`${H}&colour=red`), 400, 'invalid_parameter').detail).toMatch(/colour/);
    expect(
      expectProblem(await get('/api/v1/history?operation=resale-b.prices&query=abc'), 400, 'invalid_parameter').detail,
    ).toMatch(/query/);
  });

  // The chart does not depend on the engine: it is drawn once, on SQLite.
  if (engine === 'sqlite')
    it.skipIf(!run || !chromiumAvailable)(
      'format=svg is a chart Chromium draws: one line per kind, labelled axes',
      async () => {
        const res = await get(`${H}${range}&size=5&condition=x&interval=day&format=svg`.replace('&condition=x', ''));
        expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
        const svg = res.body;
        const dir = mkdtempSync(join(tmpdir(), 'history-chart-'));
        writeFileSync(join(dir, 'chart.svg'), svg);
        const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
        try {
          const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
          await page.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
          const png = await page.screenshot({ path: join(dir, 'chart.png') });
          expect(png.length).toBeGreaterThan(5000);
          const facts = await page.evaluate(() => {
            // Runs in the page (no DOM types in this Node project).
            const { document } = globalThis as unknown as PageGlobals;
            const svgEl = document.querySelector('svg')!;
            const box = svgEl.getBoundingClientRect();
            const texts = [...svgEl.querySelectorAll('text')].map((t) => ({
              text: t.textContent ?? '',
              r: t.getBoundingClientRect(),
            }));
            const lines = [...svgEl.querySelectorAll('polyline')].map((p) => ({
              color: p.getAttribute('stroke'),
              w: p.getBoundingClientRect().width,
            }));
            return {
              box: { w: box.width, h: box.height },
              texts: texts.map((t) => ({
                text: t.text,
                inside:
                  t.r.left >= 0 &&
                  t.r.right <= box.width + 1 &&
                  t.r.top >= 0 &&
                  t.r.bottom <= box.height + 1 &&
                  t.r.right - t.r.left > 0,
                h: t.r.height,
              })),
              lines,
            };
          });
          expect(facts.box.w).toBe(900);
          expect(facts.box.h).toBeGreaterThan(480);
          // Size 5: lowest price, last sale (3 conditions), instant ship → one line each, all drawn across the chart.
          expect(facts.lines.length).toBeGreaterThanOrEqual(4);
          expect(facts.lines.every((l) => l.w > 500)).toBe(true);
          expect(facts.texts.every((t) => t.inside && t.h >= 10)).toBe(true);
          const all = facts.texts.map((t) => t.text).join('\n');
          expect(all).toMatch(/Price \(USD\)/);
          expect(all).toMatch(/2026-11-0[1-4]/);
          expect(all).toMatch(/size 5 · last sale · new_no_defects\/good_condition/);
          // The pixels: every line's colour is actually painted.
          const counts = await page.evaluate(
            async ({ b64, colors }) => {
              const { document, Image } = globalThis as unknown as PageGlobals;
              const img = new Image();
              img.src = `data:image/png;base64,${b64}`;
              await img.decode();
              const c = document.createElement('canvas');
              [c.width, c.height] = [img.width, img.height];
              const ctx = c.getContext('2d')!;
              ctx.drawImage(img, 0, 0);
              const d = ctx.getImageData(0, 0, c.width, c.height).data;
              return colors.map((hex) => {
                const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
                let n = 0;
                for (let i = 0; i < d.length; i += 4)
                  if (Math.abs(d[i]! - r!) < 8 && Math.abs(d[i + 1]! - g!) < 8 && Math.abs(d[i + 2]! - b!) < 8) n++;
                return n;
              });
            },
            { b64: png.toString('base64'), colors: facts.lines.map((l) => l.color!) },
          );
          expect(counts.every((n) => n > 200)).toBe(true);
        } finally {
          await browser.close();
        }
      },
    );
});

describe.skipIf(!engineAvailable('sqlite') || !sharedAvailable)('the recorder', () => {
  it('a refused write is logged and counted, never thrown at the lookup', async () => {
    const store = await openTestStore('sqlite');
    const logs: string[] = [];
    const logged = (_ctx: object, msg?: string) => void logs.push(msg ?? '');
    const counted: Array<[string, number]> = [];
    const rec = new HistoryRecorder(store.db, {
      retentionDays: 365,
      log: { ...SILENT_LOGGER, info: logged, warn: logged, error: logged },
      count: (r, n) => counted.push([r, n]),
    });
    await store.db.schema.dropTable('history_prices').execute(); // every price insert now fails
    expect(() => rec.record(goatAt(T0, 0))).not.toThrow();
    await rec.flush();
    expect(rec.stats).toMatchObject({ written: 0, failed: 1 });
    expect(logs).toContain('history row refused by the database; skipped');
    expect(counted).toEqual([['failed', 1]]);
    await store.close();
  });

  it('onObserved hears a batch only after it is written; a failed lookup marks the product (crawl error, not found)', async () => {
    const store = await openTestStore('sqlite');
    const rec = new HistoryRecorder(store.db, { retentionDays: 365 });
    const heard: number[] = [];
    rec.onObserved(async (b) => {
      const n = await store.db
        .selectFrom('history_prices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      heard.push(b.prices.length, Number(n.n));
    });
    rec.record(goatAt(T0, 0));
    await rec.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(heard).toEqual([18, 18]);
    rec.recordFailure({
      operation: 'resale-b.prices',
      params: PARAMS,
      error: new MarketlensError('not_found', 'resale-b has no product 1341930'),
      at: T0 + DAY,
    });
    await rec.flush();
    const p = await store.db.selectFrom('history_products').selectAll().executeTakeFirstOrThrow();
    expect(p).toMatchObject({
      is_not_found: 1,
      error_crawling: 'not_found: resale-b has no product 1341930',
      last_crawled_at: T0 + DAY,
      last_seen_at: T0,
    });
    await store.close();
  });

  it('retention: the prune deletes prices older than MARKETLENS_HISTORY_RETENTION_DAYS', async () => {
    const store = await openTestStore('sqlite');
    const now = T0 + 40 * DAY;
    const rec = new HistoryRecorder(store.db, { retentionDays: 30, now: () => now });
    rec.record(goatAt(T0, 0)); // 40 days old
    rec.record(goatAt(T0 + 20 * DAY, 0)); // 20 days old
    await rec.flush();
    expect(await rec.prune()).toBe(18);
    const left = await store.db.selectFrom('history_prices').select('observed_at').execute();
    expect(left).toHaveLength(18);
    expect(left.every((r) => Number(r.observed_at) === T0 + 20 * DAY)).toBe(true);
    await store.close();
  });
});
