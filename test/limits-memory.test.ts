/**
 * Per-key rate limits and quotas in memory mode (CONTRACT §2): RateLimit-* headers on every authenticated answer
 * (errors too), 429 rate_limited / quota_exceeded with Retry-After, a key's own limits winning over the defaults,
 * GET /api/v1/usage, and usage counts surviving a restart and shown by `marketlens keys list`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../src/keys/key-store.js';
import { readUsageCounts } from '../src/limits/usage-report.js';
import { TEST_KEY, auth, testApp } from './support/app.js';
import { CLI_COMMAND } from './support/binary.js';
import { PRICES, startSlowGoat, type SlowGoat } from './support/slow-goat.js';
import { keyStoreAt } from './support/stores.js';

let goat: SlowGoat;
let nextId = 9000;
const lookup = () => `${PRICES}?query=${nextId++}`;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  goat = await startSlowGoat(1);
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await goat.stop();
});

async function app(env: Record<string, string> = {}, dataDir = mkdtempSync(join(tmpdir(), 'marketlens-limits-'))) {
  const a = await testApp({ MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin, MARKETLENS_DATA_DIR: dataDir, ...env });
  apps.push(a);
  return a;
}

type Res = Awaited<ReturnType<FastifyInstance['inject']>>;
const rl = (r: Res) => [r.headers['ratelimit-limit'], r.headers['ratelimit-remaining'], r.headers['ratelimit-reset']];
const envKeyId = `env-${hashKey(TEST_KEY).toString('hex').slice(0, 8)}`;

describe('rate limit', () => {
  it('counts down in RateLimit-* headers, then answers 429 rate_limited with Retry-After', async () => {
    const a = await app({ MARKETLENS_RATE_LIMIT: '3/min' });
    const results: Res[] = [];
    for (let i = 0; i < 4; i++) results.push(await a.inject({ url: lookup(), headers: auth }));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
    expect(results.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3', '3']);
    expect(results.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    for (const r of results) {
      const reset = Number(r.headers['ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(0);
      expect(reset).toBeLessThanOrEqual(60);
    }
    const refused = results[3]!;
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 429, code: 'rate_limited', error: 'rate_limited' });
    expect(JSON.parse(refused.body).detail).toMatch(/3\/min/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('error answers of authenticated requests carry the headers too; unauthenticated ones do not count', async () => {
    const a = await app({ MARKETLENS_RATE_LIMIT: '10/min' });
    const bad = await a.inject({ url: `${PRICES}?query=abc`, headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(rl(bad)).toEqual(['10', '9', expect.any(String)]);
    const anonymous = await a.inject({ url: lookup() });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['ratelimit-limit']).toBeUndefined();
    const next = await a.inject({ url: lookup(), headers: auth });
    expect(next.headers['ratelimit-remaining']).toBe('8');
  });

  it('a cache hit counts like any request', async () => {
    const a = await app({ MARKETLENS_RATE_LIMIT: '2/min' });
    const url = lookup();
    const r = [
      await a.inject({ url, headers: auth }),
      await a.inject({ url, headers: auth }),
      await a.inject({ url, headers: auth }),
    ];
    expect(r.map((x) => x.headers['x-cache'] ?? x.statusCode)).toEqual(['miss', 'hit', 429]);
  });

  it("a key's own rate_limit wins over MARKETLENS_RATE_LIMIT; 0 means unlimited (no RateLimit headers)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-limits-'));
    const store = await keyStoreAt({ dataDir });
    const fast = (await store.keys.create('fast', { rate_limit: '5/s' })).key;
    const open = (await store.keys.create('open', { rate_limit: '0' })).key;
    await store.close();
    const a = await app({ MARKETLENS_RATE_LIMIT: '1/min' }, dataDir);
    const rf = await a.inject({ url: lookup(), headers: { 'x-api-key': fast } });
    expect(rl(rf)).toEqual(['5', '4', expect.any(String)]);
    expect(Number(rf.headers['ratelimit-reset'])).toBeLessThanOrEqual(1);
    for (let i = 0; i < 3; i++) {
      const ro = await a.inject({ url: lookup(), headers: { 'x-api-key': open } });
      expect(ro.statusCode).toBe(200);
      expect(ro.headers['ratelimit-limit']).toBeUndefined();
    }
    // The default applies to the configured key, and limits are per key.
    expect((await a.inject({ url: lookup(), headers: auth })).statusCode).toBe(200);
    expect((await a.inject({ url: lookup(), headers: auth })).statusCode).toBe(429);
    expect((await a.inject({ url: lookup(), headers: { 'x-api-key': fast } })).statusCode).toBe(200);
  });
});

describe('quotas', () => {
  it('a daily quota: headers describe it once it is closest to exhaustion; then 429 quota_exceeded until UTC midnight', async () => {
    const a = await app({ MARKETLENS_RATE_LIMIT: '100/min', MARKETLENS_DAILY_QUOTA: '2' });
    const r1 = await a.inject({ url: lookup(), headers: auth });
    const r2 = await a.inject({ url: lookup(), headers: auth });
    const r3 = await a.inject({ url: lookup(), headers: auth });
    expect([r1.statusCode, r2.statusCode, r3.statusCode]).toEqual([200, 200, 429]);
    const toMidnight = Math.ceil((new Date().setUTCHours(24, 0, 0, 0) - Date.now()) / 1000);
    expect(rl(r1)).toEqual(['2', '1', expect.any(String)]);
    expect(Math.abs(Number(r1.headers['ratelimit-reset']) - toMidnight)).toBeLessThanOrEqual(2);
    expect(rl(r3)).toEqual(['2', '0', expect.any(String)]);
    expect(JSON.parse(r3.body)).toMatchObject({ status: 429, code: 'quota_exceeded' });
    expect(JSON.parse(r3.body).detail).toMatch(/Daily quota of 2 requests/);
    expect(Math.abs(Number(r3.headers['retry-after']) - toMidnight)).toBeLessThanOrEqual(2);
    // Refused requests are not usage.
    const usage = JSON.parse((await a.inject({ url: '/api/v1/usage', headers: auth })).body);
    expect(usage.daily).toMatchObject({ limit: 2, used: 2, remaining: 0 });
  });

  it("a key's own monthly quota wins over MARKETLENS_MONTHLY_QUOTA", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-limits-'));
    const store = await keyStoreAt({ dataDir });
    const key = (await store.keys.create('small', { monthly_quota: 1 })).key;
    await store.close();
    const a = await app({ MARKETLENS_MONTHLY_QUOTA: '1000' }, dataDir);
    expect((await a.inject({ url: lookup(), headers: { 'x-api-key': key } })).statusCode).toBe(200);
    const over = await a.inject({ url: lookup(), headers: { 'x-api-key': key } });
    expect(over.statusCode).toBe(429);
    expect(JSON.parse(over.body).detail).toMatch(/Monthly quota of 1 requests/);
    expect((await a.inject({ url: lookup(), headers: auth })).statusCode).toBe(200);
  });
});

/** The parts of a /api/v1/usage answer that move with the clock. */
interface UsageAnswer {
  reset: number;
  daily: { reset: number };
  monthly: { reset: number };
}

describe('GET /api/v1/usage', () => {
  it("answers the caller's own limits and usage, without counting itself", async () => {
    const a = await app({ MARKETLENS_RATE_LIMIT: '60/min', MARKETLENS_DAILY_QUOTA: '1000' });
    await a.inject({ url: lookup(), headers: auth });
    await a.inject({ url: `${PRICES}?query=bad`, headers: auth });
    const first = await a.inject({ url: '/api/v1/usage', headers: auth });
    const second = await a.inject({ url: '/api/v1/usage', headers: auth });
    expect(first.statusCode).toBe(200);
    const body = JSON.parse(first.body);
    expect(body).toEqual({
      plan: '60/min, 1000/day',
      rate_limit: '60/min',
      limit: 60,
      remaining: 58,
      reset: expect.any(Number),
      daily: {
        limit: 1000,
        used: 2,
        remaining: 998,
        reset: expect.any(Number),
        reset_at: expect.stringMatching(/T00:00:00\.000Z$/),
      },
      monthly: {
        limit: null,
        used: 2,
        remaining: null,
        reset: expect.any(Number),
        reset_at: expect.stringMatching(/-01T00:00:00\.000Z$/),
      },
    });
    // The second call counted nothing: the same answer, but for the seconds to each reset, which may have ticked.
    const again = JSON.parse(second.body) as UsageAnswer;
    const withoutResets = (u: UsageAnswer) => ({
      ...u,
      reset: 0,
      daily: { ...u.daily, reset: 0 },
      monthly: { ...u.monthly, reset: 0 },
    });
    expect(withoutResets(again)).toEqual(withoutResets(body));
    for (const part of ['daily', 'monthly'] as const) expect(body[part].reset - again[part].reset).toBeOneOf([0, 1]);
    expect(rl(first)).toEqual(['60', '58', expect.any(String)]);
  });

  it('requires a key', async () => {
    const a = await app();
    const r = await a.inject({ url: '/api/v1/usage' });
    expect(r.statusCode).toBe(401);
    expect(JSON.parse(r.body).code).toBe('missing_api_key');
    expect((await a.inject({ url: '/api/v1/usage', headers: { 'x-api-key': 'ml_wrong' } })).statusCode).toBe(401);
  });

  it('is documented in the OpenAPI document with its schema and the key requirement', async () => {
    const a = await app();
    const doc = JSON.parse((await a.inject({ url: '/openapi.json' })).body);
    const op = doc.paths['/api/v1/usage'].get;
    expect(op.security).toEqual([{ apiKey: [] }]);
    const schema = op.responses['200'].content['application/json'].schema;
    const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(Object.keys(resolved.properties).sort()).toEqual([
      'daily',
      'limit',
      'monthly',
      'plan',
      'rate_limit',
      'remaining',
      'reset',
    ]);
  });
});

describe('usage across restarts and in `marketlens keys list`', () => {
  it('memory mode writes usage to the database; a restarted app and the CLI read it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-limits-'));
    const a = await app({ MARKETLENS_DAILY_QUOTA: '3' }, dataDir);
    for (let i = 0; i < 2; i++) expect((await a.inject({ url: lookup(), headers: auth })).statusCode).toBe(200);
    await a.close();
    const store = await keyStoreAt({ dataDir });
    expect((await readUsageCounts(store.store.db, [envKeyId])).get(envKeyId)).toEqual({
      used_today: 2,
      used_this_month: 2,
    });
    await store.close();

    const b = await app({ MARKETLENS_DAILY_QUOTA: '3' }, dataDir);
    expect((await b.inject({ url: lookup(), headers: auth })).statusCode).toBe(200);
    expect((await b.inject({ url: lookup(), headers: auth })).statusCode).toBe(429);
    await b.close();

    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MARKETLENS_')));
    const cli = spawnSync(...CLI_COMMAND(['keys', 'list']), {
      env: { ...clean, MARKETLENS_DATA_DIR: dataDir, MARKETLENS_API_KEYS: TEST_KEY, MARKETLENS_LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status, cli.stderr).toBe(0);
    const rows = JSON.parse(cli.stdout) as Record<string, unknown>[];
    expect(rows.find((r) => r.id === envKeyId)).toMatchObject({ used_today: 3, used_this_month: 3, daily_quota: null });
  });
});
