/**
 * `GET /api/v1/products/{sku}/history`: a product's price history across the sneaker marketplaces, from the rows
 * every lookup recorded for each linked marketplace product (links.ts) — no live lookup. One series per marketplace
 * × kind × condition (× size and currency), as JSON, CSV or an SVG chart whose legend names the marketplace.
 */
import type { FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { invalidParam, MarketlensError } from '../errors.js';
import { renderChart } from '../history/chart.js';
import { toCsv, wantsCsv } from '../history/csv.js';
import { PRICE_KINDS } from '../history/observation.js';
import { querySeries, type Interval, type Series } from '../history/series.js';
import { seriesParams, singleValued, type SeriesFormat } from '../history/series-params.js';
import { COSTS_ONE_REQUEST } from '../limits/http.js';
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';
import { problemResponses } from '../server/openapi.js';
import type { Store } from '../store/index.js';
import { readStoredProduct, type ProductLink, type StoredProduct } from './links.js';
import { mapRecordedSizes, PRICED_PER_PRODUCT, type RecordedVariant } from './size-map.js';
import { productPathSchema } from './params.js';
import { PRODUCTS_TAG } from './routes.js';
import { normaliseSku } from './sku.js';
import { PRODUCT_MARKETPLACES, SIZE_SYSTEMS, type SizeSystem } from './types.js';

/** One line: a marketplace's prices of one kind and condition at one size of the product. */
export interface ProductSeries extends Series {
  marketplace: string;
  /** The product answer's size system of `size`; null for a label no size of the answer matched, or no size. */
  size_system: SizeSystem | null;
}

export interface ProductHistoryQuery {
  from: number;
  to: number;
  size?: string;
  sizeSystem?: SizeSystem;
  kind?: string;
  interval?: Interval;
  format?: SeriesFormat;
}

export function registerProductHistoryRoute(
  app: FastifyInstance,
  deps: { guard: onRequestHookHandler; store: Store },
): void {
  app.get('/api/v1/products/:sku/history', {
    onRequest: deps.guard,
    schema: {
      operationId: 'productHistory',
      tags: [PRODUCTS_TAG],
      summary: "A product's price history across marketplaces",
      description: DESCRIPTION,
      security: [{ apiKey: [] }],
      params: productPathSchema,
      querystring: querySchema,
      response: { 200: responseSchema, ...problemResponses([400, 401, 403, 404, 429]) },
    },
    handler: async (req, reply) => {
      const sku = normaliseSku((req.params as { sku: string }).sku);
      const q = productHistoryParams(req.query as Record<string, unknown>);
      const stored = await readStoredProduct(deps.store.db, sku);
      if (!stored) throw new MarketlensError('not_found', `No product answer has found ${sku} yet`);
      if (q.size !== undefined && stored.sizes.length > 0 && !stored.sizes.some((s) => sizeMatches(s, q)))
        throw invalidParam('size', `is not a size of ${sku}${q.sizeSystem ? ` in ${q.sizeSystem}` : ''}`);
      const series = await productSeries(deps.store, stored, q);
      return sendHistory(reply, stored, q, series);
    },
  });
}

/** Every linked marketplace product's series, its recorded size labels mapped onto the product's sizes. */
export async function productSeries(
  store: Store,
  stored: StoredProduct,
  q: ProductHistoryQuery,
): Promise<ProductSeries[]> {
  const out: ProductSeries[] = [];
  for (const link of stored.links) {
    const sizes = await recordedSizes(store, link);
    const mapped = mapRecordedSizes(link.marketplace, sizes, stored.sizes);
    let labels: (string | null)[] | undefined;
    if (q.size !== undefined) {
      labels = [...mapped].filter(([, row]) => sizeMatches(row, q)).map(([raw]) => raw);
      if (PRICED_PER_PRODUCT.includes(link.marketplace)) labels.push(null);
      if (labels.length === 0) continue;
    }
    const lines = await querySeries(store.db, {
      product: { marketplace: link.marketplace, productId: link.productId },
      from: q.from,
      to: q.to,
      sizes: labels,
      kind: q.kind,
      interval: q.interval,
    });
    for (const s of lines) {
      const row = s.size === null ? undefined : mapped.get(s.size);
      out.push({
        ...s,
        marketplace: link.marketplace,
        size: row?.size ?? s.size,
        size_system: row?.size_system ?? null,
      });
    }
  }
  const order = (m: string) => PRODUCT_MARKETPLACES.indexOf(m as (typeof PRODUCT_MARKETPLACES)[number]);
  return out.sort(
    (a, b) =>
      String(a.size).localeCompare(String(b.size), 'en', { numeric: true }) ||
      order(a.marketplace) - order(b.marketplace) ||
      a.kind.localeCompare(b.kind) ||
      String(a.condition).localeCompare(String(b.condition)),
  );
}

async function recordedSizes(store: Store, link: ProductLink): Promise<RecordedVariant[]> {
  const rows = await store.db
    .selectFrom('history_variants')
    .select(['size', 'gtins'])
    .where('marketplace', '=', link.marketplace)
    .where('product_id', '=', link.productId)
    .execute();
  return rows.map((r) => ({ size: r.size, gtins: parseGtins(r.gtins) }));
}

function parseGtins(json: string): string[] {
  const v: unknown = JSON.parse(json);
  return Array.isArray(v) ? v.filter((g): g is string => typeof g === 'string') : [];
}

function sizeMatches(row: { size: string; size_system: SizeSystem }, q: ProductHistoryQuery): boolean {
  return row.size.toUpperCase() === q.size?.toUpperCase() && (!q.sizeSystem || row.size_system === q.sizeSystem);
}

/** `StockX · size 10 · lowest ask` — the legend and the JSON label name the marketplace first. */
export function productSeriesLabel(s: ProductSeries): string {
  const site = (MARKETPLACE_INFO as Record<string, { site: string } | undefined>)[s.marketplace]?.site ?? s.marketplace;
  const size =
    s.size === null ? 'all sizes' : `size ${s.size}${s.size_system ? ` ${SYSTEM_NAMES[s.size_system]}` : ''}`;
  return [site, size, s.kind.replace(/_/g, ' '), s.condition].filter(Boolean).join(' · ');
}

const SYSTEM_NAMES: Record<SizeSystem, string> = {
  us_men: "US men's",
  us_women: "US women's",
  us_kids: 'US kids',
  other: '',
};

function sendHistory(reply: FastifyReply, stored: StoredProduct, q: ProductHistoryQuery, series: ProductSeries[]) {
  const format = q.format ?? (wantsCsv(undefined, reply.request.headers.accept) ? 'csv' : 'json');
  if (format === 'csv') {
    const rows = series.flatMap((s) =>
      s.points.map((p) => ({
        marketplace: s.marketplace,
        size: s.size,
        size_system: s.size_system,
        kind: s.kind,
        condition: s.condition,
        currency: s.currency,
        ...p,
      })),
    );
    const columns = ['marketplace', 'size', 'size_system', 'kind', 'condition', 'currency', 't', 'min', 'max', 'last'];
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `inline; filename="${stored.sku.replace(/[^\w.-]/g, '_')}-history.csv"`)
      .send(toCsv(rows, [...columns, 'count']));
  }
  if (format === 'svg') {
    const title =
      `${stored.name ?? stored.sku} (${stored.sku})${q.size ? `, size ${q.size}` : ''}` +
      (q.interval ? ` (last price per ${q.interval})` : '');
    return reply.type('image/svg+xml; charset=utf-8').send(renderChart(series, title, q.interval, productSeriesLabel));
  }
  return {
    sku: stored.sku,
    name: stored.name,
    from: new Date(q.from).toISOString(),
    to: new Date(q.to).toISOString(),
    interval: q.interval ?? null,
    size: q.size ?? null,
    size_system: q.sizeSystem ?? null,
    marketplaces: stored.links.map((l) => ({ marketplace: l.marketplace, product_id: l.productId, url: l.url })),
    series: series.map((s) => ({ label: productSeriesLabel(s), ...s })),
  };
}

const KEYS = ['size', 'size_system', 'kind', 'from', 'to', 'interval', 'format'];

/** The route's query, validated: a 400 naming the parameter for anything else or anything malformed. */
export function productHistoryParams(query: Record<string, unknown>): ProductHistoryQuery {
  for (const k of Object.keys(query)) if (!KEYS.includes(k)) throw invalidParam(k, 'is not a parameter of this route');
  const str = singleValued(query);
  const { from, to, interval, kind, format } = seriesParams(str, Date.now());
  const size = str('size')?.trim();
  if (size !== undefined && (size === '' || size.length > 20)) throw invalidParam('size', 'must be a size label');
  const system = str('size_system');
  if (system !== undefined && !(SIZE_SYSTEMS as readonly string[]).includes(system))
    throw invalidParam('size_system', `must be one of ${SIZE_SYSTEMS.join(', ')}`);
  return {
    from,
    to,
    size,
    sizeSystem: system as SizeSystem | undefined,
    kind,
    interval,
    format,
  };
}

// ---- OpenAPI -------------------------------------------------------------------------------------------------

const querySchema = z.looseObject({
  size: z.string().optional().describe('Only this size, as the product answer labels it (e.g. `10`, `7Y`)'),
  size_system: z.enum(SIZE_SYSTEMS).optional().describe('With `size`: only in this size system'),
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
    .describe('`csv` (or `Accept: text/csv`) for spreadsheets; `svg` for a chart with one line per series'),
});

const pointSchema = z.object({
  t: z.string(),
  min: z.number(),
  max: z.number(),
  last: z.number(),
  count: z.number().int(),
});

const responseSchema = z
  .object({
    sku: z.string(),
    name: z.string().nullable(),
    from: z.string(),
    to: z.string(),
    interval: z.string().nullable(),
    size: z.string().nullable(),
    size_system: z.enum(SIZE_SYSTEMS).nullable(),
    marketplaces: z.array(z.object({ marketplace: z.string(), product_id: z.string(), url: z.string().nullable() })),
    series: z.array(
      z.object({
        label: z.string(),
        marketplace: z.string(),
        size: z.string().nullable(),
        size_system: z.enum(SIZE_SYSTEMS).nullable(),
        kind: z.string(),
        condition: z.string().nullable(),
        currency: z.string(),
        points: z.array(pointSchema),
      }),
    ),
  })
  .meta({
    examples: [
      {
        sku: 'DD1391-100',
        name: "Nike Dunk Low Retro White Black Panda (2021) (Men's)",
        from: '2026-10-25T00:00:00.000Z',
        to: '2026-11-24T00:00:00.000Z',
        interval: 'day',
        size: '10',
        size_system: 'us_men',
        marketplaces: [
          {
            marketplace: 'resale-a',
            product_id: '5e6a1e57-1c7d-435a-82bd-5666a13560fe',
            url: 'https://stockx.com/nike-dunk-low-retro-white-black-2021',
          },
          {
            marketplace: 'resale-b',
            product_id: '736158',
            url: 'https://www.goat.com/sneakers/dunk-low-black-white-dd1391-100',
          },
        ],
        series: [
          {
            label: "StockX · size 10 US men's · lowest ask",
            marketplace: 'resale-a',
            size: '10',
            size_system: 'us_men',
            kind: 'lowest_ask',
            condition: null,
            currency: 'USD',
            points: [{ t: '2026-11-23T00:00:00.000Z', min: 104, max: 109, last: 107, count: 4 }],
          },
          {
            label: "GOAT · size 10 US men's · lowest price · new_no_defects/good_condition",
            marketplace: 'resale-b',
            size: '10',
            size_system: 'us_men',
            kind: 'lowest_price',
            condition: 'new_no_defects/good_condition',
            currency: 'USD',
            points: [{ t: '2026-11-23T00:00:00.000Z', min: 98, max: 101, last: 99, count: 4 }],
          },
        ],
      },
    ],
  });

const DESCRIPTION =
  "The prices every lookup recorded for this product's pages on each marketplace (StockX, GOAT, Nike) — linked to " +
  'the SKU by the product answers (`GET /api/v1/products/{sku}`), so this answers without a live lookup; a SKU no ' +
  'product answer has found yet is 404. One series per marketplace × kind × condition (× size and currency); each ' +
  "marketplace's size labels are mapped onto the product answer's sizes (by GTIN, else by the size label), and " +
  "Nike's one price for every size appears under any `size` as `all sizes`. Prices are never converted. Without " +
  '`interval` every observation is a point; with it, min, max and last per bucket. `format=csv` (or ' +
  '`Accept: text/csv`) answers CSV; `format=svg` a chart with one line per series and a legend naming the ' +
  `marketplace. ${COSTS_ONE_REQUEST}\n\n` +
  'Example: `/api/v1/products/DD1391-100/history?size=10&interval=day&format=svg`';
