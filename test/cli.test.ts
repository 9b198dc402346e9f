/**
 * The `marketlens` binary as a user runs it: serve (first start prints a key once), keys, lookup, parse.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from './support/fake-upstream.js';
import { sharedAvailable, sharedDir } from './support/shared.js';
import { CLI_COMMAND, cleanEnv, runCli, startServe } from './support/binary.js';
import { productSchema } from '../src/marketplaces/sportswear/schema.js';
import type { PriceEntry } from '../src/marketplaces/resale-b/schema.js';
import { REPO_ROOT } from './support/repo-root.js';
import { openStore } from '../src/store/index.js';

const env = (extra: Record<string, string>) => cleanEnv({ MARKETLENS_LOG_LEVEL: 'warn', ...extra });
const serve = (extra: Record<string, string>) => startServe({ MARKETLENS_LOG_LEVEL: 'info', ...extra });

function run(args: string[], extra: Record<string, string> = {}) {
  const [cmd, argv] = CLI_COMMAND(args);
  const r = spawnSync(cmd, argv, { env: env(extra), encoding: 'utf8', timeout: 60_000, cwd: tmpdir() });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Like run, but without blocking this process (needed when the fake upstream lives in this process). */
const runAsync = (args: string[], extra: Record<string, string> = {}) =>
  runCli(args, { MARKETLENS_LOG_LEVEL: 'warn', ...extra });

/** The fields of a product in the Nike page's initialState.Threads that the parse test compares against. */
interface ThreadsProduct {
  id: string;
  currentPrice: number;
  fullPrice: number;
  employeePrice: number;
  colorDescription: string;
  skus: Array<{ nikeSize: string; localizedSize: string; gtin: string }>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('marketlens serve', () => {
  const goat = new FakeUpstream();
  beforeAll(() => goat.start());
  afterAll(() => goat.stop());

  it('prints a generated key once on first start, serves lookups with it, and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-cli-'));
    const port = await freePort();
    goat.serve('/web-api/v1/product_variants/buy_bar_data', [
      {
        sizeOption: { presentation: '8', value: 8 },
        shoeCondition: 'new_no_defects',
        boxCondition: 'good_condition',
        lowestPriceCents: { currency: 'USD', amount: 9900, amountUsdCents: 9900 },
        instantShipLowestPriceCents: { currency: 'USD' },
        lastSoldPriceCents: { currency: 'USD', amount: 9000, amountUsdCents: 9000 },
        stockStatus: 'single_in_stock',
      },
    ]);
    const vars = {
      MARKETLENS_DATA_DIR: dataDir,
      MARKETLENS_PORT: String(port),
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      // No drain period before closing (its timing is test/shutdown.test.ts's): exit 0 on SIGTERM is the point here.
      MARKETLENS_SHUTDOWN_DELAY_MS: '0',
    };

    const first = await serve(vars);
    const key = first.out().match(/\b(ml_[A-Za-z0-9_-]{43})\b/)?.[1];
    expect(key, first.out()).toBeDefined();
    // Outside a checkout the installed command's name; in one (or under npm start) `npm run marketlens -- keys`.
    expect(first.out()).toContain('Manage keys with `marketlens keys`.');
    // Only its hash is stored: no file of the data directory (the database and its WAL) holds the key.
    const files = readdirSync(dataDir);
    expect(files).toContain('marketlens.db');
    for (const f of files) expect(readFileSync(join(dataDir, f)).includes(key!)).toBe(false);
    const base = `http://127.0.0.1:${port}`;
    const ok = await fetch(`${base}/api/v1/scraper/resale-b/prices?query=1341930`, { headers: { 'x-api-key': key! } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as PriceEntry[])[0]!.sizeOption).toEqual({ presentation: '8', value: 8 });
    expect((await fetch(`${base}/api/v1/scraper/resale-b/prices?query=1341930`)).status).toBe(401);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.out()).not.toContain(`"${key}`); // the key is never part of a log line

    const second = await serve(vars);
    expect(second.out()).not.toMatch(/ml_[A-Za-z0-9_-]{43}/);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 90_000);
});

describe('marketlens --version', () => {
  it("prints package.json's version, as /healthz reports it", () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const r = run([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
  });
});

describe('marketlens keys', () => {
  it('creates, lists (without key material) and revokes keys', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-cli-'));
    const created = run(['keys', 'create', '--name', 'alice', '--rate', '600/min'], { MARKETLENS_DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    const { id, key } = JSON.parse(created.stdout);
    expect(key).toMatch(/^ml_/);
    const listed = run(['keys', 'list'], { MARKETLENS_DATA_DIR: dataDir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ id, name: 'alice', status: 'active', rate_limit: '600/min' }),
    ]);
    expect(run(['keys', 'revoke', id], { MARKETLENS_DATA_DIR: dataDir }).code).toBe(0);
    expect(JSON.parse(run(['keys', 'list'], { MARKETLENS_DATA_DIR: dataDir }).stdout)[0].status).toBe('revoked');
    expect(run(['keys', 'revoke', 'nope'], { MARKETLENS_DATA_DIR: dataDir }).code).toBe(1);
  }, 60_000);

  it('lists as a table on request (the default on a terminal) and as JSON with --json (the default in a pipe)', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-cli-'));
    const { id, key } = JSON.parse(
      run(['keys', 'create', '--name', 'bob', '--daily', '5'], { MARKETLENS_DATA_DIR: dataDir }).stdout,
    );
    const table = run(['keys', 'list', '--table'], { MARKETLENS_DATA_DIR: dataDir });
    expect(table.code).toBe(0);
    expect(table.stdout).not.toContain(key);
    const [header, row, ...more] = table.stdout.trimEnd().split('\n');
    expect(more).toEqual([]);
    expect(header!.split(/\s+/)).toEqual([
      'id',
      'name',
      'prefix',
      'source',
      'status',
      'created_at',
      'revoked_at',
      'rate_limit',
      'daily_quota',
      'monthly_quota',
      'used_today',
      'used_this_month',
    ]);
    // Each value starts under its column's name.
    const cell = (name: string) => row!.slice(header!.indexOf(name)).split(/\s+/)[0];
    expect(cell('id')).toBe(id);
    expect(cell('name')).toBe('bob');
    expect(cell('status')).toBe('active');
    expect(cell('revoked_at')).toBe('-');
    expect(cell('daily_quota')).toBe('5');
    const json = run(['keys', 'list', '--json'], { MARKETLENS_DATA_DIR: dataDir });
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ id, name: 'bob', daily_quota: 5 })]);
    expect(run(['keys', 'list', '--json', '--table'], { MARKETLENS_DATA_DIR: dataDir }).code).toBe(2);
  }, 60_000);
});

describe('marketlens track', () => {
  it('adds, lists, pauses, resumes and removes tracked products, in snake_case as every other listing', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-cli-'));
    const added = run(['track', 'add', 'resale-b.prices', 'query=1341930', '--interval', '15m', '--json'], {
      MARKETLENS_DATA_DIR: dataDir,
    });
    expect(added.code, added.stderr).toBe(0);
    const job = JSON.parse(added.stdout);
    expect(job).toMatchObject({ operation: 'resale-b.prices', params: { query: '1341930' }, interval: 900 });
    const listed = JSON.parse(run(['track', 'list'], { MARKETLENS_DATA_DIR: dataDir }).stdout);
    expect(listed).toEqual([job]);
    for (const name of Object.keys(job)) expect(name).toMatch(/^[a-z_]+$/);
    expect(Object.keys(job)).toEqual(
      expect.arrayContaining(['next_run_at', 'last_run_at', 'last_error', 'created_at']),
    );
    expect(Date.parse(job.next_run_at)).toBeGreaterThan(0);
    const table = run(['track', 'list', '--table'], { MARKETLENS_DATA_DIR: dataDir }).stdout.split('\n');
    expect(table[0]).toMatch(/^id\s+operation\s+params\s+interval\s+next_run_at\s/);
    expect(table[1]).toContain(JSON.stringify(job.params));

    // Paused and resumed: the job printed as `track list` prints it.
    const paused = run(['track', 'pause', job.id, '--json'], { MARKETLENS_DATA_DIR: dataDir });
    expect(paused.code, paused.stderr).toBe(0);
    expect(JSON.parse(paused.stdout)).toEqual([{ ...job, next_run_at: null, paused: true }]);
    const resumed = run(['track', 'resume', job.id, '--table'], { MARKETLENS_DATA_DIR: dataDir }).stdout.split('\n');
    expect(resumed[0]).toBe(table[0]);
    expect(resumed[1]).toMatch(new RegExp(`^${job.id}\\s.*\\sfalse\\s`));
    expect(JSON.parse(run(['track', 'list'], { MARKETLENS_DATA_DIR: dataDir }).stdout)).toEqual([
      { ...job, next_run_at: expect.any(String), paused: false },
    ]);
    expect(run(['track', 'pause', 'no-such-id'], { MARKETLENS_DATA_DIR: dataDir }).code).toBe(1);
    expect(run(['track', 'remove', job.id], { MARKETLENS_DATA_DIR: dataDir }).code).toBe(0);
    expect(run(['track', 'list', '--table'], { MARKETLENS_DATA_DIR: dataDir }).stdout.trim()).toBe('(none)');
  }, 60_000);
});

describe('marketlens lookup / parse', () => {
  const goat = new FakeUpstream();
  beforeAll(() => goat.start());
  afterAll(() => goat.stop());

  it('lookup runs one operation live and prints the record', async () => {
    goat.serve('/web-api/v1/product_variants/buy_bar_data', [
      {
        sizeOption: { presentation: '11', value: 11 },
        shoeCondition: 'used',
        boxCondition: 'no_original_box',
        lowestPriceCents: { currency: 'EUR', amount: 12000, amountUsdCents: 13000 },
        instantShipLowestPriceCents: { currency: 'EUR' },
        lastSoldPriceCents: { currency: 'EUR', amount: 11000, amountUsdCents: 11900 },
        stockStatus: 'single_in_stock',
      },
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), 'ml-'));
    // Three independent processes, started together.
    const [r, bad, unknown] = await Promise.all([
      runAsync(['lookup', 'resale-b.prices', 'query=1341930', 'country=FR'], {
        MARKETLENS_RESALE_B_ORIGIN: goat.origin,
        MARKETLENS_DATA_DIR: dataDir,
      }),
      runAsync(['lookup', 'resale-b.prices', 'query=1', 'country=DE']),
      runAsync(['lookup', 'no.such-op']),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0].lowestPriceCents).toEqual({ currency: 'EUR', amount: 12000, amountUsdCents: 13000 });
    // One price request, for FR (the refused DE lookup sent nothing).
    const prices = goat.requests.filter((q) => q.path === '/web-api/v1/product_variants/buy_bar_data');
    expect(prices.map((q) => q.query.get('countryCode'))).toEqual(['FR']);
    // Run through the service's core, the live fetch is in the price history as a server's would be.
    const store = await openStore({ dataDir });
    try {
      const rows = await store.db.selectFrom('history_prices').select(['amount', 'currency', 'size']).execute();
      expect(rows).toContainEqual({ amount: 120, currency: 'EUR', size: '11' });
    } finally {
      await store.close();
    }
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('country');
    expect(unknown.stderr).toContain('Unknown operation');
  }, 60_000);

  it('parse fails with a clear message and non-zero exit on a payload it cannot parse', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ml-')), 'bad.json');
    writeFileSync(file, '{"not":"an array"}');
    const r = run(['parse', 'resale-b.prices', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('upstream_changed');
  }, 30_000);

  describe.skipIf(!sharedAvailable)('on the real capture', () => {
    it('parse resale-b.prices prints every §2.3 field, omitting amount exactly where upstream has none', () => {
      const capture = sharedDir('goat/dewuapiparser_goat_1341930_buy_bar_data.json');
      const r = run(['parse', 'resale-b.prices', capture]);
      expect(r.code, r.stderr).toBe(0);
      const entries = JSON.parse(r.stdout) as PriceEntry[];
      const upstream = JSON.parse(readFileSync(capture, 'utf8')) as PriceEntry[];
      expect(entries).toHaveLength(upstream.length);
      entries.forEach((e, i) => {
        expect(Object.keys(e).sort()).toEqual([
          'boxCondition',
          'instantShipLowestPriceCents',
          'lastSoldPriceCents',
          'lowestPriceCents',
          'shoeCondition',
          'sizeOption',
          'stockStatus',
        ]);
        expect(typeof e.sizeOption.value).toBe('number');
        expect(typeof e.sizeOption.presentation).toBe('string');
        for (const k of ['stockStatus', 'boxCondition', 'shoeCondition'] as const) expect(typeof e[k]).toBe('string');
        expect(Number.isInteger(e.lastSoldPriceCents.amount)).toBe(true);
        expect(Number.isInteger(e.lastSoldPriceCents.amountUsdCents)).toBe(true);
        for (const k of ['lowestPriceCents', 'instantShipLowestPriceCents', 'lastSoldPriceCents'] as const) {
          expect(typeof e[k].currency).toBe('string');
          expect('amount' in e[k]).toBe('amount' in upstream[i]![k]);
          if ('amount' in e[k]) expect(e[k].amount).toBe(upstream[i]![k].amount);
        }
      });
      // The capture has both kinds: priced and unpriced instant-ship entries.
      expect(entries.some((e) => !('amount' in e.instantShipLowestPriceCents))).toBe(true);
    }, 30_000);

    it('parse sportswear.product on the real 2023 Nike page (initialState.Threads) prints a valid 2.7 record (issue 19)', () => {
      const page = sharedDir('nike/pdp-2023-09_id_DZ6333-083_initialState-threads.html');
      const r = run(['parse', 'sportswear.product', page]);
      expect(r.code, r.stderr).toBe(0);
      const record = productSchema.strict().parse(JSON.parse(r.stdout));
      // Values as the page's initialState.Threads.products["DZ6333-083"] holds them.
      const html = readFileSync(page, 'utf8');
      const next = JSON.parse(
        html.match(/<script id="__NEXT_DATA__" type="application\/json">([\s\S]*?)<\/script>/)![1]!,
      );
      const p = next.props.pageProps.initialState.Threads.products['DZ6333-083'] as ThreadsProduct;
      expect(record).toMatchObject({
        id: p.id,
        style_color: 'DZ6333-083',
        style_code: 'DZ6333',
        color_code: '083',
        brands: ['Jordan'],
        sport_tags: ['Lifestyle'],
        prices: {
          currency: 'IDR',
          current_price: p.currentPrice,
          initial_price: p.fullPrice,
          employee_price: p.employeePrice,
          discount_percentage: null,
        },
        badge: null,
        gender: null,
        enhanced_pdp: null,
      });
      expect(record.product_info).toMatchObject({
        title: 'Air Jordan 1 Low SE',
        subtitle: "Older Kids' Shoes",
        full_title: "Air Jordan 1 Low SE Older Kids' Shoes",
        color_description: p.colorDescription,
        product_type: 'FOOTWEAR',
        manufacturing_countries_of_origin: ['Vietnam'],
        size_chart_url: 'https://www.nike.com/id/size-fit/kids-footwear',
        status_modifier: null,
      });
      expect(record.sizes.map((s) => [s.label, s.localized_label, s.gtins?.[0]?.gtin])).toEqual(
        p.skus.map((s) => [s.nikeSize, s.localizedSize, s.gtin]),
      );
      expect(record.product_info.content_images!.length).toBeGreaterThan(0);
      expect(record.product_info.content_images![0]!.properties!.portrait!.url).toMatch(
        /^https:\/\/static\.nike\.com\//,
      );
    }, 30_000);
  });
});
