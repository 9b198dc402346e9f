/**
 * Price-history routes beyond the spec (CONTRACT §8), under their own OpenAPI tag: the Retailed-style
 * `GET /api/v1/db/{products,prices,variants}` and the series `GET /api/v1/history` (JSON, CSV or an SVG chart).
 * Registered from buildApp with one line; also wires the recorder to the live-result seam.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Counter, type Registry } from 'prom-client';
import { z } from 'zod';
import { cacheKey } from '../cache/cache-key.js';
import type { Config } from '../config.js';
import { invalidParam, MarketlensError } from '../errors.js';
import { COSTS_ONE_REQUEST } from '../limits/http.js';
import { getOperation } from '../operations/registry.js';
import { problemResponses } from '../server/openapi.js';
import { zodToInvalidParameter } from '../server/problem.js';
import { createScheduler, getJob, removeJob, setJobPaused, type Scheduler } from '../schedule/index.js';
import { openStore, type Store } from '../store/index.js';
import { renderChart, seriesLabel } from './chart.js';
import { toCsv, wantsCsv } from './csv.js';
import { COLLECTIONS, type CollectionName, type FieldDef, type FieldType } from './db-api/collections.js';
import { OMITTED_WHEN_UNKNOWN, toDoc, withoutUnknown } from './db-api/docs.js';
import { findOptions, findPage } from './db-api/find.js';
import { parseNestedQuery } from './db-api/nested-query.js';
import { OPERATORS } from './db-api/where.js';
import { RECORDED_OPERATIONS } from './extract/index.js';
import { PRICE_KINDS } from './observation.js';
import { HistoryRecorder } from './recorder.js';
import { INTERVALS, querySeries, type Interval } from './series.js';
import { EARLIEST_TIME_MS, parseTimeParam } from './time-param.js';
import { isSkuTrackBody, parseSkuTrackRequest, SKU_TRACK_FIELDS } from '../products/track-sku.js';
import { addTrackedWithinCap, listTrackedByOwner } from './track-cap.js';
import { DEFAULT_INTERVAL_S, MIN_INTERVAL_S, parseTrackRequest, TRACK_KIND, trackDoc, trackHandler } from './track.js';

export const HISTORY_TAG = 'Price history';

declare module 'fastify' {
  interface FastifyInstance {
    /** Price history: the store it writes to and its recorder (`recorder.onObserved` feeds the alerts). */
    history: { store: Store; recorder: HistoryRecorder; scheduler: Scheduler };
  }
}

export interface HistoryDeps {
  config: Config;
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  /** An already opened store; one is opened from the config when absent. */
  store?: Store;
}

export async function registerHistory(app: FastifyInstance, deps: HistoryDeps): Promise<void> {
  const store = deps.store ?? (await openStore(deps.config, app.log));
  const counter = historyCounter(app.marketlens.metrics.registry);
  const recorder = new HistoryRecorder(store.db, {
    retentionDays: deps.config.historyRetentionDays,
    log: app.log,
    count: (result, n) => counter.inc({ result }, n),
    health: store.health,
  });
  const detach = recorder.attach(app.marketlens.liveResults);
  const stopPrune = recorder.startDailyPrune();
  const scheduler = createScheduler(deps.config, store.db, app.log);
  scheduler.handle(TRACK_KIND, trackHandler(app));
  app.decorate('history', { store, recorder, scheduler });
  // Jobs start once the app is ready (every route and decoration in place), never during registration.
  app.addHook('onReady', async () => scheduler.start());
  app.addHook('onClose', async () => {
    await scheduler.stop();
    detach();
    stopPrune();
    await recorder.close();
    if (!deps.store) await store.close();
  });

  for (const name of Object.keys(COLLECTIONS) as CollectionName[]) {
    app.get(`/api/v1/db/${name}`, {
      onRequest: deps.guard,
      schema: {
        operationId: `db${name[0]!.toUpperCase()}${name.slice(1)}`,
        tags: [HISTORY_TAG],
        summary: `Stored ${name} (Retailed db API)`,
        description: dbDescription(name),
        security: [{ apiKey: [] }],
        querystring: dbQuerySchema(name),
        response: { 200: envelopeSchema(name), ...problemResponses([400, 401, 403, 429]) },
      },
      handler: async (req, reply) => {
        const q = parseNestedQuery(rawQuery(req));
        const page = await findPage(store.db, COLLECTIONS[name], findOptions(q, COLLECTIONS[name]));
        const docs = page.docs.map((r) => toDoc(name, r));
        if (wantsCsv(q.format, req.headers.accept)) return sendCsv(reply, `${name}.csv`, toCsv(docs));
        if (q.format !== undefined && q.format !== 'json') throw invalidParam('format', 'must be json or csv');
        return { ...page, docs: docs.map((d) => withoutUnknown(name, d)) };
      },
    });
  }

  app.post('/api/v1/db/products', {
    onRequest: deps.guard,
    schema: {
      operationId: 'trackProduct',
      tags: [HISTORY_TAG],
      summary: 'Track a product (refetched on schedule)',
      description: TRACK_DESCRIPTION,
      security: [{ apiKey: [] }],
      body: trackBodySchema,
      response: { 201: trackedSchema, ...problemResponses([400, 401, 403, 409, 429]) },
    },
    handler: async (req, reply) => {
      if (!req.apiKey) throw new MarketlensError('missing_api_key', 'Send your API key in the x-api-key header');
      const ownerKeyId = req.apiKey.id;
      const { payload, intervalMs } = isSkuTrackBody(req.body)
        ? parseSkuTrackRequest(req.body, ownerKeyId)
        : parseTrackRequest(req.body, ownerKeyId);
      const job = await addTrackedWithinCap(
        store.db,
        store.engine,
        deps.config.maxTrackedPerKey,
        { ...payload, ownerKeyId },
        intervalMs,
      );
      scheduler.changed();
      return reply.code(201).send(trackDoc(job));
    },
  });

  app.get('/api/v1/tracked', {
    onRequest: deps.guard,
    schema: {
      operationId: 'listTracked',
      tags: [HISTORY_TAG],
      summary: 'Your tracked products',
      description:
        'The products this key tracks (`POST /api/v1/db/products`), oldest first: what is refetched, how often, ' +
        `when next, and the last error. ${COSTS_ONE_REQUEST}`,
      security: [{ apiKey: [] }],
      response: { 200: z.object({ data: z.array(trackedSchema) }), ...problemResponses([401, 403, 429]) },
    },
    handler: async (req) => {
      if (!req.apiKey) throw new MarketlensError('missing_api_key', 'Send your API key in the x-api-key header');
      return { data: (await listTrackedByOwner(store.db, store.engine, req.apiKey.id)).map(trackDoc) };
    },
  });

  app.delete('/api/v1/db/products/:id', {
    onRequest: deps.guard,
    schema: {
      operationId: 'untrackProduct',
      tags: [HISTORY_TAG],
      summary: 'Stop tracking a product',
      description:
        'Stops the refetches of a tracked product (its recorded history stays). Only the key that tracked it may stop it. ' +
        COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: z.object({ id: z.string().max(100) }),
      response: { 204: z.null().describe('Stopped'), ...problemResponses([400, 401, 403, 404, 429]) },
    },
    handler: async (req, reply) => {
      const { id } = req.params as { id: string };
      const job = await getJob(store.db, id);
      const owner = (job?.payload as { ownerKeyId?: string | null } | undefined)?.ownerKeyId;
      if (!job || job.kind !== TRACK_KIND || (owner && owner !== req.apiKey?.id)) {
        throw new MarketlensError('not_found', `No tracked product ${id} for this key`);
      }
      await removeJob(store.db, id, TRACK_KIND);
      scheduler.changed();
      return reply.code(204).send();
    },
  });

  app.patch('/api/v1/db/products/:id', {
    onRequest: deps.guard,
    schema: {
      operationId: 'setTrackedPaused',
      tags: [HISTORY_TAG],
      summary: 'Pause or resume a tracked product',
      description:
        'Body `{"paused": true}` stops the refetches of a tracked product and keeps it (its history, and its place ' +
        'under the per-key cap); `{"paused": false}` resumes it: one fetch at once, then every interval from there ' +
        '(the fetches missed while paused are not made up). A paused product answers `paused: true` and ' +
        '`nextRunAt: null`. Only the key that tracked it may pause it. ' +
        COSTS_ONE_REQUEST,
      security: [{ apiKey: [] }],
      params: z.object({ id: z.string().max(100) }),
      body: pauseBodySchema,
      response: { 200: trackedSchema, ...problemResponses([400, 401, 403, 404, 429]) },
    },
    handler: async (req) => {
      const { id } = req.params as { id: string };
      const { paused } = req.body as z.infer<typeof pauseBodySchema>;
      const job = await getJob(store.db, id);
      const owner = (job?.payload as { ownerKeyId?: string | null } | undefined)?.ownerKeyId;
      if (!job || job.kind !== TRACK_KIND || (owner && owner !== req.apiKey?.id)) {
        throw new MarketlensError('not_found', `No tracked product ${id} for this key`);
      }
      const updated = await setJobPaused(store.db, id, paused, TRACK_KIND);
      if (!updated) throw new MarketlensError('not_found', `No tracked product ${id} for this key`);
      scheduler.changed();
      return trackDoc(updated);
    },
  });

  app.get('/api/v1/history', {
    onRequest: deps.guard,
    schema: {
      operationId: 'history',
      tags: [HISTORY_TAG],
      summary: 'Price series of a lookup',
      description: HISTORY_DESCRIPTION,
      security: [{ apiKey: [] }],
      querystring: historyQuerySchema,
      response: { 200: historyResponseSchema, ...problemResponses([400, 401, 403, 429]) },
    },
    handler: async (req, reply) => {
      const h = historyParams(req.query as Record<string, unknown>);
      const series = await querySeries(store.db, h.series);
      const format = h.format ?? (wantsCsv(undefined, req.headers.accept) ? 'csv' : 'json');
      if (format === 'csv') {
        const rows = series.flatMap((s) =>
          s.points.map((p) => ({ size: s.size, kind: s.kind, condition: s.condition, currency: s.currency, ...p })),
        );
        return sendCsv(
          reply,
          'history.csv',
          toCsv(rows, ['size', 'kind', 'condition', 'currency', 't', 'min', 'max', 'last', 'count']),
        );
      }
      if (format === 'svg') {
        const title = `${h.operation} ${String(h.params.query ?? '')}${h.series.interval ? ` (last price per ${h.series.interval})` : ''}`;
        return reply.type('image/svg+xml; charset=utf-8').send(renderChart(series, title, h.series.interval));
      }
      return {
        operation: h.operation,
        params: h.params,
        from: new Date(h.series.from).toISOString(),
        to: new Date(h.series.to).toISOString(),
        interval: h.series.interval ?? null,
        series: series.map((s) => ({ label: seriesLabel(s), ...s })),
      };
    },
  });
}

/** `marketlens_history_results_total{result}`: written, failed, dropped (one registry may serve several apps in tests). */
function historyCounter(registry: Registry): Counter<'result'> {
  const name = 'marketlens_history_results_total';
  const existing = registry.getSingleMetric(name) as Counter<'result'> | undefined;
  return (
    existing ??
    new Counter({
      name,
      help: 'Live results the price history wrote, had refused by the database, or dropped (queue full while the database was unavailable)',
      labelNames: ['result'] as const,
      registers: [registry],
    })
  );
}

/** The raw query string: the bracket keys are nested by our own parser (Fastify's keeps them flat). */
function rawQuery(req: FastifyRequest): string {
  const i = req.url.indexOf('?');
  return i < 0 ? '' : req.url.slice(i + 1);
}

function sendCsv(reply: FastifyReply, filename: string, body: string) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `inline; filename="${filename}"`)
    .send(body);
}

const HISTORY_KEYS = ['operation', 'size', 'kind', 'from', 'to', 'interval', 'format', 'max_age'] as const;
const DAY = 86_400_000;

/** Splits the history route's own parameters from the lookup's, validates both; the lookup's go through its schema. */
export function historyParams(query: Record<string, unknown>) {
  const str = (k: string): string | undefined => {
    const v = query[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw invalidParam(k, 'must be given once');
    return v;
  };
  const opName = str('operation');
  if (!opName) throw invalidParam('operation', `is required: one of ${RECORDED_OPERATIONS.join(', ')}`);
  const op = getOperation(opName);
  if (!op || !RECORDED_OPERATIONS.includes(op.name))
    throw invalidParam('operation', `must be one of ${RECORDED_OPERATIONS.join(', ')}`);
  const lookupParams = Object.fromEntries(
    Object.entries(query).filter(([k]) => !(HISTORY_KEYS as readonly string[]).includes(k)),
  );
  const checked = op.params.safeParse(lookupParams);
  if (!checked.success) throw zodToInvalidParameter(checked.error);
  const canonical = op.canonicalParams ? op.canonicalParams(checked.data) : checked.data;
  const time = (k: 'from' | 'to', def: number): number => {
    const v = str(k);
    if (v === undefined) return def;
    const ms = parseTimeParam(v);
    if (ms === undefined) throw invalidParam(k, 'must be an ISO 8601 date or time');
    return ms;
  };
  const to = time('to', Date.now() + 1);
  // The default start stays a time a Date holds, even for a `to` at the very start of that range.
  const from = time('from', Math.max(to - 30 * DAY, EARLIEST_TIME_MS));
  if (from >= to) {
    if (str('from') === undefined) throw invalidParam('to', 'must be later than the earliest time a date holds');
    throw invalidParam('from', 'must be before to');
  }
  const interval = str('interval');
  if (interval !== undefined && !Object.hasOwn(INTERVALS, interval))
    throw invalidParam('interval', 'must be hour, day or week');
  const kind = str('kind');
  if (kind !== undefined && !(PRICE_KINDS as readonly string[]).includes(kind))
    throw invalidParam('kind', `must be one of ${PRICE_KINDS.join(', ')}`);
  const format = str('format');
  if (format !== undefined && !['json', 'csv', 'svg'].includes(format))
    throw invalidParam('format', 'must be json, csv or svg');
  return {
    operation: op.name,
    params: canonical,
    format: format as 'json' | 'csv' | 'svg' | undefined,
    series: {
      lookupKey: cacheKey(op.name, canonical),
      from,
      to,
      size: str('size'),
      kind,
      interval: interval as Interval | undefined,
    },
  };
}

// ---- OpenAPI -------------------------------------------------------------------------------------------------

/** A filter operand as a generated client sends it: in the field's own type, or as query-string text. */
function operand(type: FieldType): z.ZodType {
  switch (type) {
    case 'number':
      return z.union([z.number(), z.string()]);
    case 'boolean':
      return z.union([z.boolean(), z.enum(['true', 'false'])]);
    case 'date':
      return z.string().describe('ISO 8601 date or time, or ms since epoch');
    default:
      return z.string();
  }
}

/** The operators of one field, by its type: one shared OpenAPI component per type (`DbStringFilter` …). */
function fieldFilter(type: FieldType): z.ZodType {
  const value = operand(type);
  const list = z.string().describe('Comma-separated values');
  const shape = Object.fromEntries(
    OPERATORS.map((op): [string, z.ZodType] => {
      if (op === 'in' || op === 'not_in') return [op, list.optional()];
      if (op === 'exists') return [op, operand('boolean').optional().describe('true: has a value; false: has none')];
      return [op, value.optional()];
    }),
  );
  const id = `Db${type[0]!.toUpperCase()}${type.slice(1)}Filter`;
  return z
    .object(shape)
    .strict()
    .meta({ id, description: `Operators on a ${type} field` });
}

const FIELD_FILTERS: Record<FieldType, z.ZodType> = {
  string: fieldFilter('string'),
  number: fieldFilter('number'),
  date: fieldFilter('date'),
  boolean: fieldFilter('boolean'),
};

/**
 * The query string of a db collection. The filter is documented as one `deepObject` parameter per field
 * (`where[size]` → `where[size][equals]=10`), whose schema lists that field's operators: the default query
 * serializers of openapi-fetch and @hey-api/openapi-ts expand one object level, so a generated client sends a filter
 * without a cast or its own serializer. Validation stays with the db API's own parser (it reads the raw query string,
 * `or`/`and` groups included); `page` and `limit` are documented as the integers they are.
 */
function dbQuerySchema(name: CollectionName) {
  const fields = Object.entries(COLLECTIONS[name].fields as Record<string, FieldDef>);
  return z.looseObject({
    ...Object.fromEntries(
      fields.map(([field, def]) => [
        `where[${field}]`,
        FIELD_FILTERS[def.type]
          .optional()
          .describe(
            `Filter on \`${field}\`: \`where[${field}][<operator>]=<value>\`. Several fields must all match; Payload's ` +
              `groups \`where[or][0][and][0][${field}][equals]=…\` are accepted too.`,
          ),
      ]),
    ),
    sort: z
      .string()
      .optional()
      .describe('Field to sort by, `-field` for descending; comma-separated for several. Default newest first.'),
    // Validated by the db API's own parser (400 naming the parameter); documented as integers for generated clients.
    page: z.string().optional().meta({ type: 'integer', minimum: 1 }).describe('Page number, from 1'),
    limit: z
      .string()
      .optional()
      .meta({ type: 'integer', minimum: 1, maximum: 100 })
      .describe('Documents per page: default 10, at most 100'),
    format: z.enum(['json', 'csv']).optional().describe('`csv` for spreadsheets (same as `Accept: text/csv`)'),
  });
}

const EXAMPLE_DOCS: Record<CollectionName, Record<string, unknown>> = {
  prices: {
    id: 'mie1x2a3bQk7f9d2Lp',
    name: 'stockx-us',
    product: 'ef4b2b9b-ab4d-41af-b56a-c4937e8f7a1e',
    size: '10',
    price: 241,
    createdAt: '2026-11-24T12:00:00.000Z',
    updatedAt: '2026-11-24T12:00:00.000Z',
    currency: 'USD',
    kind: 'lowest_ask',
    condition: null,
    country: 'US',
    observed_at: '2026-11-24T12:00:00.000Z',
    inStock: null,
    marketplace: 'resale-a',
    operation: 'resale-a.product',
  },
  products: {
    id: 'resale-b:1341930',
    productId: '1341930',
    marketplace: 'resale-b',
    name: "Tazz Slipper Kids 'Sand'",
    url: 'https://www.goat.com/sneakers/tazz-slipper-kids-sand-1143776k-san',
    domain: 'goat.com',
    image: null,
    sku: '1143776K SAN',
    price: 90,
    currency: 'USD',
    lastCrawledAt: '2026-11-24T12:00:00.000Z',
    errorCrawling: null,
    isNotFound: false,
    firstSeenAt: '2026-11-20T08:00:00.000Z',
    lastSeenAt: '2026-11-24T12:00:00.000Z',
    createdAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-24T12:00:00.000Z',
  },
  variants: {
    id: 'sportswear:DD1391-100:10',
    product: 'DD1391-100',
    marketplace: 'sportswear',
    size: '10',
    sizeSystem: null,
    gtins: ['00195866042125'],
    createdAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-24T12:00:00.000Z',
  },
};

function envelopeSchema(name: CollectionName) {
  return z
    .object({
      docs: z.array(z.record(z.string(), z.unknown())),
      totalDocs: z.number().int(),
      limit: z.number().int(),
      totalPages: z.number().int(),
      page: z.number().int(),
      pagingCounter: z.number().int(),
      hasPrevPage: z.boolean(),
      hasNextPage: z.boolean(),
      prevPage: z.number().int().nullable(),
      nextPage: z.number().int().nullable(),
    })
    .meta({
      examples: [
        {
          docs: [EXAMPLE_DOCS[name]],
          totalDocs: 1,
          limit: 10,
          totalPages: 1,
          page: 1,
          pagingCounter: 1,
          hasPrevPage: false,
          hasNextPage: false,
          prevPage: null,
          nextPage: null,
        },
      ],
    });
}

function dbDescription(name: CollectionName): string {
  return (
    `Stored ${name}, recorded from every live lookup, in Retailed's db API envelope. Filterable fields: ` +
    `${Object.keys(COLLECTIONS[name].fields)
      .map((f) => `\`${f}\``)
      .join(', ')}. Unknown fields or operators answer 400 naming them. ${COSTS_ONE_REQUEST}\n\n` +
    (OMITTED_WHEN_UNKNOWN[name].length > 0
      ? `A value the source lacked is left out of the JSON document rather than null, as Retailed's docs leave it out: ` +
        `${OMITTED_WHEN_UNKNOWN[name].map((f) => `\`${f}\``).join(', ')} (CSV keeps the column, empty). Every ` +
        "marketplace records the product's name and page URL; only a GOAT product seen through its prices alone " +
        '(which carry neither) lacks them.\n\n'
      : '') +
    `Example: \`/api/v1/db/${name}?where[or][0][and][0][marketplace][equals]=resale-a&sort=-createdAt&limit=20\``
  );
}

const historyQuerySchema = z.looseObject({
  operation: z.enum(RECORDED_OPERATIONS as [string, ...string[]]).describe('The lookup whose prices to show'),
  query: z
    .string()
    .optional()
    .describe("The lookup's `query`; every other parameter of that lookup (e.g. `country`) is accepted too"),
  // The product and price lookups' other parameters, named so that generated clients can send them.
  country: z
    .string()
    .optional()
    .describe("The lookup's `country` (resale-a.product, resale-b.prices, sportswear.product, watchmarket.search)"),
  currency: z.string().optional().describe("The lookup's `currency` (resale-a.product, watchmarket.search)"),
  language: z.string().optional().describe("The lookup's `language` (resale-a.product, watchmarket.search)"),
  size: z.string().optional().describe('Only this size'),
  kind: z.enum(PRICE_KINDS).optional().describe('Only this price kind'),
  from: z.string().optional().describe('Start (ISO 8601); default 30 days before `to`'),
  to: z.string().optional().describe('End, exclusive (ISO 8601); default now'),
  interval: z
    .enum(['hour', 'day', 'week'])
    .optional()
    .describe('Bucket the prices: min, max and last per bucket (weeks start Monday, UTC)'),
  format: z
    .enum(['json', 'csv', 'svg'])
    .optional()
    .describe('`csv` (or `Accept: text/csv`) for spreadsheets; `svg` for a chart'),
});

const historyResponseSchema = z
  .object({
    operation: z.string(),
    params: z.record(z.string(), z.unknown()),
    from: z.string(),
    to: z.string(),
    interval: z.string().nullable(),
    series: z.array(
      z.object({
        label: z.string(),
        size: z.string().nullable(),
        kind: z.string(),
        condition: z.string().nullable(),
        currency: z.string(),
        points: z.array(
          z.object({ t: z.string(), min: z.number(), max: z.number(), last: z.number(), count: z.number().int() }),
        ),
      }),
    ),
  })
  .meta({
    examples: [
      {
        operation: 'resale-b.prices',
        params: { query: '1341930', country: 'US' },
        from: '2026-10-25T00:00:00.000Z',
        to: '2026-11-24T00:00:00.000Z',
        interval: 'day',
        series: [
          {
            label: 'size 5 · lowest price · new_no_defects/good_condition',
            size: '5',
            kind: 'lowest_price',
            condition: 'new_no_defects/good_condition',
            currency: 'USD',
            points: [{ t: '2026-11-23T00:00:00.000Z', min: 121, max: 125, last: 123, count: 4 }],
          },
        ],
      },
    ],
  });

const HISTORY_DESCRIPTION =
  "Prices recorded from live lookups with exactly these lookup parameters (`operation` plus that lookup's own " +
  'parameters, e.g. `query` and `country`), one series per size × kind × condition × currency. Without `interval` ' +
  'every observation is a point (min = max = last); with it, each bucket gives min, max and last. ' +
  '`format=csv` (or `Accept: text/csv`) answers CSV; `format=svg` an SVG line chart (one line per size or kind, ' +
  `axes with currency and dates). ${COSTS_ONE_REQUEST}\n\n` +
  'Example: `/api/v1/history?operation=resale-b.prices&query=1341930&country=US&interval=day&format=svg`';

const trackBodySchema = z
  .looseObject({
    operation: z
      .enum(RECORDED_OPERATIONS as [string, ...string[]])
      .optional()
      .describe('The lookup to repeat (required unless `sku` is given)'),
    ...SKU_TRACK_FIELDS,
    query: z.string().optional().describe("The lookup's `query`; its other parameters (e.g. `country`) go beside it"),
    interval: z
      .union([z.number(), z.string()])
      .optional()
      .describe(
        `Seconds between fetches (or \`15m\`, \`1h\`); at least ${MIN_INTERVAL_S}, default ${DEFAULT_INTERVAL_S}`,
      ),
  })
  .meta({
    examples: [
      { operation: 'resale-b.prices', query: '1341930', country: 'US', interval: 900 },
      { sku: 'DD1391-100', country: 'US', interval: '15m' },
    ],
  });

const pauseBodySchema = z
  .object({ paused: z.boolean().describe('true pauses the refetches, false resumes them') })
  .strict()
  .meta({ examples: [{ paused: true }] });

const trackedSchema = z
  .object({
    id: z.string(),
    operation: z.string(),
    params: z.record(z.string(), z.unknown()),
    interval: z.number().describe('Seconds'),
    nextRunAt: z.string().nullable().describe('When it is next refetched; null while paused'),
    paused: z.boolean().describe('Paused: not refetched until resumed (`PATCH /api/v1/db/products/{id}`)'),
    lastRunAt: z.string().nullable(),
    lastError: z.string().nullable(),
    runs: z.number().int(),
    createdAt: z.string(),
  })
  .meta({
    examples: [
      {
        id: '0b7e7c1e-5d7a-4f7e-9d8a-2f1f2c3d4e5f',
        operation: 'resale-b.prices',
        params: { query: '1341930', country: 'US' },
        interval: 900,
        nextRunAt: '2026-11-24T12:00:00.000Z',
        paused: false,
        lastRunAt: null,
        lastError: null,
        runs: 0,
        createdAt: '2026-11-24T12:00:00.000Z',
      },
    ],
  });

const TRACK_DESCRIPTION =
  'Refetches a lookup on a schedule through the normal lookup path (cache, de-duplication, upstream politeness and ' +
  "this key's rate limit and quota), so its prices build up in the history without anyone asking. Body: " +
  "`{operation, query, …the lookup's other parameters, interval}`, or by SKU `{sku, country?, currency?, interval}`: " +
  'each run is then one product answer across StockX, GOAT and Nike (`operation` `product` in the answer). ' +
  'The first fetch happens at once. With ' +
  '`MARKETLENS_REDIS_URL` every instance shares the schedule (each product fetched once per interval across the ' +
  'cluster); otherwise the schedule lives in the database and survives a restart. ' +
  'Beyond Retailed: its `POST /db/products` is not documented. A key tracks at most MARKETLENS_MAX_TRACKED_PER_KEY ' +
  `products (default 1000): past it, 409 \`limit_reached\`. ${COSTS_ONE_REQUEST} Each scheduled fetch counts as 1 too.`;
