/** `GET /api/v1/history`: the price series of one lookup, as JSON, CSV or an SVG chart. */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { COSTS_ONE_REQUEST } from '../limits/http.js';
import { problemResponses } from '../server/openapi.js';
import type { Store } from '../store/index.js';
import { renderChart, seriesLabel } from './chart.js';
import { toCsv, wantsCsv } from './csv.js';
import type { Registry } from '../operations/registry.js';
import { RECORDED_OPERATIONS, recordedOperations } from './extract/index.js';
import { PRICE_KINDS } from './observation.js';
import { historyParams } from './params.js';
import { withRecorded } from './recorded-schema.js';
import { sendCsv } from './send-csv.js';
import { querySeries } from './series.js';
import { HISTORY_TAG } from './tag.js';

export interface HistoryRouteDeps {
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  store: Store;
  /** The app's marketplaces and operations: whose lookups have a price series. */
  registry: Registry;
}

export function registerHistoryRoute(app: FastifyInstance, deps: HistoryRouteDeps): void {
  const { store, registry } = deps;
  app.get('/api/v1/history', {
    onRequest: deps.guard,
    schema: {
      operationId: 'history',
      tags: [HISTORY_TAG],
      summary: 'Price series of a lookup',
      description: HISTORY_DESCRIPTION,
      security: [{ apiKey: [] }],
      querystring: withRecorded(historyQuerySchema, recordedOperations(registry)),
      response: { 200: historyResponseSchema, ...problemResponses([400, 401, 403, 429]) },
    },
    handler: async (req, reply) => {
      const h = historyParams(req.query as Record<string, unknown>, registry);
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
