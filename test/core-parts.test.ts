/**
 * The core without HTTP (issue 33): buildCore makes the service's parts without Fastify in the process, a lookup
 * through `core.lookup` is recorded by the history and reaches the alert engine stamped by the injected clock, and the
 * parts start in their declared order and stop in reverse.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCore, type Core } from '../src/core/index.js';
import type { ObservationBatch } from '../src/history/observation.js';
import { getOperation } from '../src/operations/registry.js';
import { testConfig } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { REPO_ROOT } from './support/repo-root.js';

const run = promisify(execFile);
const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const buyBar = [
  {
    sizeOption: { presentation: '9.5', value: 9.5 },
    shoeCondition: 'new_no_defects',
    boxCondition: 'good_condition',
    lowestPriceCents: { currency: 'USD', amount: 18300, amountUsdCents: 18300 },
    instantShipLowestPriceCents: { currency: 'USD' },
    lastSoldPriceCents: { currency: 'USD', amount: 17500, amountUsdCents: 17500 },
    stockStatus: 'single_in_stock',
  },
];
/** The injected clock's one time: far from now, so a row stamped with it cannot have come from Date.now. */
const T = Date.parse('2031-02-03T04:05:06.000Z');

/** Runs `body` (an ES module's code) in a fresh Node with TypeScript, refusing any module of the HTTP framework. */
async function inFreshNode(body: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = ['--import', 'tsx', '--import', './test/support/forbid-fastify.ts', '--input-type=module', '-e', body];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: REPO_ROOT, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

describe('the core without HTTP', () => {
  it('builds, starts and stops without loading Fastify (the app, by contrast, cannot load)', async () => {
    const dataDir = JSON.stringify(testConfig().dataDir);
    const [core, app] = await Promise.all([
      inFreshNode(
        `import { loadConfig } from './src/config.ts';
         import { buildCore } from './src/core/index.ts';
         const config = loadConfig({ MARKETLENS_DATA_DIR: ${dataDir}, MARKETLENS_LOG_LEVEL: 'silent',
           MARKETLENS_BROWSER_PATH: 'none', MARKETLENS_API_KEYS: 'ml_core_parts_key_0123456789abcdef' });
         const core = await buildCore({ config });
         await core.start();
         await core.stop();
         console.log('parts: ' + core.order.join(','));`,
      ),
      // The control: the same guard refuses the HTTP app, so the check above is not vacuous.
      inFreshNode(`await import('./src/server/app.ts');`),
    ]);
    expect(core.stderr).not.toContain('HTTP framework imported');
    expect(core.code, core.stderr).toBe(0);
    expect(core.stdout).toContain('parts: redis,store,keys');
    expect(app.code).not.toBe(0);
    expect(app.stderr).toMatch(/HTTP framework imported: file:\/\/\S*\/node_modules\/fastify/);
  }, 90_000);

  describe('in process', () => {
    const goat = new FakeUpstream();
    const steps: string[] = [];
    let core: Core;
    beforeAll(async () => {
      await goat.start();
      goat.serve(BUY_BAR, buyBar);
      core = await buildCore({
        config: testConfig({ MARKETLENS_RESALE_B_ORIGIN: goat.origin }),
        clock: () => T,
        onStep: (step, part) => steps.push(`${step} ${part}`),
      });
      await core.start();
    });
    afterAll(async () => {
      await core?.stop();
      await goat.stop();
    });

    it('a lookup through core.lookup is recorded at the clock’s time and reaches the alert engine', async () => {
      const seen: ObservationBatch[] = [];
      const handle = core.alerts.handleObservations.bind(core.alerts);
      vi.spyOn(core.alerts, 'handleObservations').mockImplementation((batch) => {
        seen.push(batch);
        handle(batch);
      });
      const result = await core.lookup.run(
        getOperation('resale-b.prices')!,
        { query: '1341930', country: 'US' },
        { maxAgeSeconds: 0 },
      );
      expect(result.cache).toBe('miss');
      expect(result.fetchedAt).toBe(T);
      await core.recorder.flush();

      const rows = await core.store.db
        .selectFrom('history_prices')
        .select(['amount', 'kind', 'size', 'observed_at'])
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => Number(r.observed_at) === T)).toBe(true);
      expect(rows).toContainEqual(expect.objectContaining({ amount: 183, kind: 'lowest_price', size: '9.5' }));

      expect(seen).toHaveLength(1);
      expect(seen[0]!.operation).toBe('resale-b.prices');
      expect(seen[0]!.observedAt.getTime()).toBe(T);
      expect(seen[0]!.prices.map((p) => p.amount)).toContain(183);
    });

    it('starts the parts in their declared order and stops them in reverse', async () => {
      const order = [...core.order];
      // Features flush before the limits write their usage counts, before the database closes, before Redis.
      for (const [before, after] of [
        ['redis', 'store'],
        ['store', 'keys'],
        ['keys', 'limits'],
        ['limits', 'alert engine'],
        ['alert engine', 'history recorder'],
        ['history recorder', 'job runner'],
        ['job runner', 'canaries'],
      ] as const) {
        expect(order.indexOf(before), `${before} before ${after}`).toBeLessThan(order.indexOf(after));
      }
      expect(steps).toEqual(order.map((p) => `start ${p}`));
      await core.stop();
      expect(steps).toEqual([...order.map((p) => `start ${p}`), ...[...order].reverse().map((p) => `stop ${p}`)]);
      // Once only: a second stop runs nothing again.
      await core.stop();
      expect(steps).toHaveLength(order.length * 2);
    });
  });
});
