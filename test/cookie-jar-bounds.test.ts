/**
 * The cookie jar stays bounded against a hostile upstream (issue 20, item 3): an upstream setting 50 new cookies per
 * answer no longer grows every request's Cookie header without end, and an upstream refusing our headers as too large
 * (431, or nginx's 400 "Request Header Or Cookie Too Large") gets a fresh session instead of failing for ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, MAX_COOKIE_BYTES, MAX_PER_DOMAIN, MAX_TOTAL } from '../src/upstream/cookie-jar.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { BUY_BAR, PRICES, buyBarFor } from './support/slow-goat.js';

const GOAT = 'https://www.goat.com/';

describe('cookie jar bounds', () => {
  it('keeps at most MAX_PER_DOMAIN cookies per domain, evicting the oldest', () => {
    const jar = new CookieJar();
    for (let i = 0; i < 500; i++) jar.setCookie(`c${i}=v${i}; Path=/`, GOAT);
    expect(jar.size).toBe(MAX_PER_DOMAIN);
    expect(jar.get('c0', GOAT)).toBeUndefined();
    expect(jar.get('c319', GOAT)).toBeUndefined();
    expect(jar.get('c320', GOAT)).toBe('v320');
    expect(jar.get('c499', GOAT)).toBe('v499');
  });

  it('keeps at most MAX_TOTAL cookies across domains', () => {
    const jar = new CookieJar();
    for (let d = 0; d < 40; d++) for (let i = 0; i < 100; i++) jar.setCookie(`c${i}=v`, `https://s${d}.example.com/`);
    expect(jar.size).toBe(MAX_TOTAL);
    expect(jar.get('c0', 'https://s0.example.com/')).toBeUndefined();
    expect(jar.get('c99', 'https://s39.example.com/')).toBe('v');
  });

  it('ignores a cookie larger than MAX_COOKIE_BYTES and keeps one at the limit', () => {
    const jar = new CookieJar();
    jar.setCookie(`big=${'x'.repeat(MAX_COOKIE_BYTES)}`, GOAT);
    jar.setCookie(`ok=${'x'.repeat(MAX_COOKIE_BYTES - 2)}`, GOAT);
    expect(jar.get('big', GOAT)).toBeUndefined();
    expect(jar.get('ok', GOAT)).toHaveLength(MAX_COOKIE_BYTES - 2);
  });

  it('replacing a cookie does not count twice', () => {
    const jar = new CookieJar();
    for (let i = 0; i < 1000; i++) jar.setCookie(`same=${i}`, GOAT);
    expect(jar.size).toBe(1);
    expect(jar.get('same', GOAT)).toBe('999');
  });
});

describe('a hostile upstream and the jar', () => {
  const upstream = new FakeUpstream();
  let seq = 0;
  /** When set, the upstream refuses (as nginx does) requests whose Cookie header is longer than this. */
  let refuseCookiesOver: number | undefined;
  let cookieBytes: number[] = [];

  beforeAll(async () => {
    await upstream.start();
    upstream.on(BUY_BAR, (req, res) => {
      const cookie = String(req.headers.cookie ?? '');
      cookieBytes.push(cookie.length);
      if (refuseCookiesOver !== undefined && cookie.length > refuseCookiesOver) {
        res
          .writeHead(400, { 'content-type': 'text/html' })
          .end(
            '<html><center><h1>400 Bad Request</h1></center><center>Request Header Or Cookie Too Large</center></html>',
          );
        return;
      }
      // 50 new cookies per answer, as the adversarial run's upstream did.
      const setCookies = Array.from({ length: 50 }, () => `k${seq++}=${'v'.repeat(40)}; Path=/`);
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': setCookies });
      res.end(JSON.stringify(buyBarFor(req.query.get('productTemplateId') ?? '0')));
    });
  });
  afterAll(() => upstream.stop());

  it('120 lookups against 50 new cookies per answer: the Cookie header stays under the per-domain cap', async () => {
    cookieBytes = [];
    refuseCookiesOver = undefined;
    const app = await testApp({ MARKETLENS_RESALE_B_ORIGIN: upstream.origin });
    try {
      for (let i = 0; i < 120; i++) {
        const res = await app.inject({ url: `${PRICES}?query=${5000 + i}&country=US`, headers: auth });
        expect(res.statusCode, res.body).toBe(200);
      }
    } finally {
      await app.close();
    }
    // At most 180 cookies of ~47 bytes each. Without a cap the header grows by 50 cookies per lookup, past the fake
    // upstream's own 16 KB header limit (431) within a few lookups.
    expect(Math.max(...cookieBytes)).toBeLessThan(MAX_PER_DOMAIN * 50);
  }, 60_000);

  it('a 400 "Request Header Or Cookie Too Large" resets the session: later lookups answer 200', async () => {
    cookieBytes = [];
    // Refuse once ~60 cookies are carried: with 50 new per answer, the second lookup on a session is refused.
    refuseCookiesOver = 60 * 47;
    const app = await testApp({ MARKETLENS_RESALE_B_ORIGIN: upstream.origin });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await app.inject({ url: `${PRICES}?query=${7000 + i}&country=US`, headers: auth });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual(Array(10).fill(200));
    } finally {
      await app.close();
    }
  }, 60_000);

  it('a 431 from the upstream resets the session too', async () => {
    cookieBytes = [];
    // Node's own server answers 431 past 16 KB of headers: no refusal rule needed in the fake for this one.
    refuseCookiesOver = undefined;
    const big = new FakeUpstream();
    await big.start();
    let n = 0;
    big.on(BUY_BAR, (req, res) => {
      // 8 cookies of 3 KB per answer: the third request on a session exceeds Node's 16 KB header limit.
      const setCookies = Array.from({ length: 8 }, () => `b${n++}=${'w'.repeat(3000)}; Path=/`);
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': setCookies });
      res.end(JSON.stringify(buyBarFor(req.query.get('productTemplateId') ?? '0')));
    });
    const app = await testApp({ MARKETLENS_RESALE_B_ORIGIN: big.origin });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await app.inject({ url: `${PRICES}?query=${8000 + i}&country=US`, headers: auth });
        statuses.push(res.statusCode);
      }
      expect(statuses).toEqual(Array(6).fill(200));
    } finally {
      await app.close();
      await big.stop();
    }
  }, 60_000);
});
