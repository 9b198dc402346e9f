/**
 * A stalled Redis (issue 20, item 4): a server that keeps its TCP connections but never answers (redis-server under
 * SIGSTOP) costs a few slow lookups, not 2 s on every lookup; /readyz reads degraded while it is stalled and ready
 * again once it answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, testApp } from './support/app.js';
import { closedPort } from './support/ports.js';
import { pingRedis, uniquePrefix } from './support/redis.js';
import { PRICES, startSlowGoat, type SlowGoat } from './support/slow-goat.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a stalled Redis', () => {
  let redis: ChildProcess;
  let url = '';
  let goat: SlowGoat;
  let app: FastifyInstance;

  beforeAll(async () => {
    // A private redis-server, so stopping it disturbs no other suite.
    const port = await closedPort();
    url = `redis://127.0.0.1:${port}`;
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const until = Date.now() + 10_000;
    while (!(await pingRedis(url, 500))) {
      if (Date.now() > until || redis.exitCode !== null)
        throw new Error('redis-server did not start (is it installed?)');
      await sleep(100);
    }
    goat = await startSlowGoat(0);
    app = await testApp({
      MARKETLENS_REDIS_URL: url,
      MARKETLENS_REDIS_PREFIX: uniquePrefix(),
      MARKETLENS_RESALE_B_ORIGIN: goat.upstream.origin,
    });
  });
  afterAll(async () => {
    redis?.kill('SIGCONT');
    await app?.close();
    await goat?.stop();
    redis?.kill('SIGKILL');
  });

  it('costs a few slow lookups, then lookups answer fast; /readyz degraded meanwhile, ready after', async () => {
    let id = 3000;
    const lookup = async () => {
      const t0 = Date.now();
      const res = await app.inject({ url: `${PRICES}?query=${id++}&country=US`, headers: auth });
      return { status: res.statusCode, ms: Date.now() - t0 };
    };
    expect((await lookup()).status).toBe(200);
    expect((await app.inject({ url: '/readyz' })).json()).toMatchObject({ status: 'ready', checks: { redis: 'ok' } });

    redis.kill('SIGSTOP');
    const during: Array<{ status: number; ms: number }> = [];
    for (let i = 0; i < 20; i++) during.push(await lookup());
    expect(during.map((d) => d.status)).toEqual(Array(20).fill(200));
    // Before: every one waited out the command timeouts (2 s each, 40 s in all).
    const slow = during.filter((d) => d.ms > 300);
    expect(slow.length).toBeLessThanOrEqual(3);
    expect(during.slice(-10).every((d) => d.ms < 300)).toBe(true);
    const t0 = Date.now();
    const ready = await app.inject({ url: '/readyz' });
    expect(Date.now() - t0).toBeLessThan(300);
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'degraded', checks: { redis: 'down' } });

    redis.kill('SIGCONT');
    const until = Date.now() + 10_000;
    let back: unknown;
    while (Date.now() < until) {
      back = (await app.inject({ url: '/readyz' })).json();
      if ((back as { status: string }).status === 'ready') break;
      await sleep(200);
    }
    expect(back).toMatchObject({ status: 'ready', checks: { redis: 'ok' } });
    expect((await lookup()).status).toBe(200);
  }, 60_000);
});
