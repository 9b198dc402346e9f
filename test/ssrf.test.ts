/**
 * SSRF corpus (issue 10): every URL-taking parameter fed private, link-local and loopback addresses, numeric IP
 * spellings, userinfo and fragment tricks, look-alike and IDN hosts, other schemes and ports; and marketplace pages
 * that redirect into the internal network. Proof comes from a recording transport (every request the operations
 * make, and the final URL of every answer), from a local "internal" server that counts the hits it gets, and, for
 * redirects, from a forward proxy that every wire request (each hop) goes through: zero requests may leave the
 * marketplace's allowlist.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MARKETPLACE_INFO, type Marketplace } from '../src/marketplaces/catalog.js';
import { aliasPath, getOperation } from '../src/operations/registry.js';
import type { OperationName } from '../src/operations/types.js';
import { buildApp } from '../src/server/app.js';
import { auth, testConfig } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { LocalProxy } from './support/local-proxy.js';
import { RecordingHttpClient } from './support/recording-client.js';
import { readFixture } from './support/fixtures.js';

/** The operations whose `query` takes a URL, with a real host and a product path of their marketplace. */
const URL_OPERATIONS: Array<{ name: OperationName; host: string; path: string }> = [
  { name: 'resale-a.product', host: 'stockx.com', path: '/nike-dunk-low-retro-white-black-2021' },
  { name: 'resale-a.search', host: 'stockx.com', path: '/nike-dunk-low-retro-white-black-2021' },
  { name: 'resale-b.product', host: 'www.goat.com', path: '/sneakers/air-jordan-1-retro-high-og-dz5485-612' },
  { name: 'sportswear.product', host: 'www.nike.com', path: '/t/dunk-low-retro-mens-shoes-76KnBL/DD1391-100' },
  { name: 'electronics.product', host: 'www.bestbuy.com', path: '/site/apple-airpods-pro/6447382.p?skuId=6447382' },
];

/** Latin letters swapped for their Cyrillic twins (а е о с х і): a host that renders like the real one. */
function homoglyph(host: string): string {
  const twins: Record<string, string> = {
    o: '\u043e',
    a: '\u0430',
    e: '\u0435',
    c: '\u0441',
    x: '\u0445',
    i: '\u0456',
  };
  const i = [...host].findIndex((ch) => ch in twins);
  return host.slice(0, i) + twins[host[i]!] + host.slice(i + 1);
}

/** The hostile inputs for one marketplace host and product path; `internal` is a local port that must get no hit. */
function corpus(host: string, path: string, internal: number): string[] {
  const bare = host.replace(/^www\./, '');
  const lookAlike = homoglyph(host);
  return [
    // private, link-local, loopback, unspecified
    `https://10.0.0.1${path}`,
    `http://10.1.2.3${path}`,
    `https://172.16.0.1${path}`,
    `https://172.31.255.254${path}`,
    `https://192.168.1.1${path}`,
    `http://169.254.169.254/latest/meta-data/iam/security-credentials/`,
    `169.254.169.254/latest/meta-data/`,
    `https://127.0.0.1${path}`,
    `http://127.0.0.1:${internal}${path}`,
    `127.0.0.1:${internal}${path}`,
    `http://localhost:${internal}${path}`,
    `https://0.0.0.0${path}`,
    `https://0${path}`,
    `https://127.0.0.1.nip.io${path}`,
    `https://${host}.127.0.0.1.nip.io${path}`,
    `https://[fe80::1%25eth0]${path}`,
    `https://[::1]${path}`,
    `http://[::1]:${internal}${path}`,
    `https://[fd00::1]${path}`,
    `https://[fe80::1]${path}`,
    `https://[::ffff:127.0.0.1]${path}`,
    `https://[::ffff:7f00:1]${path}`,
    `https://[0:0:0:0:0:ffff:a9fe:a9fe]/latest/meta-data/`,
    // IPv4 loopback embedded in IPv6: compatible, NAT64 (well-known and local-use), 6to4, translated (issue 27)
    `https://[::127.0.0.1]${path}`,
    `https://[64:ff9b::7f00:1]${path}`,
    `https://[64:ff9b:1::7f00:1]${path}`,
    `https://[2002:7f00:1::]${path}`,
    `https://[::ffff:0:7f00:1]${path}`,
    // numeric spellings of 127.0.0.1 / 169.254.169.254
    `https://2130706433${path}`,
    `http://2130706433:${internal}${path}`,
    `https://0177.0.0.1${path}`,
    `https://0x7f.1${path}`,
    `https://0x7f000001${path}`,
    `https://127.1${path}`,
    `https://2852039166/latest/meta-data/`,
    `https://0xa9.0xfe.0xa9.0xfe/latest/meta-data/`,
    // userinfo, fragment, query and backslash tricks
    `https://${host}@evil.com${path}`,
    `https://${host}@127.0.0.1:${internal}${path}`,
    `https://${host}:443@evil.com${path}`,
    `https://user:pass@${host}${path}`,
    `https://user@${host}${path}`,
    `https://evil.com#@${host}${path}`,
    `https://evil.com?@${host}${path}`,
    `https://evil.com\\@${host}${path}`,
    `https://evil.com%23@${host}${path}`,
    `//evil.com${path}`,
    `///127.0.0.1:${internal}${path}`,
    // look-alike and IDN hosts
    `https://${host}.evil.com${path}`,
    `https://${bare}.evil.com${path}`,
    `https://evil-${bare}${path}`,
    `https://www${bare}${path}`,
    `https://x${host}${path}`,
    `https://${host}.${path}`,
    `https://${host}..${path}`,
    `https://${lookAlike}${path}`,
    `https://${new URL(`https://${lookAlike}`).hostname}${path}`,
    `https://\uff45\uff56\uff49\uff4c.com${path}`,
    `https://${host}\u3002evil.com${path}`,
    `https://${bare.replace('.', '-')}.com${path}`,
    // other schemes and ports
    `file:///etc/passwd`,
    `file://${host}/etc/passwd`,
    `gopher://127.0.0.1:${internal}/_GET%20/%20HTTP/1.0`,
    `gopher://${host}${path}`,
    `javascript:alert(document.domain)`,
    `javascript://${host}/%0aalert(1)`,
    `data:text/html,<script>alert(1)</script>`,
    `ftp://${host}${path}`,
    `ws://${host}${path}`,
    `dict://127.0.0.1:${internal}/info`,
    `https://${host}:8443${path}`,
    `https://${host}:${internal}${path}`,
    `http://${host}:${internal}${path}`,
    `https://${host}:0${path}`,
  ];
}

const STOCKX_SEARCH = readFixture('resale-a/search-response.json');

type Res = { statusCode: number; headers: Record<string, unknown>; body: string };

function expectQueryRejected(res: Res, input: string): void {
  expect(res.statusCode, `${input} → ${res.body}`).toBe(400);
  expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body);
  expect(body.code).toBe('invalid_parameter');
  expect(
    body.errors.map((e: { param: string }) => e.param),
    input,
  ).toContain('query');
}

describe('SSRF corpus and redirects into the internal network', () => {
  /** The "internal network": anything reaching it is a hole. */
  const internal = new FakeUpstream();
  const fakes = Object.fromEntries(
    (Object.keys(MARKETPLACE_INFO) as Marketplace[]).map((mp) => [mp, new FakeUpstream()]),
  ) as Record<Marketplace, FakeUpstream>;
  let http: RecordingHttpClient;
  let app: FastifyInstance;
  let internalPort = 0;

  const get = (url: string, query: Record<string, string>) =>
    app.inject({ method: 'GET', url, query, headers: { ...auth, 'cache-control': 'no-cache' } });

  beforeAll(async () => {
    await internal.start();
    internal.otherwise(
      (_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":true}'),
    );
    internalPort = Number(new URL(internal.origin).port);
    await Promise.all(Object.values(fakes).map((f) => f.start()));
    const env: Record<string, string> = {
      MARKETLENS_DEADLINE_MS: '3000',
      MARKETLENS_RETRY_BASE_MS: '0',
      MARKETLENS_BREAKER_THRESHOLD: '10000',
    };
    for (const [mp, fake] of Object.entries(fakes))
      env[`MARKETLENS_${MARKETPLACE_INFO[mp as Marketplace].envName}_ORIGIN`] = fake.origin;
    const config = testConfig(env);
    http = RecordingHttpClient.forConfig(config);
    app = await buildApp({ config, http });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([internal.stop(), ...Object.values(fakes).map((f) => f.stop())]);
  });
  beforeEach(() => {
    http.clear();
    internal.requests.length = 0;
    for (const f of Object.values(fakes)) f.reset();
  });

  it('the recorder and the internal server do see a request that leaves the allowlist (the checks can fail)', async () => {
    // A transport without the guard, as a broken client would be: the proof tools must notice it.
    const leaky = new RecordingHttpClient({
      request: async (req) => {
        const res = await fetch(req.url);
        return { status: res.status, url: req.url, headers: {}, body: await res.text() };
      },
    });
    const ctx = { marketplace: 'resale-b' as const, signal: AbortSignal.timeout(2000) };
    await leaky.request({ url: `${internal.origin}/latest/meta-data/`, expect: 'json' }, ctx);
    expect(internal.count()).toBe(1);
    // Both the URL asked for and the URL answered from are off the allowlist.
    expect(leaky.offAllowlist()).toEqual(Array(2).fill(`resale-b ${internal.origin}/latest/meta-data/`));
    internal.requests.length = 0;
  });

  describe.each(URL_OPERATIONS)('$name query', ({ name, host, path }) => {
    const op = getOperation(name)!;

    it.each([
      ['neutral', op.path],
      ['alias', aliasPath(op)],
    ])('every hostile URL → 400 naming query, zero upstream requests (%s path)', async (_kind, route) => {
      const inputs = corpus(host, path, internalPort);
      // StockX answers any search (free text is searched for as words).
      fakes['resale-a'].serve('POST /api/p/e', STOCKX_SEARCH, { type: 'application/json' });
      for (const input of inputs) {
        const res = await get(route, { query: input });
        const textSearch = name === 'resale-a.search' && !/^https?:\/\//i.test(input);
        // The search takes free text: a string that is not an http(s) URL is searched for as words, on StockX.
        if (!textSearch) expectQueryRejected(res, input);
        else expect(res.statusCode, `${input} → ${res.body}`).toBe(200);
      }
      expect(http.offAllowlist()).toEqual([]);
      expect(internal.count()).toBe(0);
      if (name !== 'resale-a.search') {
        // Rejected while validating: not one request was even attempted, on any host.
        expect(http.log).toEqual([]);
        for (const f of Object.values(fakes)) expect(f.count()).toBe(0);
      } else {
        for (const r of http.log) expect(new URL(r.url).hostname).toBe('stockx.com');
      }
    });

    it('the real host still works with the same path (the corpus is not rejecting everything)', async () => {
      const res = await get(op.path, { query: `https://${host}${path}` });
      // The fake marketplace answers 404 for everything: reaching it proves the URL was accepted and sent there only.
      expect(res.statusCode, res.body).not.toBe(400);
      expect(http.log.length).toBeGreaterThan(0);
      expect(http.offAllowlist()).toEqual([]);
      expect(internal.count()).toBe(0);
      expect(fakes[op.marketplace].count()).toBeGreaterThan(0);
    });
  });

  it('watchmarket domain (the one host-choosing parameter) accepts only its list of country sites', async () => {
    const hostile = [
      'evil.com',
      'com.evil.com',
      'com@evil.com',
      'com:8080',
      'com/..',
      '127.0.0.1',
      'com#',
      'co.uk.evil.com',
      'xyz',
      '',
    ];
    for (const domain of hostile) {
      const res = await get('/api/v1/scraper/watchmarket/search', { query: 'rolex', domain });
      expect(res.statusCode, `${domain} → ${res.body}`).toBe(400);
      expect(JSON.parse(res.body).errors.map((e: { param: string }) => e.param)).toContain('domain');
    }
    expect(http.log).toEqual([]);
    expect(internal.count()).toBe(0);
  });

  describe('redirects into the internal network', () => {
    const home = '<!DOCTYPE html><html><head><title>home</title></head><body></body></html>';
    /** Targets a marketplace page may redirect to; every one must end the lookup with 502 upstream_error. */
    const targets = (port: number) => [
      `http://127.0.0.1:${port}/admin`,
      `http://169.254.169.254/latest/meta-data/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://2130706433:${port}/`,
      `//127.0.0.1:${port}/scheme-relative`,
      `https://www.goat.com.evil.com/`,
      `https://user@www.goat.com/sneakers/x`,
      `http://www.goat.com/sneakers/x`,
      `gopher://127.0.0.1:${port}/_x`,
    ];

    /** Every fake marketplace serves its home page (session warm-up) and redirects everything else to `to`. */
    function redirectEverything(to: string): void {
      for (const f of Object.values(fakes)) {
        f.serve('/', home);
        f.otherwise((_req, res) => void res.writeHead(302, { location: to }).end());
      }
    }

    const LOOKUPS: Array<[OperationName, Record<string, string>]> = [
      ['resale-b.product', { query: 'https://www.goat.com/sneakers/air-jordan-1-retro-high-og-dz5485-612' }],
      ['resale-b.prices', { query: '1341930' }],
      ['resale-a.product', { query: 'nike-dunk-low-retro-white-black-2021' }],
      ['resale-a.search', { query: 'dunk low' }],
      ['sportswear.product', { query: 'DD1391-100' }],
      ['electronics.product', { query: '6447382' }],
      ['watchmarket.search', { query: 'rolex' }],
    ];

    it.each(LOOKUPS)(
      '%s: a page redirecting to an internal address → 502 upstream_error, no hit',
      async (name, query) => {
        const op = getOperation(name)!;
        for (const to of targets(internalPort)) {
          redirectEverything(to);
          const t0 = Date.now();
          const res = await get(op.path, query);
          expect(res.statusCode, `${to} → ${res.body}`).toBe(502);
          const body = JSON.parse(res.body);
          expect(body.code, to).toBe('upstream_error');
          expect(body.detail, to).toMatch(/redirected outside its hosts/);
          // Refused before connecting: no waiting on 169.254.169.254, which would only time out.
          expect(Date.now() - t0).toBeLessThan(2000);
        }
        expect(fakes[op.marketplace].count()).toBeGreaterThan(0);
        expect(internal.count()).toBe(0);
        expect(http.offAllowlist()).toEqual([]);
      },
    );

    describe('at the wire: every hop through a recording forward proxy', () => {
      // Every marketplace fetches through a local forward proxy only, so the proxy's log is every connection the
      // service opened, redirect hops included (169.254.169.254 too, which no local server can stand in for).
      const proxy = new LocalProxy();
      let wireApp: FastifyInstance;

      beforeAll(async () => {
        await proxy.start();
        const env: Record<string, string> = {
          MARKETLENS_DEADLINE_MS: '3000',
          MARKETLENS_RETRY_BASE_MS: '0',
          MARKETLENS_BREAKER_THRESHOLD: '10000',
          MARKETLENS_PROXY_URLS: proxy.origin,
        };
        for (const [mp, fake] of Object.entries(fakes)) {
          const name = MARKETPLACE_INFO[mp as Marketplace].envName;
          env[`MARKETLENS_${name}_ORIGIN`] = fake.origin;
          env[`MARKETLENS_${name}_TIERS`] = 'proxy';
        }
        wireApp = await buildApp({ config: testConfig(env) });
        await wireApp.ready();
      });
      afterAll(async () => {
        await wireApp?.close();
        await proxy.stop();
      });

      it.each(LOOKUPS)('%s: the only hosts ever connected to are the fake marketplaces', async (name, query) => {
        const op = getOperation(name)!;
        const allowed = new Set(Object.values(fakes).map((f) => new URL(f.origin).host));
        proxy.log.length = 0;
        for (const to of targets(internalPort)) {
          redirectEverything(to);
          const res = await wireApp.inject({
            method: 'GET',
            url: op.path,
            query,
            headers: { ...auth, 'cache-control': 'no-cache' },
          });
          expect(res.statusCode, `${to} → ${res.body}`).toBe(502);
          expect(JSON.parse(res.body).code, to).toBe('upstream_error');
        }
        const targetsSeen = proxy.log.map((r) => (r.method === 'CONNECT' ? r.target : new URL(r.target).host));
        // The proxy carried the traffic (the check is not vacuous) and none of it went anywhere else.
        expect(targetsSeen.length).toBeGreaterThan(0);
        expect(targetsSeen.filter((h) => !allowed.has(h))).toEqual([]);
        expect(internal.count()).toBe(0);
      });
    });

    it('a chain of redirects is checked at every hop: own relative hop allowed, then internal → 502', async () => {
      const goat = fakes['resale-b'];
      goat.serve('/', home);
      goat.on('/sneakers/chained-slug', (_req, res) => void res.writeHead(301, { location: '/hop-1' }).end());
      goat.on('/hop-1', (_req, res) => void res.writeHead(302, { location: `${goat.origin}/hop-2` }).end());
      goat.on(
        '/hop-2',
        (_req, res) => void res.writeHead(307, { location: `http://127.0.0.1:${internalPort}/hop-3` }).end(),
      );
      const res = await get('/api/v1/scraper/resale-b/product', {
        query: 'https://www.goat.com/sneakers/chained-slug',
      });
      expect(res.statusCode, res.body).toBe(502);
      expect(JSON.parse(res.body).code).toBe('upstream_error');
      // The two hops on the marketplace itself were followed (mapped back onto www.goat.com), the third was not.
      expect(goat.count('/hop-1')).toBe(1);
      expect(goat.count('/hop-2')).toBe(1);
      expect(internal.count()).toBe(0);
    });

    it('a redirect to another host of the same marketplace is followed (the allowlist is not over-strict)', async () => {
      const goat = fakes['resale-b'];
      goat.serve('/', home);
      goat.on(
        '/sneakers/moved-slug',
        (_req, res) => void res.writeHead(301, { location: 'https://goat.com/sneakers/moved-slug-2' }).end(),
      );
      const res = await get('/api/v1/scraper/resale-b/product', { query: 'https://www.goat.com/sneakers/moved-slug' });
      // goat.com is GOAT's: the hop is followed (to the fake, through the origin override), which answers 404.
      expect(res.statusCode, res.body).toBe(404);
      expect(JSON.parse(res.body).code).toBe('not_found');
      expect(goat.count('/sneakers/moved-slug-2')).toBe(1);
      expect(http.log.map((r) => r.finalUrl)).toEqual(['https://goat.com/sneakers/moved-slug-2']);
      expect(internal.count()).toBe(0);
    });
  });
});
