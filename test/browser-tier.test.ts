/**
 * The browser tier end to end, on a local fake marketplace behind a Cloudflare-style JavaScript challenge: the fast
 * client is blocked, the browser passes the challenge, and the clearance it earns lets the next lookup go through the
 * fast client again. Also: JSON APIs called from inside a page of the site, cookies handed from the client to the
 * browser, and the SSRF guard (redirects, subresources, fetch() and WebSockets to other hosts never leave).
 * One Chromium for the whole file (one marketplace, one shared fetcher).
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { isMarketlensError } from '../src/errors.js';
import type { BrowserFetchContext, BrowserFetcher } from '../src/upstream/browser.js';
import { createBrowserFetcher, type ChromiumFetcher } from '../src/upstream/browser/index.js';
import { createHttpClient } from '../src/upstream/create-client.js';
import type { HttpClient, UpstreamRequest } from '../src/upstream/http-client.js';
import { chromiumAvailable, chromiumPath } from './support/chromium.js';
import { FakeUpstream, type LoggedRequest } from './support/fake-upstream.js';
import { JsChallenge } from './support/js-challenge.js';

const SEARCH = 'https://www.chrono24.com/search/index.htm?query=rolex';

/**
 * Who sent a logged request. Both clients send the same User-Agent (on purpose: clearances are bound to it), but
 * Chromium opens its HTTP/1.1 headers with Host while impit (the fast client) sends Host last.
 */
const sentByChromium = (r: LoggedRequest): boolean => Object.keys(r.headers)[0] === 'host';
const silent = SILENT_LOGGER;

describe.skipIf(!chromiumAvailable)('browser tier (Chromium)', () => {
  const site = new FakeUpstream();
  const challenge = new JsChallenge(site);
  /** Stands for a service on the private network the browser must never reach. */
  let internal: Server;
  let internalOrigin = '';
  let internalHits = 0;
  let fetcher: ChromiumFetcher;
  /** The fetcher as the clients see it, counting how often they fall back to it. */
  let browserCalls = 0;
  const counted: BrowserFetcher = {
    fetch: (req, ctx) => {
      browserCalls++;
      return fetcher.fetch(req, ctx);
    },
  };
  const clients: HttpClient[] = [];

  /** The clients get room for a cold Chromium start on a busy machine; the fetcher's challenge wait derives from 2.5 s. */
  function env(tiers: string, attemptMs = '8000'): Record<string, string> {
    return {
      MARKETLENS_WATCHMARKET_ORIGIN: site.origin,
      MARKETLENS_WATCHMARKET_TIERS: tiers,
      MARKETLENS_BROWSER_PATH: chromiumPath,
      MARKETLENS_DEADLINE_MS: '10000',
      MARKETLENS_ATTEMPT_TIMEOUT_MS: attemptMs,
      MARKETLENS_RETRY_ATTEMPTS: '1',
      MARKETLENS_BREAKER_THRESHOLD: '1000',
      MARKETLENS_LOG_LEVEL: 'silent',
    };
  }

  function client(tiers: string): HttpClient {
    const http = createHttpClient(loadConfig(env(tiers)), undefined, { browser: counted, logger: silent });
    clients.push(http);
    return http;
  }

  const lookup = (): { marketplace: 'watchmarket'; signal: AbortSignal } => ({
    marketplace: 'watchmarket',
    signal: AbortSignal.timeout(10_000),
  });
  const browserCtx = (cookies = ''): BrowserFetchContext => ({
    marketplace: 'watchmarket',
    signal: AbortSignal.timeout(10_000),
    cookies,
  });
  const html = (title: string): string =>
    `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`;

  beforeAll(async () => {
    await site.start();
    internal = createServer((_req, res) => res.end('secret'));
    internal.on('connection', () => internalHits++);
    await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
    internalOrigin = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
    // Same configuration the clients get: the fetcher applies the same origin override.
    fetcher = createBrowserFetcher(loadConfig(env('direct,browser', '2500')), { logger: silent })!;
  });
  beforeEach(() => {
    site.reset();
    challenge.rotate(); // every earlier clearance (in the browser profile too) stops working
    challenge.served = 0;
    internalHits = 0;
    browserCalls = 0;
    challenge.protect('/', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('Chrono24 home')),
    );
    challenge.protect('/search/index.htm', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('Rolex results')),
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close?.()));
    await fetcher?.close();
    await site.stop();
    internal?.closeAllConnections();
    await new Promise<void>((r) => (internal ? internal.close(() => r()) : r()));
  });

  it('fast tier fails the JavaScript challenge, the browser passes it, and the next lookup rides the earned cookie on the fast client', async () => {
    const req: UpstreamRequest = { url: SEARCH, expect: 'html' };

    // The fast client alone is stuck on the challenge.
    const fastOnly = client('direct');
    const blocked = await fastOnly.request(req, lookup()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isMarketlensError(blocked) && blocked.code).toBe('upstream_blocked');
    expect(challenge.served).toBeGreaterThan(0);
    expect(site.requests.length).toBeGreaterThan(0);
    expect(site.requests.some(sentByChromium)).toBe(false); // (the tell works: these all came from the fast client)

    // direct,browser: direct is blocked again, the browser runs the challenge script and gets the page.
    const http = client('direct,browser');
    const first = await http.request(req, lookup());
    expect(first.status).toBe(200);
    expect(first.body).toContain('<h1>Rolex results</h1>');
    expect(first.url).toBe(SEARCH); // real host, the override undone
    expect(browserCalls).toBe(1);
    // The browser really ran the challenge: it loaded the challenge page, then came back with the clearance.
    const viaBrowser = site.requests.filter((r) => r.path === '/search/index.htm' && sentByChromium(r));
    expect(viaBrowser.length).toBeGreaterThanOrEqual(2); // the challenge, then the page
    expect(viaBrowser[0]!.headers.cookie ?? '').not.toContain(`cf_clearance=${challenge.clearance}`);
    expect(viaBrowser.at(-1)!.headers.cookie).toContain(`cf_clearance=${challenge.clearance}`);

    // The next lookup: no browser, no challenge, the fast client sends the browser's clearance.
    const mark = site.requests.length;
    const servedBefore = challenge.served;
    const second = await http.request(req, lookup());
    expect(second.status).toBe(200);
    expect(second.body).toContain('<h1>Rolex results</h1>');
    expect(browserCalls).toBe(1);
    expect(challenge.served).toBe(servedBefore);
    const later = site.requests.slice(mark);
    expect(later.map((r) => r.path)).toContain('/search/index.htm');
    for (const r of later) {
      expect(sentByChromium(r)).toBe(false);
      expect(r.headers.cookie).toContain(`cf_clearance=${challenge.clearance}`);
      // The fake binds a clearance to the User-Agent that earned it (as Cloudflare does): the fast client's is the
      // browser's, and neither looks headless.
      expect(r.headers['user-agent']).not.toMatch(/Headless/i);
    }
  });

  it('calls a JSON API from inside a page on the site: home page (challenge passed) first, then fetch() with its cookies', async () => {
    const data = { items: [{ id: 1, price: 9500 }] };
    challenge.protect('/api/listings', (_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(data)),
    );
    const res = await fetcher.fetch(
      {
        url: 'https://www.chrono24.com/api/listings?page=2',
        expect: 'json',
        headers: { 'x-requested-with': 'XMLHttpRequest', 'user-agent': 'ignored' },
      },
      browserCtx(),
    );
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual(data);
    expect(res.url).toBe('https://www.chrono24.com/api/listings?page=2');
    expect(res.headers['content-type']).toBe('application/json');
    // The pool may hand out a page still on the site from an earlier lookup, with a clearance gone stale (rotated):
    // then the first call meets the challenge, the page reloads the home page (passing it) and asks again.
    const api = site.requests.filter((r) => r.path === '/api/listings');
    const ok = api.at(-1)!;
    expect(api.length).toBeLessThanOrEqual(2);
    expect(ok.query.get('page')).toBe('2');
    expect(ok.headers['sec-fetch-mode']).toBe('cors');
    expect(ok.headers['sec-fetch-site']).toBe('same-origin');
    expect(ok.headers['x-requested-with']).toBe('XMLHttpRequest');
    expect(ok.headers['user-agent']).not.toBe('ignored'); // the browser owns its User-Agent
    expect(ok.headers.cookie).toContain(`cf_clearance=${challenge.clearance}`);
    expect(site.requests.findIndex((r) => r.path === '/')).toBeLessThan(site.requests.lastIndexOf(ok));
    // The earned clearance comes back for the fast client, host-only on the real host.
    const clearance = res.cookies!.find((c) => c.startsWith('cf_clearance='))!;
    expect(clearance).toMatch(new RegExp(`^cf_clearance=${challenge.clearance}; Path=/`));
    expect(clearance).not.toMatch(/Domain=/i);
  });

  it("starts the page with the client's cookies: a clearance the fast client holds spares the challenge", async () => {
    // The fake binds the clearance to the first User-Agent that shows it; the browser's must be the fast client's.
    const res = await fetcher.fetch(
      { url: SEARCH, expect: 'html' },
      browserCtx(`cf_clearance=${challenge.clearance}; session=abc`),
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain('<h1>Rolex results</h1>');
    expect(challenge.served).toBe(0);
    const seen = site.requests.find((r) => r.path === '/search/index.htm')!;
    expect(seen.headers.cookie).toContain('session=abc');
    expect(seen.headers['user-agent']).toMatch(/Chrome\/\d+\.0\.0\.0 Safari/);
    expect(seen.headers['sec-ch-ua']).toContain('"Google Chrome"');
    expect(res.cookies).toContain('session=abc; Path=/; SameSite=Lax');
  });

  it('asks again when the page navigates itself during an in-page call (a script reloading its document)', async () => {
    // Bot-manager sensors and challenge pages reload their document on their own; a fetch() running in it is lost.
    site.serve(
      '/listing',
      `<!DOCTYPE html><html><head><title>Listing</title></head><body><h1>Listing</h1><script>
if (!sessionStorage.getItem('reloaded')) setTimeout(function () { sessionStorage.setItem('reloaded', '1'); location.reload(); }, 300);
</script></body></html>`,
    );
    site.on('/api/slow', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), 1_000);
    });
    const cookies = `cf_clearance=${challenge.clearance}`;
    const page = await fetcher.fetch({ url: 'https://www.chrono24.com/listing', expect: 'html' }, browserCtx(cookies));
    expect(page.status).toBe(200);
    // The pool hands the same page (still on the site) to the next lookup, whose call is in flight when it reloads.
    const res = await fetcher.fetch({ url: 'https://www.chrono24.com/api/slow', expect: 'json' }, browserCtx(cookies));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true });
    expect(site.count('/listing')).toBe(2); // it did reload
    expect(site.count('/api/slow')).toBe(2); // the lost call, then the one answered
  });

  it('returns the challenge (a block for the client to judge) when it does not pass itself in time', async () => {
    site.on('/stuck', (_req, res) => {
      res
        .writeHead(403, { 'content-type': 'text/html', 'cf-mitigated': 'challenge' })
        .end('<html><head><title>Just a moment...</title></head><body>cf_chl_opt</body></html>');
    });
    const t0 = Date.now();
    const res = await fetcher.fetch({ url: 'https://www.chrono24.com/stuck', expect: 'html' }, browserCtx());
    expect(res.status).toBe(403);
    expect(res.body).toContain('Just a moment');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_800); // waited (0.8 × the 2.5 s attempt timeout) for it to move on
  });

  it('never lets the browser leave the marketplace: redirects, scripts, fetch() and WebSockets to other hosts are refused', async () => {
    site.on('/leave', (_req, res) => {
      res.writeHead(302, { location: `${internalOrigin}/latest/meta-data/` }).end();
    });
    const left = await fetcher.fetch({ url: 'https://www.chrono24.com/leave', expect: 'html' }, browserCtx()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isMarketlensError(left) && left.code, String(left)).toBe('upstream_error');
    expect(String((left as Error).message)).toMatch(/tried to leave its hosts/);

    const wsPort = new URL(internalOrigin).port;
    site.serve(
      '/page',
      `<!DOCTYPE html><html><head><title>Listing</title><script src="${internalOrigin}/tracker.js"></script></head><body>
<img src="/photo.jpg"><img src="${internalOrigin}/pixel.gif">
<script>
fetch('${internalOrigin}/beacon').catch(function () {});
try { new WebSocket('ws://127.0.0.1:${wsPort}/ws'); } catch (e) {}
</script><h1>Listing</h1></body></html>`,
    );
    site.serve('/photo.jpg', 'jpeg', { type: 'image/jpeg' });
    const res = await fetcher.fetch(
      { url: 'https://www.chrono24.com/page', expect: 'html' },
      browserCtx(`cf_clearance=${challenge.clearance}`),
    );
    expect(res.status).toBe(200);
    expect(res.body).toContain('<h1>Listing</h1>');
    await new Promise((r) => setTimeout(r, 500)); // let the page's scripts try
    expect(internalHits).toBe(0);
    expect(site.count('/photo.jpg')).toBe(0); // images are not loaded at all
    const refused = fetcher
      .stats()
      .sites.find((s) => s.marketplace === 'watchmarket')!
      .refused.map((r) => r.target);
    expect(refused.some((t) => t.includes('/beacon'))).toBe(true);

    // A URL off the marketplace is refused before the browser is even asked.
    const off = await fetcher.fetch({ url: 'https://evil.example/x', expect: 'html' }, browserCtx()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isMarketlensError(off) && off.code).toBe('internal');
    expect(fetcher.stats().launches).toBe(1); // one Chromium for this whole file
  });
});
