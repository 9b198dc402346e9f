/**
 * The Retailed-style db API: `GET /api/v1/db/{products,prices,variants}`, the stored history in Retailed's envelope,
 * filterable, sortable, as JSON or CSV.
 */
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { invalidParam } from '../errors.js';
import { COSTS_ONE_REQUEST } from '../limits/http.js';
import { problemResponses } from '../server/openapi.js';
import type { Store } from '../store/index.js';
import { toCsv, wantsCsv } from './csv.js';
import { COLLECTIONS, type CollectionName, type FieldDef, type FieldType } from './db-api/collections.js';
import { OMITTED_WHEN_UNKNOWN, toDoc, withoutUnknown } from './db-api/docs.js';
import { findOptions, findPage } from './db-api/find.js';
import { parseNestedQuery } from './db-api/nested-query.js';
import { OPERATORS } from './db-api/where.js';
import { sendCsv } from './send-csv.js';
import { HISTORY_TAG } from './tag.js';

export interface DbRouteDeps {
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  store: Store;
}

export function registerDbRoutes(app: FastifyInstance, deps: DbRouteDeps): void {
  const { store } = deps;
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
}

/** The raw query string: the bracket keys are nested by our own parser (Fastify's keeps them flat). */
function rawQuery(req: FastifyRequest): string {
  const i = req.url.indexOf('?');
  return i < 0 ? '' : req.url.slice(i + 1);
}

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
