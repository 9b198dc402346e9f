/**
 * `marketlens doctor` against fake marketplaces that answer, block, hang and change format: each row says exactly
 * that (result and code, tier, upstream requests, bytes, schema validity), and the binary's exit code and --json agree.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runDoctor, formatDoctorTable, probeParams } from '../src/status/doctor.js';
import { OPERATIONS } from '../src/operations/registry.js';
import { OPERATION_NAMES } from '../src/operations/types.js';
import { TEST_KEY, testConfig } from './support/app.js';
import { CLI_COMMAND, cleanEnv } from './support/binary.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';
import { chromiumAvailable, chromiumPath } from './support/chromium.js';
import { LocalProxy } from './support/local-proxy.js';
import { CLOUDFLARE_CHALLENGE, PERIMETERX_BLOCK } from './support/upstream-fixtures.js';
import { readFixture } from './support/fixtures.js';

const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const BUY_BAR_BODY = readFixture('resale-b/buy-bar-data.json');

type Mode = 'ok' | 'block' | 'hang' | 'changed';

describe('marketlens doctor', () => {
  let m: FixtureMarketplaces;
  const proxy = new LocalProxy();
  let mode: Mode = 'ok';
  const buyBarRequests = () => m.fakes['resale-b'].requests.filter((r) => r.path === BUY_BAR).length;

  beforeAll(async () => {
    m = await startFixtureMarketplaces();
    await proxy.start();
    m.fakes['resale-b'].on(BUY_BAR, (_req, res) => {
      if (mode === 'ok') return void res.writeHead(200, { 'content-type': 'application/json' }).end(BUY_BAR_BODY);
      if (mode === 'block')
        return void res
          .writeHead(403, { 'content-type': 'text/html', 'cf-mitigated': 'challenge' })
          .end(CLOUDFLARE_CHALLENGE);
      if (mode === 'changed')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"variants":[]}}');
      // hang: never answer (the per-attempt timeout fires)
    });
  });
  beforeEach(() => {
    mode = 'ok';
    for (const f of Object.values(m.fakes)) f.requests.length = 0;
  });
  afterAll(async () => {
    await m.stop();
    await proxy.stop();
  });

  const config = (env: Record<string, string> = {}) =>
    testConfig({
      ...m.env,
      MARKETLENS_RETRY_ATTEMPTS: '2',
      MARKETLENS_RESALE_B_TIMEOUT_MS: '300',
      MARKETLENS_DEADLINE_MS: '3000',
      ...env,
    });

  it('every default lookup answers from healthy fakes: tier direct, the upstream requests the fakes saw, valid records', async () => {
    const rows = await runDoctor(config());
    expect(rows.map((r) => r.operation)).toEqual([...OPERATION_NAMES]);
    for (const r of rows) {
      expect(r, r.operation).toMatchObject({ ok: true, code: null, record_valid: true });
      const mp = r.operation.split('.')[0] as keyof FixtureMarketplaces['fakes'];
      // Session warm-ups (home page) are not lookups' requests; everything else the fake saw is counted.
      const seen = m.fakes[mp].requests.filter((q) => q.path !== '/').length;
      if (r.operation === 'watchmarket.finder') {
        expect(r).toMatchObject({ tier: null, upstream_requests: 0, bytes: 0 }); // served from the built-in catalog
      } else if (mp !== 'watchmarket' && mp !== 'resale-a' && mp !== 'resale-b') {
        expect(r.upstream_requests, r.operation).toBe(seen);
      }
      if (r.operation !== 'watchmarket.finder') {
        expect(r.tier, r.operation).toBe('direct');
        expect(r.upstream_requests, r.operation).toBeGreaterThan(0);
        expect(r.bytes, r.operation).toBeGreaterThan(500);
      }
    }
    // Marketplaces with several operations: together they account for every request their fake saw.
    const sum = (...ops: string[]) =>
      rows.filter((r) => ops.includes(r.operation)).reduce((n, r) => n + r.upstream_requests, 0);
    expect(sum('resale-b.prices', 'resale-b.product', 'resale-b.search')).toBe(
      m.fakes['resale-b'].requests.filter((q) => q.path !== '/').length,
    );
    expect(sum('resale-a.search', 'resale-a.product', 'resale-a.trends')).toBe(
      m.fakes['resale-a'].requests.filter((q) => q.path !== '/').length,
    );
    expect(rows.find((r) => r.operation === 'resale-b.prices')!.bytes).toBe(Buffer.byteLength(BUY_BAR_BODY));
    // The sportswear fixture page carries no integer gender: reported as a null field, not hidden.
    expect(rows.find((r) => r.operation === 'sportswear.product')!.null_fields).toContain('gender');
    expect(formatDoctorTable(rows)).toMatch(/All 10 lookups answered\.$/);
  });

  it('a blocked marketplace: upstream_blocked, no tier answered, every attempt counted', async () => {
    mode = 'block';
    const [row] = await runDoctor(config(), { operations: ['resale-b.prices'] });
    expect(row).toMatchObject({
      operation: 'resale-b.prices',
      ok: false,
      code: 'upstream_blocked',
      tier: null,
      upstream_requests: 2,
      record_valid: null,
    });
    expect(buyBarRequests()).toBe(2);
    expect(row!.bytes).toBe(0); // bytes count answers the fetch layer passed on, not challenge pages
    const table = formatDoctorTable([row!]);
    expect(table).toContain('FAILED upstream_blocked');
    expect(table).toMatch(/1 of 1 lookups failed\.$/);
  });

  it('a marketplace that never answers: upstream_timeout after the attempts', async () => {
    mode = 'hang';
    const [row] = await runDoctor(config(), { operations: ['resale-b.prices'] });
    expect(row).toMatchObject({ ok: false, code: 'upstream_timeout', tier: null, upstream_requests: 2, bytes: 0 });
    expect(row!.ms).toBeGreaterThanOrEqual(600);
  });

  it('a partial answer: ok, with the part whose source was blocked named', async () => {
    // Own fakes: StockX's GraphQL endpoint (market data) blocks; the product page still answers.
    const own = await startFixtureMarketplaces();
    own.fakes['resale-a'].on(
      'POST /api/p/e',
      (_req, res) =>
        void res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify(PERIMETERX_BLOCK)),
    );
    try {
      const [row] = await runDoctor(config(own.env), { operations: ['resale-a.product'] });
      expect(row).toMatchObject({ ok: true, code: null, tier: 'direct', record_valid: true });
      expect(row!.missing_parts!.length).toBeGreaterThan(0);
      expect(row!.null_fields).toEqual(expect.arrayContaining(row!.missing_parts!));
      expect(formatDoctorTable([row!])).toMatch(
        /resale-a\.product\s+ok, partial[\s\S]*↳ missing \(their source failed\): /,
      );
    } finally {
      await own.stop();
    }
  });

  it('a changed format: upstream_changed, though the direct tier got an answer', async () => {
    mode = 'changed';
    const [row] = await runDoctor(config(), { operations: ['resale-b.prices'] });
    expect(row).toMatchObject({ ok: false, code: 'upstream_changed', tier: 'direct', upstream_requests: 1 });
    expect(row!.message).toMatch(/resale-b/);
  });

  it('--tier proxy sends every lookup through the proxy; without proxies each row says the tier is unavailable', async () => {
    const viaProxy = await runDoctor(config({ MARKETLENS_PROXY_URLS: proxy.origin }), {
      tier: 'proxy',
      operations: ['resale-b.prices', 'sportswear.product'],
    });
    expect(viaProxy.map((r) => [r.ok, r.tier])).toEqual([
      [true, 'proxy'],
      [true, 'proxy'],
    ]);
    expect(
      m.fakes['resale-b'].requests
        .filter((r) => r.path === BUY_BAR)
        .every((r) => r.headers['x-via-proxy'] === proxy.origin),
    ).toBe(true);
    const none = await runDoctor(config(), { tier: 'proxy', operations: ['resale-b.prices'] });
    expect(none).toMatchObject([{ ok: false, code: 'tier_unavailable', upstream_requests: 0 }]);
    expect(buyBarRequests()).toBe(1); // only the proxied run reached the fake
  });

  it.runIf(chromiumAvailable)(
    '--tier browser answers through Chromium, and says so',
    async () => {
      const [row] = await runDoctor(
        config({
          MARKETLENS_BROWSER_PATH: chromiumPath,
          MARKETLENS_DEADLINE_MS: '20000',
          // Chromium's first navigation on a loaded CI machine can outlast the 10 s default attempt, and a retry
          // would count a second upstream request.
          MARKETLENS_SPORTSWEAR_TIMEOUT_MS: '15000',
        }),
        {
          tier: 'browser',
          operations: ['sportswear.product'],
        },
      );
      expect(row).toMatchObject({
        operation: 'sportswear.product',
        ok: true,
        tier: 'browser',
        upstream_requests: 1,
        record_valid: true,
      });
      expect(row!.bytes).toBeGreaterThan(10_000);
      const none = await runDoctor(config({ MARKETLENS_BROWSER_PATH: 'none' }), {
        tier: 'browser',
        operations: ['sportswear.product'],
      });
      expect(none).toMatchObject([
        { ok: false, code: 'tier_unavailable', message: expect.stringContaining('MARKETLENS_BROWSER_PATH') },
      ]);
    },
    60_000,
  );

  it('configured parameters replace the defaults', async () => {
    const [row] = await runDoctor(config(), {
      operations: ['sportswear.product'],
      params: { 'sportswear.product': { query: 'AR3565-103' } },
    });
    expect(row!.ok).toBe(true);
    expect(m.fakes.sportswear.requests.some((r) => r.path.endsWith('/AR3565-103'))).toBe(true);
    expect(probeParams(OPERATIONS['sportswear.product']).query).not.toBe('AR3565-103');
  });

  it('the binary: a table, exit 0 when all answer; --json and exit 1 when one fails; exit 2 on a bad --tier', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const env = cleanEnv({
          ...m.env,
          MARKETLENS_API_KEYS: TEST_KEY,
          MARKETLENS_LOG_LEVEL: 'silent',
          MARKETLENS_BROWSER_PATH: 'none',
          MARKETLENS_RETRY_ATTEMPTS: '1',
        });
        const child = spawn(...CLI_COMMAND(['doctor', ...args]), { env });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += String(d)));
        child.stderr.on('data', (d) => (err += String(d)));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    const ok = await run(['resale-b.prices', 'sportswear.product']);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/^operation\s+result\s+tier\s+ms\s+requests\s+bytes\s+valid\s+null fields/);
    expect(ok.out).toMatch(/resale-b\.prices\s+ok\s+direct\s+\d+\s+1\s+\d+\s+yes/);
    mode = 'block';
    const failed = await run(['resale-b.prices', '--json']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.out)).toMatchObject([
      { operation: 'resale-b.prices', ok: false, code: 'upstream_blocked', tier: null, upstream_requests: 1 },
    ]);
    const bad = await run(['--tier', 'carrier-pigeon']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--tier must be one of direct, proxy, unblocker, browser/);
  }, 60_000);
});
