/**
 * The cached-hit path (src/server/hit-path.ts) against Fastify's own route, over raw sockets: two services with the
 * same configuration, one with the hit path and one without, get the same requests in the same order. Every answer
 * must be the same bytes (status line, each header in order, body) apart from what differs by nature (dates, minted
 * request ids, seconds that tick), and the traces must be the same: request and cache metrics, usage counts, access
 * lines. The first service must have answered the hits itself, or the comparison proves nothing.
 */
import { createServer } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredKey } from '../src/keys/key-store.js';
import type { KeyLimits } from '../src/limits/key-limits.js';
import { aliasPath, allOperations } from '../src/operations/registry.js';
import type { AccessLog } from '../src/server/access-log.js';
import { installHitPath, type HitPathDeps } from '../src/server/hit-path.js';
import type { HitRoute } from '../src/server/operation-routes.js';
import { TEST_KEY, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { buyBar } from './support/upstream-fixtures.js';

const PRICES = '/api/v1/scraper/resale-b/prices';
const ALIAS = aliasPath(allOperations().find((o) => o.name === 'resale-b.prices')!);
const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';

interface Service {
  app: FastifyInstance;
  port: number;
  logs: string[];
  keys: { rated: string; quota: string; revoked: string };
}

interface Exchange {
  status: string;
  headers: [string, string][];
  body: string;
}

/** Sends `request` as written and reads one answer (by Content-Length; none for HEAD), or what came before a close. */
function exchange(port: number, request: string, head = false): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const done = () => {
      socket.destroy();
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const [status = '', ...lines] = text.slice(0, end === -1 ? text.length : end).split('\r\n');
      const headers = lines.map((l) => {
        const i = l.indexOf(':');
        return [l.slice(0, i), l.slice(i + 1).trim()] as [string, string];
      });
      resolve({ status, headers, body: end === -1 ? '' : data.subarray(end + 4).toString() });
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
      if (head || (length && data.length >= end + 4 + Number(length[1]))) done();
    });
    socket.on('end', done);
    socket.on('error', reject);
    socket.write(request);
  });
}

/** What differs between two services by nature: dates, minted ids, seconds counted from each one's own start. */
function normalise(x: Exchange): Exchange {
  const id = x.headers.find(([k]) => k.toLowerCase() === 'x-request-id')?.[1];
  const minted = id !== undefined && /^[0-9a-f-]{36}$/.test(id);
  const headers = x.headers.map(([name, v]): [string, string] => {
    const k = name.toLowerCase();
    if (k === 'date' || k === 'last-modified')
      return [name, /^\w{3}, \d\d \w{3} \d{4} [\d:]{8} GMT$/.test(v) ? 'DATE' : v];
    if (k === 'x-request-id' && minted) return [name, 'MINTED'];
    if (k === 'age' || k === 'ratelimit-reset' || k === 'retry-after') return [name, /^\d+$/.test(v) ? 'SECONDS' : v];
    if (k === 'server-timing') return [name, v.replace(/dur=[\d.]+/g, 'dur=N')];
    return [name, v];
  });
  let body = x.body;
  if (minted) body = body.split(id).join('MINTED');
  body = body.replace(/retry in \d+ s/g, 'retry in N s').replace(/resets at [\dT:.Z-]+/g, 'resets at T');
  return { status: x.status, headers, body };
}

describe('cached-hit path answers exactly as the Fastify route', () => {
  const goat = new FakeUpstream();
  let fast: Service;
  let plain: Service;

  async function start(hitPath: boolean): Promise<Service> {
    const logs: string[] = [];
    const logStream = new Writable({
      write(chunk, _enc, cb) {
        logs.push(...String(chunk).split('\n').filter(Boolean));
        cb();
      },
    });
    const app = await testApp(
      { MARKETLENS_RESALE_B_ORIGIN: goat.origin, MARKETLENS_RATE_LIMIT: '1000/min', MARKETLENS_LOG_LEVEL: 'info' },
      { logStream, hitPath },
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const keys = app.marketlens.keys;
    const revoked = await keys.create('revoked');
    await keys.revoke(revoked.record.id);
    return {
      app,
      logs,
      port: (app.server.address() as AddressInfo).port,
      keys: {
        rated: (await keys.create('rated', { rate_limit: '2/min' })).key,
        quota: (await keys.create('quota', { daily_quota: 1 })).key,
        revoked: revoked.key,
      },
    };
  }

  beforeAll(async () => {
    await goat.start();
    goat.serve(BUY_BAR, buyBar);
    fast = await start(true);
    plain = await start(false);
  });
  afterAll(async () => {
    await fast?.app.close();
    await plain?.app.close();
    await goat.stop();
  });

  const get = (target: string, headers: string[] = [`x-api-key: ${TEST_KEY}`], method = 'GET') =>
    `${method} ${target} HTTP/1.1\r\nHost: localhost\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
  const hit = `${PRICES}?query=1341930`;

  /** Each request to both services, in turn; the answers, normalised, must be equal. */
  const cases: [string, (s: Service) => string, { head?: boolean; hit?: boolean }?][] = [
    ['the first lookup (a miss, fetched)', () => get(hit)],
    ['a fresh hit', () => get(hit), { hit: true }],
    ['a fresh hit on the alias path', () => get(`${ALIAS}?query=1341930`), { hit: true }],
    ['a fresh hit with Authorization: Bearer', () => get(hit, [`authorization: Bearer ${TEST_KEY}`]), { hit: true }],
    [
      'a hit with a caller request id',
      () => get(hit, [`x-api-key: ${TEST_KEY}`, 'x-request-id: trace-1.a']),
      { hit: true },
    ],
    [
      'a hit with an unusable request id',
      () => get(hit, [`x-api-key: ${TEST_KEY}`, 'x-request-id: a b']),
      { hit: true },
    ],
    ['a hit within max_age', () => get(`${hit}&max_age=600`), { hit: true }],
    ['a hit with country given', () => get(`${hit}&country=US`), { hit: true }],
    ['a repeated parameter', () => get(`${hit}&country=US&country=US`)],
    ['an invalid max_age', () => get(`${hit}&max_age=abc`)],
    ['an unknown parameter', () => get(`${hit}&bogus=1`)],
    ['no key', () => get(hit, [])],
    ['an unknown key', () => get(hit, ['x-api-key: ml_nope_0000000000000000000000'])],
    ['two different keys', () => get(hit, [`x-api-key: ${TEST_KEY}`, 'authorization: Bearer ml_other_000000000'])],
    ['a revoked key', (s) => get(hit, [`x-api-key: ${s.keys.revoked}`])],
    ['a rate-limited key, 1st', (s) => get(hit, [`x-api-key: ${s.keys.rated}`]), { hit: true }],
    ['a rate-limited key, 2nd', (s) => get(hit, [`x-api-key: ${s.keys.rated}`]), { hit: true }],
    ['a rate-limited key, 3rd (refused)', (s) => get(hit, [`x-api-key: ${s.keys.rated}`])],
    ['a quota key, 1st', (s) => get(hit, [`x-api-key: ${s.keys.quota}`]), { hit: true }],
    ['a quota key, 2nd (refused)', (s) => get(hit, [`x-api-key: ${s.keys.quota}`])],
    ['HEAD', () => get(hit, [`x-api-key: ${TEST_KEY}`], 'HEAD'), { head: true }],
    ['a GET with Content-Length: 0', () => get(hit, [`x-api-key: ${TEST_KEY}`, 'content-length: 0'])],
    [
      'a GET with a JSON body',
      () =>
        `${get(hit, [`x-api-key: ${TEST_KEY}`, 'content-type: application/json', 'content-length: 2']).slice(0, -2)}\r\n{}`,
    ],
    ['a percent-encoded path', () => get('/api/v1/scraper/resale-b/pr%69ces?query=1341930')],
    ['a trailing slash', () => get(`${PRICES}/?query=1341930`)],
    ['a fragment', () => get(`${hit}#x`)],
    ['Cache-Control: no-cache (a live fetch)', () => get(hit, [`x-api-key: ${TEST_KEY}`, 'cache-control: no-cache'])],
    ['max_age=0 (a live fetch)', () => get(`${hit}&max_age=0`)],
    ['another method', () => get(hit, [`x-api-key: ${TEST_KEY}`], 'DELETE')],
  ];

  it('gives the same answers, request by request', async () => {
    const servedBefore = fast.app.marketlens.hitPath!.served;
    for (const [name, request, opts = {}] of cases) {
      const a = normalise(await exchange(fast.port, request(fast), opts.head));
      const b = normalise(await exchange(plain.port, request(plain), opts.head));
      expect(a, name).toEqual(b);
    }
    expect(fast.app.marketlens.hitPath!.served - servedBefore).toBe(cases.filter(([, , o]) => o?.hit).length);
    expect(plain.app.marketlens.hitPath).toBeUndefined();
  });

  it('gives the same answers to generated query strings (names, values, repeats, raw delimiters)', async () => {
    const name = fc.constantFrom('query', 'country', 'max_age', 'bogus', 'Query', '__proto__', '');
    const value = fc.oneof(
      fc.constantFrom('1341930', '1341931', 'us', 'US', 'UK', 'xx', '', '0', '60', '-1', '1e3', ' ', 'a,b'),
      fc.string({ maxLength: 6 }).map(encodeURIComponent),
      fc.constantFrom('%', '%zz', '%00', '+', '#', ';', '[]', '=', '&'),
    );
    const target = fc
      .array(fc.tuple(name, value), { maxLength: 4 })
      .map((pairs) => `${PRICES}?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`);
    await fc.assert(
      fc.asyncProperty(target, fc.boolean(), async (t, noCache) => {
        const headers = [`x-api-key: ${TEST_KEY}`, ...(noCache ? ['cache-control: no-cache'] : [])];
        const a = normalise(await exchange(fast.port, get(t, headers)));
        const b = normalise(await exchange(plain.port, get(t, headers)));
        expect(a, t).toEqual(b);
      }),
      { numRuns: 150 },
    );
  });

  it('closes the connection after an answer once shutdown began, as Fastify does', async () => {
    for (const s of [fast, plain]) s.app.marketlens.state.ready = false;
    try {
      const a = normalise(await exchange(fast.port, get(hit)));
      const b = normalise(await exchange(plain.port, get(hit)));
      expect(a).toEqual(b);
      expect(a.headers).toContainEqual(['connection', 'close']);
    } finally {
      for (const s of [fast, plain]) s.app.marketlens.state.ready = true;
    }
  });

  it('leaves the same traces: request and cache metrics, usage, access lines', async () => {
    const metrics = async (s: Service) => {
      const res = await s.app.inject({ url: '/metrics', headers: { 'x-api-key': TEST_KEY } });
      return res.body
        .split('\n')
        .filter((l) => /^marketlens_(http_requests_total|cache_results_total)\{/.test(l))
        .sort();
    };
    const fastMetrics = await metrics(fast);
    expect(fastMetrics.some((l) => l.includes(`route="${PRICES}",method="GET",status="200"`))).toBe(true);
    expect(fastMetrics).toEqual(await metrics(plain));

    const usage = async (s: Service, key: string) => {
      const res = await s.app.inject({ url: '/api/v1/usage', headers: { 'x-api-key': key } });
      const u = res.json<{ remaining: number; daily: { used: number }; monthly: { used: number } }>();
      return { remaining: u.remaining, daily: u.daily.used, monthly: u.monthly.used };
    };
    for (const k of ['test', 'rated', 'quota'] as const) {
      const key = (s: Service) => (k === 'test' ? TEST_KEY : s.keys[k]);
      expect(await usage(fast, key(fast)), k).toEqual(await usage(plain, key(plain)));
    }

    const access = (s: Service) =>
      s.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request completed')
        .map(({ method, url, statusCode, remoteAddress, level }) => ({
          method,
          url,
          statusCode,
          remoteAddress,
          level,
        }));
    const fastLines = access(fast);
    expect(fastLines.length).toBeGreaterThan(cases.length);
    expect(fastLines).toEqual(access(plain));
    const traced = fast.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.reqId === 'trace-1.a');
    expect(traced).toMatchObject({ method: 'GET', statusCode: 200, msg: 'request completed' });
    expect(typeof traced!.responseTime).toBe('number');
  });
});

describe('cached-hit path failures', () => {
  /** A plain server whose "Fastify" listener answers 503 `fastify`, with the hit path in front of it. */
  async function serverWith(overrides: Partial<HitPathDeps>) {
    const errors: string[] = [];
    const server = createServer((_req, res) => void res.writeHead(503, { 'content-length': 7 }).end('fastify'));
    const route: HitRoute = {
      url: '/hit',
      validate: (q) => q,
      freshHit: () => ({ body: Buffer.from('{"ok":true}'), fetchedAt: Date.now(), cache: 'hit', missingParts: [] }),
      present: (r) => r.body,
      count: () => undefined,
    };
    const hitPath = installHitPath(server, {
      routes: new Map([['/hit', route]]),
      keyOf: () => ({ id: 'k1' }) as StoredKey,
      limits: { synchronous: true, checkInMemory: () => ({}) } as unknown as KeyLimits,
      accessLog: { writes: true, completed: () => undefined } as unknown as AccessLog,
      observer: () => () => undefined,
      ready: () => true,
      log: { error: (_o, msg) => void errors.push(msg) },
      ...overrides,
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { server, hitPath: hitPath!, errors, port: (server.address() as AddressInfo).port };
  }
  const request = 'GET /hit HTTP/1.1\r\nHost: localhost\r\n\r\n';

  it('answers a hit itself, and leaves everything else to the listener behind it', async () => {
    const s = await serverWith({});
    try {
      expect((await exchange(s.port, request)).body).toBe('{"ok":true}');
      expect((await exchange(s.port, 'GET /other HTTP/1.1\r\nHost: localhost\r\n\r\n')).body).toBe('fastify');
      expect(s.hitPath.served).toBe(1);
    } finally {
      s.server.close();
    }
  });

  it('an error after the answer is logged and the process lives on; one before it hands the request to Fastify', async () => {
    const throwing = await serverWith({
      accessLog: {
        writes: true,
        completed: () => {
          throw new Error('log stream broke');
        },
      } as unknown as AccessLog,
    });
    const early = await serverWith({
      keyOf: () => {
        throw new Error('not a key error');
      },
    });
    try {
      // The answer was written before the access line threw: the client has it, the error is logged.
      expect((await exchange(throwing.port, request)).body).toBe('{"ok":true}');
      expect(throwing.errors).toEqual(['cached-hit path failed']);
      expect((await exchange(throwing.port, request)).body).toBe('{"ok":true}');
      expect((await exchange(early.port, request)).body).toBe('fastify');
      expect(early.hitPath.served).toBe(0);
    } finally {
      throwing.server.close();
      early.server.close();
    }
  });
});
