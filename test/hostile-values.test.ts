/**
 * Smaller hostile-upstream cases (issue 20, item 8): an upstream `Retry-After: 99999` is capped before it reaches the
 * client, and invalid UTF-8 inside a value (a currency code that decodes to `US\uFFFD\uFFFD`) is upstream_changed
 * naming the field, never a record carrying replacement characters.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_SECONDS, retryAfterSeconds } from '../src/upstream/retry.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { BUY_BAR, PRICES, buyBarFor } from './support/slow-goat.js';

describe('hostile values from an upstream', () => {
  const goat = new FakeUpstream();
  let app: FastifyInstance;

  beforeAll(async () => {
    await goat.start();
    app = await testApp({
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_BREAKER_THRESHOLD: '10000',
      MARKETLENS_RETRY_BASE_MS: '0',
    });
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
  });
  beforeEach(() => goat.reset());

  it('an upstream Retry-After of 99999 s reaches the client capped at 1 h', async () => {
    goat.on(
      BUY_BAR,
      (_req, res) => void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '99999' }).end('{}'),
    );
    const res = await app.inject({ url: `${PRICES}?query=4101&country=US`, headers: auth });
    expectProblem(res, 503, 'upstream_blocked');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(3600);
  });

  it('caps delta-seconds and far HTTP dates alike', () => {
    expect(retryAfterSeconds('99999')).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryAfterSeconds(new Date(Date.now() + 86_400_000).toUTCString())).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryAfterSeconds('30')).toBe(30);
  });

  it('invalid UTF-8 inside a currency code → 502 upstream_changed naming the field', async () => {
    goat.on(BUY_BAR, (req, res) => {
      const json = JSON.stringify(buyBarFor(req.query.get('productTemplateId') ?? '0'));
      // "US" followed by two bytes that are not UTF-8, where "USD" was.
      const at = json.indexOf('"USD"');
      const bytes = Buffer.concat([
        Buffer.from(json.slice(0, at + 3)),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(json.slice(at + 4)),
      ]);
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(bytes);
    });
    const res = await app.inject({ url: `${PRICES}?query=4102&country=US`, headers: auth });
    const body = expectProblem(res, 502, 'upstream_changed');
    expect(body.detail).toMatch(/currency/);
    expect(res.body).not.toContain('\uFFFD');
  });
});
