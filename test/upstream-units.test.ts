/** The fetch layer's parts on their own: block markers, backoff, breaker, proxy pool, cookie jar, headers, tiers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { detectBlock } from '../src/upstream/block-detection.js';
import { CircuitBreaker } from '../src/upstream/circuit-breaker.js';
import { CookieJar, mergeCookies } from '../src/upstream/cookie-jar.js';
import { MARKETPLACE_DESCRIPTORS, MARKETPLACE_INFO } from '../src/marketplaces/catalog.js';
import { ImpitTransport } from '../src/upstream/impit-transport.js';
import { ResilientHttpClient } from '../src/upstream/resilient-client.js';
import { MarketplaceLimiter } from '../src/upstream/limiter.js';
import { browserHeaders, needsWarmUp } from '../src/upstream/profiles.js';
import type { Config } from '../src/config.js';
import { ProxyPool } from '../src/upstream/proxies.js';
import { backoffMs, retryAfterSeconds } from '../src/upstream/retry.js';
import { tiersFor, unblockerUrl } from '../src/upstream/tiers.js';
import type { BrowserFetcher } from '../src/upstream/browser.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { AKAMAI_DENIAL, CLOUDFLARE_CHALLENGE, PERIMETERX_BLOCK } from './support/upstream-fixtures.js';

describe('detectBlock', () => {
  const html = { 'content-type': 'text/html' };
  it.each([
    [403, html, CLOUDFLARE_CHALLENGE, 'Cloudflare challenge'],
    [503, html, CLOUDFLARE_CHALLENGE, 'Cloudflare challenge'],
    [403, {}, JSON.stringify(PERIMETERX_BLOCK), 'PerimeterX'],
    [
      403,
      html,
      '<html><title>Access to this page has been denied</title><div id="px-captcha"></div></html>',
      'PerimeterX',
    ],
    [403, html, AKAMAI_DENIAL, 'Akamai'],
    [429, html, '<html><head><title>Captcha</title></head><div class="g-recaptcha"></div></html>', 'captcha'],
  ])('HTTP %i with markers → blocked (%#)', (status, headers, body, name) => {
    expect(detectBlock(status, headers, body, 'json')?.reason).toContain(name);
    expect(detectBlock(status, headers, body, 'html')?.reason).toContain(name);
  });

  it('cf-mitigated: challenge is a block whatever the status and body', () => {
    expect(detectBlock(200, { 'cf-mitigated': 'challenge' }, '{}', 'json')).toBeDefined();
  });

  it('HTML where JSON was expected is a block; on an HTML page it is data', () => {
    expect(detectBlock(200, html, '  <!doctype html><p>x</p>', 'json')).toBeDefined();
    expect(detectBlock(200, html, '<!doctype html><p>x</p>', 'html')).toBeUndefined();
  });

  it('plain errors and data are not blocks', () => {
    expect(detectBlock(404, {}, '{"error":"not found"}', 'json')).toBeUndefined();
    expect(detectBlock(503, html, '<html>maintenance</html>', 'json')).toBeUndefined();
    expect(detectBlock(200, {}, '[{"a":1}]', 'json')).toBeUndefined();
    // A product page that merely mentions "Access Denied" with a 200 is data.
    expect(detectBlock(200, html, '<html>Access Denied Reference #1</html>', 'html')).toBeUndefined();
  });
});

describe('retry timing', () => {
  it('backs off exponentially with jitter, capped', () => {
    expect(backoffMs(1, 100, () => 0)).toBe(50);
    expect(backoffMs(1, 100, () => 1)).toBe(100);
    expect(backoffMs(3, 100, () => 0.5)).toBe(300);
    expect(backoffMs(20, 100, () => 1)).toBe(3000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(retryAfterSeconds('soon')).toBeUndefined();
    expect(retryAfterSeconds(undefined)).toBeUndefined();
  });
});

describe('CircuitBreaker', () => {
  it('opens after N consecutive failures, lets one probe through after the cool-down, closes on success', () => {
    let now = 0;
    const b = new CircuitBreaker('resale-b', 3, 10_000, () => now);
    b.failure();
    b.failure();
    b.success(); // consecutive only
    b.failure();
    b.failure();
    expect(b.admit()).toBe(false);
    b.failure();
    expect(b.current).toBe('open');
    expect(() => b.admit()).toThrow(expect.objectContaining({ code: 'circuit_open', retryAfter: 10 }));
    now = 4_000;
    expect(() => b.admit()).toThrow(expect.objectContaining({ retryAfter: 6 }));
    now = 10_000;
    expect(b.admit()).toBe(true); // the probe
    expect(() => b.admit()).toThrow(expect.objectContaining({ code: 'circuit_open' })); // only one probe at a time
    b.success();
    expect(b.current).toBe('closed');
    expect(b.admit()).toBe(false);
  });
});

describe('ProxyPool', () => {
  it('rotates, rests a failing proxy, and falls back to the one resting longest when all rest', () => {
    let now = 0;
    const pool = new ProxyPool(['http://a:1', 'http://b:1', 'http://c:1'], 1000, () => now);
    expect([pool.next(), pool.next(), pool.next(), pool.next()]).toEqual([
      'http://a:1',
      'http://b:1',
      'http://c:1',
      'http://a:1',
    ]);
    pool.rest('http://b:1');
    expect([pool.next(), pool.next()]).toEqual(['http://c:1', 'http://a:1']);
    now = 1000;
    expect(pool.next()).toBe('http://b:1'); // rested long enough
    pool.rest('http://a:1');
    now = 1100;
    pool.rest('http://b:1');
    pool.rest('http://c:1');
    expect(pool.next()).toBe('http://a:1');
    expect(new ProxyPool([], 1).next()).toBeUndefined();
  });
});

describe('CookieJar', () => {
  it('keeps cookies per domain and path, honours expiry, merges with an operation cookie', () => {
    const jar = new CookieJar();
    jar.setCookie('__cf_bm=one; Path=/; Domain=.goat.com; HttpOnly; Secure', 'https://www.goat.com/');
    jar.setCookie('csrf=t0k; Path=/web-api', 'https://www.goat.com/');
    jar.setCookie('gone=1; Max-Age=0', 'https://www.goat.com/');
    jar.setCookie('evil=1; Domain=stockx.com', 'https://www.goat.com/');
    expect(jar.getCookieString('https://www.goat.com/')).toBe('__cf_bm=one');
    expect(jar.getCookieString('https://www.goat.com/web-api/v1/x')).toBe('csrf=t0k; __cf_bm=one');
    expect(jar.getCookieString('http://www.goat.com/')).toBe(''); // Secure
    expect(jar.getCookieString('https://stockx.com/')).toBe('');
    jar.setCookie('__cf_bm=two; Path=/; Domain=goat.com', 'https://www.goat.com/');
    expect(jar.get('__cf_bm', 'https://goat.com/')).toBe('two');
    expect(mergeCookies('a=1; currency=USD', 'currency=GBP; country=GB')).toBe('a=1; currency=GBP; country=GB');
  });
});

describe('browser header sets', () => {
  it("a JSON API call looks like the page's own fetch(); an HTML page like a navigation", () => {
    const api = browserHeaders(MARKETPLACE_INFO['resale-b'], new URL('https://www.goat.com/web-api/v1/x'), 'json');
    expect(api).toMatchObject({
      accept: 'application/json, text/plain, */*',
      'sec-fetch-mode': 'cors',
      'sec-fetch-site': 'same-origin',
      referer: 'https://www.goat.com/',
    });
    expect(api.origin).toBeUndefined();
    const nikeApi = browserHeaders(
      MARKETPLACE_INFO['sportswear'],
      new URL('https://api.nike.com/product_feed/threads/v3'),
      'json',
    );
    expect(nikeApi).toMatchObject({
      'sec-fetch-site': 'same-site',
      referer: 'https://www.nike.com/',
      origin: 'https://www.nike.com',
    });
    const gql = browserHeaders(MARKETPLACE_INFO['resale-a'], new URL('https://stockx.com/api/p/e'), 'json', 'POST');
    expect(gql).toMatchObject({ origin: 'https://stockx.com', 'sec-fetch-site': 'same-origin' });
    const page = browserHeaders(
      MARKETPLACE_INFO['watchmarket'],
      new URL('https://www.chrono24.de/rolex/index.htm'),
      'html',
    );
    expect(page).toMatchObject({
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
      'upgrade-insecure-requests': '1',
    });
  });

  it('warms up the hosts the notes name', () => {
    expect(needsWarmUp(MARKETPLACE_INFO['resale-b'], new URL('https://www.goat.com/web-api/x'))).toBe(true);
    expect(needsWarmUp(MARKETPLACE_INFO['watchmarket'], new URL('https://www.chrono24.co.uk/x'))).toBe(true);
    expect(needsWarmUp(MARKETPLACE_INFO['electronics'], new URL('https://api.bestbuy.com/v1/products'))).toBe(false);
    expect(needsWarmUp(MARKETPLACE_INFO['sportswear'], new URL('https://www.nike.com/t/x'))).toBe(false);
  });
});

describe('tiers', () => {
  it('defaults to direct, then proxy and unblocker when configured; a marketplace list wins', () => {
    const noBrowser = { MARKETLENS_BROWSER_PATH: 'none' };
    expect(tiersFor(loadConfig({}), MARKETPLACE_INFO['resale-b'])).toEqual(['direct']);
    const all = loadConfig({
      MARKETLENS_PROXY_URLS: 'http://p:1',
      MARKETLENS_UNBLOCKER_URL: 'https://u.example/?url={url}',
      ...noBrowser,
    });
    expect(tiersFor(all, MARKETPLACE_INFO['resale-a'])).toEqual(['direct', 'proxy', 'unblocker']);
    const own = loadConfig({
      MARKETLENS_RESALE_A_PROXY_URLS: 'socks5://p:1',
      MARKETLENS_WATCHMARKET_TIERS: 'unblocker,browser',
      ...noBrowser,
    });
    expect(tiersFor(own, MARKETPLACE_INFO['resale-a'])).toEqual(['direct', 'proxy']);
    expect(tiersFor(own, MARKETPLACE_INFO['resale-b'])).toEqual(['direct']);
    expect(tiersFor(own, MARKETPLACE_INFO['watchmarket'])).toEqual(['unblocker', 'browser']);
    expect(unblockerUrl('https://u.example/?k=1&url={url}', new URL('https://www.goat.com/a?b=1&c=2'))).toBe(
      'https://u.example/?k=1&url=https%3A%2F%2Fwww.goat.com%2Fa%3Fb%3D1%26c%3D2',
    );
  });
});

describe('browser tier defaults', () => {
  it('ends the Cloudflare and PerimeterX marketplaces with the browser when a Chromium path is set, nowhere else', () => {
    const withBrowser = loadConfig({ MARKETLENS_BROWSER_PATH: '/opt/chromium/chrome' });
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['watchmarket'])).toEqual(['direct', 'browser']);
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['resale-a'])).toEqual(['direct', 'browser']);
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['resale-b'])).toEqual(['direct']);
    expect(tiersFor(withBrowser, MARKETPLACE_INFO['electronics'])).toEqual(['direct']);
    expect(
      tiersFor(
        loadConfig({ MARKETLENS_BROWSER_PATH: '/opt/chromium/chrome', MARKETLENS_RESALE_A_TIERS: 'direct' }),
        MARKETPLACE_INFO['resale-a'],
      ),
    ).toEqual(['direct']);
  });
});

describe('MarketplaceLimiter', () => {
  it('queues up to maxQueue, refuses beyond with overloaded, and a waiter leaves the queue when its deadline fires', async () => {
    const limiter = new MarketplaceLimiter('resale-b', { concurrency: 1, minIntervalMs: 0, maxQueue: 1 });
    let release!: () => void;
    const first = limiter.run(new AbortController().signal, () => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    const second = limiter.run(ac.signal, async () => 'ran');
    await expect(limiter.run(new AbortController().signal, async () => 'x')).rejects.toMatchObject({
      code: 'overloaded',
    });
    ac.abort(new Error('deadline'));
    await expect(second).rejects.toThrow('deadline');
    expect(limiter.queued).toBe(0);
    const third = limiter.run(new AbortController().signal, async () => 'third');
    release();
    await first;
    await expect(third).resolves.toBe('third');
  });
});

describe('the resilient client directly', () => {
  const nike = new FakeUpstream();
  beforeAll(async () => {
    await nike.start();
  });
  afterAll(async () => {
    await nike.stop();
  });
  const ctx = () => ({ marketplace: 'sportswear' as const, signal: AbortSignal.timeout(3000) });

  it('decodes a declared charset (latin-1 page)', async () => {
    nike.on(
      '/t/air',
      (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
          .end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
    );
    const client = client_(loadConfig({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin }));
    const res = await client.request({ url: 'https://www.nike.com/t/air', expect: 'html' }, ctx());
    expect(res).toMatchObject({ status: 200, url: 'https://www.nike.com/t/air', body: 'café' });
  });

  it('refuses an operation URL outside the marketplace before any network use (internal)', async () => {
    const client = client_(loadConfig({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin }));
    await expect(client.request({ url: 'https://evil.example/', expect: 'html' }, ctx())).rejects.toMatchObject({
      code: 'internal',
    });
  });

  it('skips a configured browser tier without a fetcher, with a log line', async () => {
    nike.serve('/t/plain', '<p>plain</p>');
    const lines: string[] = [];
    const logger = { warn: (_o: object, msg: string) => void lines.push(msg), debug: () => undefined };
    const client = client_(
      loadConfig({ MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin, MARKETLENS_SPORTSWEAR_TIERS: 'browser,direct' }),
      { logger },
    );
    const res = await client.request({ url: 'https://www.nike.com/t/plain', expect: 'html' }, ctx());
    expect(res.body).toBe('<p>plain</p>');
    expect(lines).toEqual(['skipping fetch tier browser: no browser fetcher is registered']);
  });

  it('uses a registered browser fetcher for the browser tier and keeps its cookies for the direct session', async () => {
    nike.reset();
    nike.on('/t/shoe', (req, res) => {
      const cleared = String(req.headers.cookie ?? '').includes('_abck=ok');
      res
        .writeHead(cleared ? 200 : 403, { 'content-type': 'text/html' })
        .end(cleared ? '<p>shoe</p>' : '<TITLE>Access Denied</TITLE> Reference #18.1');
    });
    const calls: string[] = [];
    const browser: BrowserFetcher = {
      async fetch(req) {
        calls.push(req.url);
        return {
          status: 200,
          url: req.url,
          headers: { 'content-type': 'text/html' },
          body: '<p>shoe via browser</p>',
          cookies: ['_abck=ok; Path=/; Domain=.nike.com'],
        };
      },
    };
    const client = client_(
      loadConfig({
        MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin,
        MARKETLENS_SPORTSWEAR_TIERS: 'direct,browser',
        MARKETLENS_RETRY_ATTEMPTS: '1',
      }),
      { browser },
    );
    const first = await client.request({ url: 'https://www.nike.com/t/shoe', expect: 'html' }, ctx());
    expect(first.body).toBe('<p>shoe via browser</p>');
    const second = await client.request({ url: 'https://www.nike.com/t/shoe', expect: 'html' }, ctx());
    expect(second.body).toBe('<p>shoe</p>'); // the direct tier reused the browser's clearance cookie
    expect(calls).toHaveLength(1);
  });
});

/** The production client (resilient layer over impit) for one configuration, quiet unless a logger is given. */
function client_(
  config: Config,
  options: { logger?: { warn: (o: object, m: string) => void; debug: () => void }; browser?: BrowserFetcher } = {},
) {
  return new ResilientHttpClient(config, {
    transport: new ImpitTransport(),
    marketplaces: MARKETPLACE_DESCRIPTORS,
    ...options,
  });
}
