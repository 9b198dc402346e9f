/**
 * Two app instances sharing the real Redis (127.0.0.1:6379, a unique key prefix per run): shared cache, shared
 * in-flight de-duplication, shared rate limits — and what happens when Redis is unreachable or goes away.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_HEARTBEAT_MS } from '../src/cache/redis-flights.js';
import { auth, testApp } from './support/app.js';
import { CLI_COMMAND } from './support/binary.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import { PRICES, startSlowGoat, type SlowGoat } from './support/slow-goat.js';
import { keyStoreAt } from './support/stores.js';
import { TcpProxy } from './support/tcp-proxy.js';

let nextId = 7000;
const freshId = () => String(nextId++);

/** App closes left running beside later tests (see 'Redis unreachable or going away'); all done by the file's end. */
const closing: Promise<unknown>[] = [];
afterAll(async () => {
  await Promise.all(closing);
});

describe.skipIf(!redisAvailable)('Redis unreachable or going away', () => {
  let goat: SlowGoat;
  const apps: FastifyInstance[] = [];
  const prefix = uniquePrefix();

  beforeAll(async () => {
    goat = await startSlowGoat(5);
  });
  afterEach(() => {
    // With Redis unreachable a close waits out BullMQ's bounded shutdown steps (~4 s, src/jobs/bullmq.ts), which
    // nothing here checks: the closes run beside the tests that follow (this block runs first for that), and the
    // file's afterAll waits for them.
    closing.push(...apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await goat?.stop();
    await deletePrefix(prefix);
  });

  const env = (url: string, extra: Record<string, string> = {}) => ({
    MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin,
    MARKETLENS_REDIS_URL: url,
    MARKETLENS_REDIS_PREFIX: prefix,
    MARKETLENS_RATE_LIMIT: '100/min',
    ...extra,
  });

  it('an unreachable Redis: the app starts, lookups answer from upstream, /readyz says redis down', async () => {
    const app = await testApp(env('redis://127.0.0.1:1'));
    apps.push(app);
    const id = freshId();
    const first = await app.inject({ url: `${PRICES}?query=${id}`, headers: auth });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-cache']).toBe('miss');
    // Rate limiting goes on per instance (MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR=allow).
    expect(first.headers['ratelimit-limit']).toBe('100');
    expect(first.headers['ratelimit-remaining']).toBe('99');
    const second = await app.inject({ url: `${PRICES}?query=${id}`, headers: auth });
    expect(second.statusCode).toBe(200);
    expect(second.headers['x-cache']).toBe('miss');
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({
      status: 'degraded',
      checks: { server: 'ok', cache: 'redis', redis: 'down', database: 'ok' },
    });
  });

  it('MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR=deny: requests are refused with 429 and /readyz is 503', async () => {
    const app = await testApp(env('redis://127.0.0.1:1', { MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR: 'deny' }));
    apps.push(app);
    const r = await app.inject({ url: `${PRICES}?query=${freshId()}`, headers: auth });
    expect(r.statusCode).toBe(429);
    expect(JSON.parse(r.body).code).toBe('rate_limited');
    expect(r.headers['retry-after']).toBe('5');
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(JSON.parse(ready.body).checks.redis).toBe('down');
  });

  it('Redis stopping mid-test: lookups still answer, /readyz says so, and recover when it is back', async () => {
    const proxy = await new TcpProxy('127.0.0.1', Number(new URL(TEST_REDIS_URL).port || 6379)).start();
    const port = proxy.port;
    const app = await testApp(env(proxy.url));
    apps.push(app);
    const id = freshId();
    expect((await app.inject({ url: `${PRICES}?query=${id}`, headers: auth })).headers['x-cache']).toBe('miss');
    expect((await app.inject({ url: `${PRICES}?query=${id}`, headers: auth })).headers['x-cache']).toBe('hit');
    expect(JSON.parse((await app.inject({ url: '/readyz' })).body).checks.redis).toBe('ok');

    await proxy.stop();
    const before = goat.count();
    const during = await app.inject({ url: `${PRICES}?query=${id}`, headers: auth });
    expect(during.statusCode).toBe(200);
    expect(during.headers['x-cache']).toBe('miss'); // the cache is gone: a live fetch, never an error
    expect(goat.count() - before).toBe(1);
    expect(during.headers['ratelimit-limit']).toBe('100');
    const other = await app.inject({ url: `${PRICES}?query=${freshId()}`, headers: auth });
    expect(other.statusCode).toBe(200);
    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'degraded', checks: { redis: 'down' } });

    // Back on the same port: the connection returns by itself.
    const back = new TcpProxy('127.0.0.1', Number(new URL(TEST_REDIS_URL).port || 6379));
    await back.startOn(port);
    try {
      await expectEventually(async () => JSON.parse((await app.inject({ url: '/readyz' })).body).checks.redis === 'ok');
      const after = await app.inject({ url: `${PRICES}?query=${id}`, headers: auth });
      expect(after.statusCode).toBe(200);
      expect(after.headers['x-cache']).toBe('hit');
    } finally {
      await app.close();
      apps.splice(apps.indexOf(app), 1);
      await back.stop();
    }
  });
});

describe.skipIf(!redisAvailable)('two instances sharing Redis', () => {
  const prefix = uniquePrefix();
  let goat: SlowGoat;
  let a: FastifyInstance;
  let b: FastifyInstance;

  beforeAll(async () => {
    goat = await startSlowGoat(300);
    const env = {
      MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin,
      MARKETLENS_REDIS_URL: TEST_REDIS_URL,
      MARKETLENS_REDIS_PREFIX: prefix,
      MARKETLENS_RATE_LIMIT: '0',
      // Redis is healthy here: on a busy machine this process can be descheduled past the 500 ms default, and two
      // such timeouts in 5 s mark Redis down, so each instance fetches alone (a second upstream request). Timeouts
      // have their own tests (redis-stall).
      MARKETLENS_REDIS_COMMAND_TIMEOUT_MS: '5000',
    };
    [a, b] = await Promise.all([testApp(env), testApp(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await goat?.stop();
    await deletePrefix(prefix);
  });

  it('B answers from cache what A fetched', async () => {
    const id = freshId();
    const fromA = await a.inject({ url: `${PRICES}?query=${id}`, headers: auth });
    expect(fromA.statusCode).toBe(200);
    expect(fromA.headers['x-cache']).toBe('miss');
    const before = goat.count();
    const fromB = await b.inject({ url: `${PRICES}?query=${id}`, headers: auth });
    expect(fromB.statusCode).toBe(200);
    expect(fromB.headers['x-cache']).toBe('hit');
    expect(fromB.body).toBe(fromA.body);
    expect(fromB.headers['last-modified']).toBe(fromA.headers['last-modified']);
    expect(goat.count()).toBe(before);
  });

  it('50 concurrent identical cold lookups spread over A and B make exactly 1 upstream request', async () => {
    const id = freshId();
    goat.delayMs = 1000; // every request arrives while the one fetch is still running, even on a busy machine
    const before = goat.count();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 === 0 ? a : b).inject({ url: `${PRICES}?query=${id}`, headers: auth }),
      ),
    );
    expect(goat.count() - before).toBe(1);
    expect(results.every((r) => r.statusCode === 200)).toBe(true);
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    const statuses = results.map((r) => r.headers['x-cache']);
    expect(statuses.filter((s) => s === 'miss')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'shared')).toHaveLength(49);
    goat.delayMs = 300;
  });

  it('a failure of the shared fetch reaches the waiting instance without a second upstream fetch', async () => {
    goat.failWith = 500;
    try {
      // The fetch layer may retry a 5xx: measure what one failing lookup costs upstream.
      let c = goat.count();
      await a.inject({ url: `${PRICES}?query=${freshId()}`, headers: auth });
      const oneLookup = goat.count() - c;
      expect(oneLookup).toBeGreaterThan(0);
      const id = freshId();
      c = goat.count();
      const [ra, rb] = await Promise.all([
        a.inject({ url: `${PRICES}?query=${id}`, headers: auth }),
        b.inject({ url: `${PRICES}?query=${id}`, headers: auth }),
      ]);
      expect([ra.statusCode, rb.statusCode]).toEqual([502, 502]);
      expect(JSON.parse(ra.body).code).toBe('upstream_error');
      expect(JSON.parse(rb.body).code).toBe('upstream_error');
      expect(goat.count() - c).toBe(oneLookup);
    } finally {
      goat.failWith = undefined;
    }
  });

  it('a lock left by a dead instance is taken over once it expires (the timeout fallback)', async () => {
    const id = freshId();
    const redis = new Redis(TEST_REDIS_URL);
    try {
      // What a crashed leader leaves behind: the lock, no answer, no notification. It expires before the waiter's
      // first re-try (LOCK_HEARTBEAT_MS after its first try), which takes over: one re-try interval, not two.
      await redis.set(`${prefix}l:resale-b.prices?country=US&query=${id}`, 'dead-leader', 'PX', 800);
      const before = goat.count();
      const started = Date.now();
      const r = await a.inject({ url: `${PRICES}?query=${id}`, headers: auth });
      expect(r.statusCode).toBe(200);
      expect(r.headers['x-cache']).toBe('miss');
      expect(goat.count() - before).toBe(1);
      // The lock was honoured until a re-try found it gone.
      expect(Date.now() - started).toBeGreaterThanOrEqual(LOCK_HEARTBEAT_MS);
      expect(Date.now() - started).toBeLessThan(4000);
    } finally {
      redis.disconnect();
    }
  });

  it('/readyz reports Redis as ok', async () => {
    const r = await a.inject({ url: '/readyz' });
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body)).toEqual({
      status: 'ready',
      checks: { server: 'ok', cache: 'redis', redis: 'ok', database: 'ok' },
    });
  });
});

describe.skipIf(!redisAvailable)('a rate limit shared through Redis', () => {
  const prefix = uniquePrefix();
  const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-redis-'));
  let goat: SlowGoat;
  let a: FastifyInstance;
  let b: FastifyInstance;

  beforeAll(async () => {
    goat = await startSlowGoat(5);
    // One data directory (keys) for both instances, as behind a load balancer with shared configuration.
    const env = {
      MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin,
      MARKETLENS_REDIS_URL: TEST_REDIS_URL,
      MARKETLENS_REDIS_PREFIX: prefix,
      MARKETLENS_RATE_LIMIT: '4/min',
      MARKETLENS_DAILY_QUOTA: '100',
      MARKETLENS_DATA_DIR: dataDir,
    };
    [a, b] = await Promise.all([testApp(env), testApp(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await goat?.stop();
    await deletePrefix(prefix);
  });

  it('counts requests to A and B against one limit', async () => {
    const id = freshId();
    const seq = [a, b, a, b, a, b];
    const results = [];
    for (const app of seq) results.push(await app.inject({ url: `${PRICES}?query=${id}`, headers: auth }));
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(results.slice(0, 4).map((r) => r.headers['ratelimit-remaining'])).toEqual(['3', '2', '1', '0']);
    expect(JSON.parse(results[5]!.body).code).toBe('rate_limited');
    expect(Number(results[5]!.headers['retry-after'])).toBeGreaterThan(0);
    // Usage is shared too: 4 served requests (the refused ones are not usage).
    const usage = JSON.parse((await b.inject({ url: '/api/v1/usage', headers: auth })).body);
    expect(usage).toMatchObject({
      limit: 4,
      remaining: 0,
      daily: { limit: 100, used: 4, remaining: 96 },
      monthly: { limit: null, used: 4 },
    });
  });

  it('`marketlens keys list` shows the usage counted by both instances', async () => {
    const seeded = await keyStoreAt({ dataDir });
    const key = await seeded.keys.create('shown', { daily_quota: 50 });
    await seeded.close();
    // Both servers follow key changes by polling; don't wait for the next poll.
    await Promise.all([a.marketlens.keys.refresh(), b.marketlens.keys.refresh()]);
    expect(
      (await a.inject({ url: `${PRICES}?query=${freshId()}`, headers: { 'x-api-key': key.key } })).statusCode,
    ).toBe(200);
    expect(
      (await b.inject({ url: `${PRICES}?query=${freshId()}`, headers: { 'x-api-key': key.key } })).statusCode,
    ).toBe(200);
    // The durable counts reach the database within a flush interval; spawnSync below blocks this process's timers.
    await Promise.all([a.marketlens.limits.ledger.flush(), b.marketlens.limits.ledger.flush()]);
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MARKETLENS_')));
    const cli = spawnSync(...CLI_COMMAND(['keys', 'list']), {
      env: {
        ...clean,
        MARKETLENS_DATA_DIR: dataDir,
        MARKETLENS_REDIS_URL: TEST_REDIS_URL,
        MARKETLENS_REDIS_PREFIX: prefix,
        MARKETLENS_LOG_LEVEL: 'warn',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status, cli.stderr).toBe(0);
    const rows = JSON.parse(cli.stdout) as Record<string, unknown>[];
    expect(rows.find((r) => r.id === key.record.id)).toMatchObject({
      daily_quota: 50,
      used_today: 2,
      used_this_month: 2,
    });
  });
});

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
