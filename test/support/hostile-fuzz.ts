/**
 * The hostile-input fuzz (issue 27) over every keyed route that is not a lookup: the db collections (GET, POST,
 * DELETE), the history, webhooks CRUD, test and deliveries, usage and status, over real sockets to a running
 * service. Generated query strings (bracket keys with prototype names at any depth, fields and operators, NUL and
 * control characters, huge and unicode values, repeated keys, percent-encoding junk) and JSON bodies (prototype names
 * as keys, lone surrogates, deep nesting, wrong types, broken JSON), mixed with plausible ones so the answered paths
 * (and their SQL) are reached too. The property, per answer: never a 5xx; a 400 is problem+json naming a
 * parameter the request sent (or one it must send, or the body, path or id); a 404 is problem+json. Meanwhile
 * another key's live lookups (fixture marketplaces) keep answering 200; afterwards Object.prototype holds what it
 * held before, and the service still answers /healthz and a metrics scrape.
 *
 * The requests are generated up front with fast-check (the seed is printed with any failure) and sent 32 at a time:
 * a property run per request would send them one by one. One file per engine (test/hostile-input-fuzz-*.test.ts):
 * each takes about 18 s of CPU for its 20 000 requests (client and service together), so both are in
 * vitest.config.ts's LONG list: `npm run test:long` runs them one at a time, and `npm test` leaves them out.
 */
import fc from 'fast-check';
import querystring from 'fast-querystring';
import type { FastifyInstance } from 'fastify';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIONS } from '../../src/history/db-api/collections.js';
import { OPERATORS } from '../../src/history/db-api/where.js';
import { RECORDED_OPERATIONS } from '../../src/history/extract/index.js';
import { getOperation } from '../../src/operations/registry.js';
import type { Engine } from '../../src/store/index.js';
import { TEST_KEY, testApp } from './app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './fixture-marketplaces.js';
import { createTestDatabase, engineAvailable, type TestDatabase } from './stores.js';
import { startReceiver, type Receiver } from './webhook-receiver.js';

/** Requests per engine, spread over the routes by weight. */
const REQUESTS = 20_000;
const CONCURRENCY = 32;

const OTHER_KEY = 'ml_other_key_for_hostile_fuzz_0123456789';
const PROTO = ['__proto__', 'constructor', 'prototype'];
const INHERITED = ['toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
const FIELDS = [...new Set(Object.values(COLLECTIONS).flatMap((c) => Object.keys(c.fields)))];
const PERCENT_GARBAGE = ['%', '%%', '%zz', '%00', '%E0%A4%A', '%uD800', '%ED%A0%80', '%C0%AF', '%ff%fe', '%2525'];

// ---- values ----------------------------------------------------------------------------------------------------

/** A query-string value: text to percent-encode, or (raw) a sequence sent as is. */
interface QValue {
  text: string;
  raw?: boolean;
}

const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)), maxLength: 6 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\ud83d\ude00', '\u2028', '\ufffe'),
  fc.integer({ min: 100, max: 3000 }).map((n) => 'a'.repeat(n)),
  fc.constantFrom(
    '-1',
    '0',
    '1',
    '1.5',
    '1e309',
    '99999999999999999999',
    '8640000000000001',
    'NaN',
    'true',
    'false',
    'null',
    '2026-11-24',
    '2026-11-24T12:00:00Z',
    '+275760-09-13T00:00:00Z',
    '-271821-04-20',
    'hour',
    'day',
    'week',
    'json',
    'csv',
    'svg',
    '-createdAt',
    'price,-size',
    ...FIELDS,
    ...PROTO,
    ...INHERITED,
    "' OR 1=1 --",
    '%_\\',
    ',,,',
  ),
);

/** Numbers and dates at and past the edges of what a column or a Date holds. */
const EDGE_NUMBERS = [
  '99999999999999999999',
  '9223372036854775808',
  '-9223372036854775809',
  '8640000000000001',
  '-8640000000000001',
  '1e308',
  '-1e308',
  '5e-324',
  '1.5',
  '-0',
  '0x10',
  '+275760-09-14T00:00:00Z',
  '275760-09-13',
  '1970-01-01',
];

const qValue: fc.Arbitrary<QValue> = fc.oneof(
  { weight: 5, arbitrary: hostileText.map((text) => ({ text })) },
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_NUMBERS).map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.constantFrom(...PERCENT_GARBAGE).map((text) => ({ text, raw: true })) },
);

/** Percent-encodes text; lone surrogates (which encodeURIComponent refuses) go as UTF-8 of their replacement. */
function encode(v: QValue): string {
  if (v.raw) return v.text;
  try {
    return encodeURIComponent(v.text);
  } catch {
    return [...Buffer.from(v.text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

// ---- query keys --------------------------------------------------------------------------------------------------

const segment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FIELDS, ...OPERATORS, 'or', 'and', '0', '1', '7', '') },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO, ...INHERITED) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', ' ', 'a'.repeat(200), ']', '[', '.') },
);

/** `head[a][b]…`, sometimes with `[]` or a broken bracket; head is a parameter of the route or junk. */
function bracketKey(heads: readonly string[]): fc.Arbitrary<string> {
  const head = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...heads) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTO, ...INHERITED) },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  );
  return fc
    .tuple(head, fc.array(segment, { maxLength: 6 }), fc.constantFrom('', '', '', '[]', '[', ']'))
    .map(([h, segs, tail]) => `${h}${segs.map((s) => `[${s}]`).join('')}${tail}`);
}

type Pair = [string, QValue];

/** Query pairs: route parameters and bracket keys, hostile values, repeats of one key. */
function pairs(heads: readonly string[], good: fc.Arbitrary<Pair>[] = []): fc.Arbitrary<Pair[]> {
  const one = fc.oneof(
    ...good,
    bracketKey(heads).chain((k) => qValue.map((v): Pair => [k, v])),
  );
  return fc
    .tuple(fc.array(one, { maxLength: 6 }), fc.option(one, { freq: 4 }))
    .map(([list, repeated]) => (repeated ? [...list, repeated, [repeated[0], { text: 'again' }] as Pair] : list));
}

const fixed = (k: string, ...values: string[]) => fc.constantFrom(...values).map((text): Pair => [k, { text }]);

// ---- JSON bodies -------------------------------------------------------------------------------------------------

/** Any JSON value with hostile strings and prototype names as keys, nested a little. */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO, ...INHERITED, 'x'), hostileText), tie('value')), {
        maxLength: 3,
      })
      .map((entries) => Object.fromEntries(entries)),
  ),
})).value;

interface Body {
  payload: string;
  type: string;
}

/**
 * An object body: a valid one (`valid`), the route's own keys with good or hostile values, prototype names as keys,
 * or broken/odd JSON.
 */
function body(fields: Record<string, fc.Arbitrary<unknown>>, valid: fc.Arbitrary<object>): fc.Arbitrary<Body> {
  const keys = [...Object.keys(fields), ...PROTO, 'x'];
  const value = (k: string) =>
    Object.hasOwn(fields, k) ? fc.oneof({ weight: 3, arbitrary: fields[k]! }, hostileJson) : hostileJson;
  const objects = fc
    .uniqueArray(fc.constantFrom(...keys), { maxLength: keys.length })
    .chain((ks) => fc.tuple(...ks.map((k) => value(k).map((v) => [k, v] as const))))
    .map((entries) => JSON.stringify(Object.fromEntries(entries)));
  // A valid body with one key of it (or a new one) given a hostile value.
  const spoiled = fc
    .tuple(valid, fc.constantFrom(...keys), hostileJson)
    .map(([v, k, bad]) => JSON.stringify({ ...v, ...Object.fromEntries([[k, bad]]) }));
  const payload = fc.oneof(
    { weight: 2, arbitrary: valid.map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: spoiled },
    { weight: 4, arbitrary: objects },
    { weight: 1, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{',
        'null',
        '[]',
        '"x"',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
        `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`,
        // Just under the 64 KiB limit: a body over it is refused before it is read, and the connection closed
        // while the client may still be sending (a reset, not an answer); test/fuzz.test.ts covers 413 in process.
        `{"x":"${'y'.repeat(60_000)}"}`,
      ),
    },
  );
  return fc.record({
    payload,
    type: fc.constantFrom('application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain'),
  });
}

// ---- routes ------------------------------------------------------------------------------------------------------

export interface Sent {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query: Pair[];
  body?: Body;
  /** Parameters the route requires: naming one the request left out is right. */
  required: readonly string[];
}

interface RouteFuzz {
  name: string;
  weight: number;
  arb: (ids: Ids) => fc.Arbitrary<Sent>;
}

interface Ids {
  webhooks: string[];
  tracked: string[];
}

/** Path ids: real ones, hostile text (encoded), junk percent sequences (raw), too long ones. */
function idArb(real: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...real) },
    { weight: 3, arbitrary: hostileText.map((text) => encode({ text })) },
    { weight: 1, arbitrary: fc.constantFrom(...PERCENT_GARBAGE, 'a%2Fb', '..', '%2e%2e') },
  );
}

const lookupRequired = [
  ...new Set(
    RECORDED_OPERATIONS.flatMap((name) =>
      Object.entries(
        getOperation(name)!.params.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>,
      )
        .filter(([, s]) => !s.safeParse(undefined).success)
        .map(([k]) => k),
    ),
  ),
];
const DB_PARAMS = ['where', 'sort', 'page', 'limit', 'format'];

/** A plausible filter key: `where[field][op]`, inside `or`/`and` sometimes, with a hostile value. */
const whereClause: fc.Arbitrary<Pair> = fc
  .tuple(
    fc.constantFrom('', '', '[or][0]', '[and][1]', '[or][0][and][0]'),
    fc.constantFrom(...FIELDS),
    fc.constantFrom(...OPERATORS, '', '[]'),
    qValue,
  )
  .map(([group, field, op, v]): Pair => [`where${group}[${field}]${op && op !== '[]' ? `[${op}]` : op}`, v]);
const HISTORY_PARAMS = [
  'operation',
  'query',
  'country',
  'currency',
  'size',
  'kind',
  'from',
  'to',
  'interval',
  'format',
];
const WEBHOOK_URLS = (receiver: string) =>
  fc.constantFrom(receiver, 'http://127.0.0.1:9/hook', 'http://[::1]:9/x', 'ftp://127.0.0.1/', 'not a url', '');
const EVENTS = fc.array(fc.constantFrom('price.changed', 'nope', '__proto__', 'webhook.test'), {
  maxLength: 3,
});
const FILTER = fc.dictionary(
  fc.constantFrom(
    'operations',
    'products',
    'sizes',
    'countries',
    'kinds',
    'min_change_pct',
    'below',
    'above',
    ...PROTO,
  ),
  fc.oneof(fc.array(hostileText, { maxLength: 3 }), fc.double(), hostileJson),
  { maxKeys: 3 },
);

/** Routes that take no body get one now and then: it must be refused naming `body`, whatever it holds. */
function withStrayBody(route: RouteFuzz): RouteFuzz {
  const stray = body({ x: hostileJson }, fc.constant({}));
  return {
    ...route,
    arb: (ids) =>
      fc
        .tuple(route.arb(ids), fc.option(stray, { freq: 10, nil: undefined }))
        .map(([s, b]): Sent => (s.body || !b ? s : { ...s, body: b })),
  };
}

function routes(receiverUrl: string): RouteFuzz[] {
  const webhookFields = {
    url: WEBHOOK_URLS(receiverUrl),
    events: EVENTS,
    filter: FILTER,
    description: hostileText,
    enabled: fc.boolean(),
  };
  const validWebhook = fc.record(
    {
      url: fc.constantFrom(receiverUrl, 'http://127.0.0.1:9/hook'),
      // Events the background lookups here never cause (each looks up a new product; tracked ones are cached), so
      // hundreds of created subscriptions add no deliveries to the run.
      events: fc.constant(['price.changed']),
      filter: fc.record(
        { sizes: fc.constant(['10']), countries: fc.constant(['us']), min_change_pct: fc.constant(5) },
        { requiredKeys: [] },
      ),
      description: fc.oneof(fc.string({ maxLength: 30 }), fc.constant(null)),
    },
    { requiredKeys: ['url', 'events'] },
  );
  const validPatch = fc.record(
    { description: fc.string({ maxLength: 30 }), enabled: fc.boolean(), events: fc.constant(['price.changed']) },
    { requiredKeys: [] },
  );
  const dbGet = (collection: string): RouteFuzz => ({
    name: `GET /api/v1/db/${collection}`,
    weight: 5,
    arb: () =>
      pairs(DB_PARAMS, [
        whereClause,
        whereClause,
        fixed('limit', '1', '100', '101', '0'),
        fixed('sort', '-createdAt', 'size,-price', 'id'),
      ]).map((query): Sent => ({ method: 'GET', path: `/api/v1/db/${collection}`, query, required: [] })),
  });
  const all: RouteFuzz[] = [
    dbGet('products'),
    dbGet('prices'),
    dbGet('variants'),
    {
      name: 'POST /api/v1/db/products',
      weight: 2,
      arb: () =>
        body(
          {
            operation: fc.constantFrom(...RECORDED_OPERATIONS, 'nope'),
            query: fc.constantFrom('rolex', '1341930', 'DD1391-100'),
            country: fc.constantFrom('US', 'us', 'XX'),
            interval: fc.oneof(fc.constantFrom('15m', '1h', '59', 900, 1e308), hostileText),
          },
          fc.record(
            {
              operation: fc.constant('watchmarket.search'),
              query: fc.constantFrom('rolex', 'omega'),
              interval: fc.constantFrom('15m', '1h', 3600),
            },
            { requiredKeys: ['operation', 'query'] },
          ),
        ).map((b): Sent => ({
          method: 'POST',
          path: '/api/v1/db/products',
          query: [],
          body: b,
          required: ['operation', 'query', ...lookupRequired],
        })),
    },
    {
      name: 'DELETE /api/v1/db/products/:id',
      weight: 1,
      arb: (ids) =>
        idArb(ids.tracked).map((id): Sent => ({
          method: 'DELETE',
          path: `/api/v1/db/products/${id}`,
          query: [],
          required: [],
        })),
    },
    {
      name: 'GET /api/v1/history',
      weight: 4,
      arb: () =>
        fc
          .tuple(
            fc.option(fixed('operation', 'watchmarket.search', 'resale-b.prices', ...RECORDED_OPERATIONS), { freq: 6 }),
            fc.option(fixed('query', 'rolex', '1341930'), { freq: 6 }),
            pairs(HISTORY_PARAMS, [fixed('interval', 'day', 'hour'), fixed('country', 'US')]),
          )
          .map(([operation, q, rest]): Sent => ({
            method: 'GET',
            path: '/api/v1/history',
            query: [...(operation ? [operation] : []), ...(q ? [q] : []), ...rest],
            required: ['operation', 'query', ...lookupRequired],
          })),
    },
    {
      name: 'POST /api/v1/webhooks',
      weight: 3,
      arb: () =>
        body(webhookFields, validWebhook).map((b): Sent => ({
          method: 'POST',
          path: '/api/v1/webhooks',
          query: [],
          body: b,
          required: ['url', 'events'],
        })),
    },
    {
      name: 'GET /api/v1/webhooks',
      weight: 1,
      arb: () =>
        pairs(['limit']).map((query): Sent => ({ method: 'GET', path: '/api/v1/webhooks', query, required: [] })),
    },
    ...(['GET', 'DELETE'] as const).map((method): RouteFuzz => ({
      name: `${method} /api/v1/webhooks/:id`,
      weight: 1,
      arb: (ids) =>
        idArb(ids.webhooks).map((id): Sent => ({ method, path: `/api/v1/webhooks/${id}`, query: [], required: [] })),
    })),
    {
      name: 'PATCH /api/v1/webhooks/:id',
      weight: 2,
      arb: (ids) =>
        fc.tuple(idArb(ids.webhooks), body(webhookFields, validPatch)).map(([id, b]): Sent => ({
          method: 'PATCH',
          path: `/api/v1/webhooks/${id}`,
          query: [],
          body: b,
          required: [],
        })),
    },
    {
      name: 'POST /api/v1/webhooks/:id/test',
      weight: 1,
      arb: (ids) =>
        idArb(ids.webhooks).map((id): Sent => ({
          method: 'POST',
          path: `/api/v1/webhooks/${id}/test`,
          query: [],
          required: [],
        })),
    },
    {
      name: 'GET /api/v1/webhooks/:id/deliveries',
      weight: 1,
      arb: (ids) =>
        fc
          .tuple(idArb(ids.webhooks), pairs(['limit'], [fixed('limit', '1', '500', '501', '-1')]))
          .map(([id, query]): Sent => ({
            method: 'GET',
            path: `/api/v1/webhooks/${id}/deliveries`,
            query,
            required: [],
          })),
    },
    {
      name: 'GET /api/v1/usage',
      weight: 1,
      arb: () => pairs(['x']).map((query): Sent => ({ method: 'GET', path: '/api/v1/usage', query, required: [] })),
    },
    {
      name: 'GET /api/v1/status',
      weight: 1,
      arb: () => pairs(['x']).map((query): Sent => ({ method: 'GET', path: '/api/v1/status', query, required: [] })),
    },
  ];
  return all.map(withStrayBody);
}

// ---- the property ------------------------------------------------------------------------------------------------

function queryString(s: Sent): string {
  return s.query.map(([k, v]) => `${encode({ text: k })}=${encode(v)}`).join('&');
}

/** What the request names: its query keys as the router decodes them, its body's top-level keys. */
function sentNames(s: Sent, qs: string): string[] {
  const names = Object.keys(querystring.parse(qs) as object);
  try {
    const v = JSON.parse(s.body?.payload ?? 'null') as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) names.push(...Object.keys(v));
  } catch {
    // not JSON: the body is named as `body`
  }
  return names;
}

/** Whether `param` names what the request sent (a key, or the part of a bracket key before a bracket). */
function namesSent(param: string, sent: string[]): boolean {
  return sent.some((k) => k === param || k.trim() === param || k.startsWith(`${param}[`));
}

export interface Answer {
  status: number;
  type: string;
  body: string;
}

/** The property; returns what is wrong with an answer, or undefined. */
export function judge(s: Sent, qs: string, a: Answer): string | undefined {
  if (a.status >= 500) return 'a 5xx';
  if (a.status < 400) return undefined;
  if (!a.type.startsWith('application/problem+json')) return 'a 4xx that is not problem+json';
  const problem = JSON.parse(a.body) as { status?: number; code?: string; errors?: Array<{ param?: unknown }> };
  if (problem.status !== a.status) return 'problem.status differs from the HTTP status';
  if (a.status === 404) return ['route_not_found', 'not_found'].includes(problem.code ?? '') ? undefined : 'a 404 code';
  // A valid create past the key's cap (100 webhook subscriptions): the documented refusal, once the input passed.
  if (a.status === 409) return problem.code === 'limit_reached' ? undefined : 'a 409 code';
  if (a.status !== 400) return `an unexpected ${a.status}`;
  if (!Array.isArray(problem.errors) || problem.errors.length === 0) return 'a 400 naming no parameter';
  const sent = sentNames(s, qs);
  const allowed = new Set([...s.required, 'body', 'path', ...(s.path.split('/').length > 4 ? ['id'] : [])]);
  for (const e of problem.errors) {
    const param = String(e.param);
    if (!allowed.has(param) && !namesSent(param, sent)) return `errors[].param ${JSON.stringify(param)} was not sent`;
  }
  return undefined;
}

// ---- the run -----------------------------------------------------------------------------------------------------

/** The fuzz on one engine, as a describe block of the calling test file. */
export function describeHostileFuzz(engine: Engine): void {
  describe(`fuzzing the keyed routes that are not lookups, on ${engine}`, () => {
    const run = engineAvailable(engine);
    let markets: FixtureMarketplaces;
    let receiver: Receiver;
    let db: TestDatabase;
    let app: FastifyInstance;
    let pool: Pool;
    const ids: Ids = { webhooks: [], tracked: [] };
    const key = { 'x-api-key': TEST_KEY };

    beforeAll(async () => {
      if (!run) return;
      markets = await startFixtureMarketplaces();
      receiver = await startReceiver();
      db = await createTestDatabase(engine);
      app = await testApp(
        {
          ...db.env,
          ...markets.env,
          MARKETLENS_API_KEYS: `${TEST_KEY},${OTHER_KEY}`,
          MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
          MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
          MARKETLENS_RETRY_BASE_MS: '0',
          MARKETLENS_BREAKER_THRESHOLD: '10000',
        },
        { alerts: { timing: { baseDelayMs: 1000, pollMs: 200 } } },
      );
      const address = await app.listen({ host: '127.0.0.1', port: 0 });
      pool = new Pool(address, { connections: CONCURRENCY });
      // Real ids, so that generated requests also reach the found paths.
      for (const description of ['a', 'b']) {
        const res = await pool.request({
          method: 'POST',
          path: '/api/v1/webhooks',
          headers: { ...key, 'content-type': 'application/json' },
          body: JSON.stringify({ url: receiver.url, events: ['price.changed'], description }),
        });
        expect(res.statusCode).toBe(201);
        ids.webhooks.push(((await res.body.json()) as { id: string }).id);
      }
      const tracked = await pool.request({
        method: 'POST',
        path: '/api/v1/db/products',
        headers: { ...key, 'content-type': 'application/json' },
        body: JSON.stringify({ operation: 'resale-b.prices', query: '1341930', country: 'US' }),
      });
      expect(tracked.statusCode).toBe(201);
      ids.tracked.push(((await tracked.body.json()) as { id: string }).id);
    });
    afterAll(async () => {
      if (!run) return;
      await pool?.close();
      await app?.close();
      await receiver?.stop();
      await markets?.stop();
      await db?.drop();
    });

    it.skipIf(!run)(
      `${REQUESTS} generated requests: no 5xx, every 4xx names a parameter, lookups of another key keep answering`,
      async () => {
        const before = Object.getOwnPropertyNames(Object.prototype);

        const all = routes(receiver.url);
        const weights = all.reduce((n, r) => n + r.weight, 0);
        const seed = Date.now() ^ (Math.random() * 0x7fffffff);
        const cases = all.flatMap((r, i) =>
          fc
            // Request lines stay under Node's 16 KiB header limit (past it Node answers 431 and resets the socket).
            .sample(
              r.arb(ids).filter((s) => s.path.length + queryString(s).length < 12_000),
              { numRuns: Math.ceil((REQUESTS * r.weight) / weights), seed: seed + i },
            )
            .map((s) => ({ route: r.name, s })),
        );
        expect(cases.length).toBeGreaterThanOrEqual(REQUESTS);

        const failures: string[] = [];
        const statuses = new Map<string, number>();
        let next = 0;
        // Another key's live lookups (max_age=0: each one fetches from the fixture marketplace), one in every 100
        // requests, among the fuzz's requests.
        const lookups: number[] = [];
        const lookup = async (n: number) => {
          const res = await pool.request({
            method: 'GET',
            path: `/api/v1/scraper/resale-b/prices?query=${4000 + n}&country=US&max_age=0`,
            headers: { 'x-api-key': OTHER_KEY },
          });
          await res.body.dump();
          lookups.push(res.statusCode);
        };
        const worker = async () => {
          while (next < cases.length) {
            const i = next++;
            if (i % 100 === 50) await lookup(i);
            const { route, s } = cases[i]!;
            const qs = queryString(s);
            const res = await pool.request({
              method: s.method,
              path: `${s.path}${qs ? `?${qs}` : ''}`,
              headers: { ...key, ...(s.body ? { 'content-type': s.body.type } : {}) },
              ...(s.body ? { body: s.body.payload } : {}),
            });
            const text = await res.body.text();
            const answer = { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), body: text };
            const tally = `${route} ${res.statusCode}`;
            statuses.set(tally, (statuses.get(tally) ?? 0) + 1);
            const wrong = judge(s, qs, answer);
            if (wrong && failures.length < 10)
              failures.push(
                `${wrong}: ${s.method} ${s.path}?${qs.slice(0, 300)} body=${(s.body?.payload ?? '').slice(0, 200)} → ` +
                  `${res.statusCode} ${text.slice(0, 300)}`,
              );
          }
        };

        await Promise.all(Array.from({ length: CONCURRENCY }, worker));

        expect(failures, `seed ${seed}\n${failures.join('\n')}`).toEqual([]);
        expect(lookups.length).toBe(Math.round(cases.length / 100));
        expect(
          lookups.every((s) => s === 200),
          `lookups: ${lookups.join(',')}`,
        ).toBe(true);
        expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(before);
        // The generator reaches the answered paths too, not only refusals.
        const tallies = [...statuses].map(([k, n]) => `${k}×${n}`).join('\n');
        for (const route of ['GET /api/v1/db/prices 200', 'GET /api/v1/history 200', 'POST /api/v1/webhooks 201'])
          expect(statuses.get(route) ?? 0, tallies).toBeGreaterThan(0);
        const health = await pool.request({ method: 'GET', path: '/healthz' });
        expect(health.statusCode).toBe(200);
        await health.body.dump();
        const metrics = await pool.request({ method: 'GET', path: '/metrics', headers: key });
        expect(metrics.statusCode).toBe(200);
        expect(await metrics.body.text()).toContain('marketlens_http_requests_total');
      },
      // About 18 s of CPU (measured); a machine busy with other work stretches it.
      180_000,
    );
  });
}
