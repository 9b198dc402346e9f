/**
 * /openapi.json and /docs, generated from the same zod schemas that validate requests and records.
 */
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';

/** The OpenAPI tag of the extensions beyond the spec's eight lookups (CONTRACT §8). */
export const BEYOND_SPEC_TAG = 'Beyond the spec';

/** The OpenAPI tag of the real-site (Retailed) alias paths, each documented as its own operation. */
export const ALIAS_TAG = 'Retailed aliases';

export const problemSchema = z
  .object({
    type: z.string().describe('`/docs/errors#<code>`'),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    detail: z.string(),
    error: z.string().describe('Same as `code`, for clients of other product-data APIs'),
    message: z.string().describe('Same as `detail`'),
    request_id: z.string(),
    errors: z
      .array(z.object({ param: z.string(), message: z.string() }))
      .optional()
      .describe('One entry per bad parameter'),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem details (`application/problem+json`), the one error shape of every route',
    examples: [
      {
        type: '/docs/errors#invalid_parameter',
        title: 'Invalid parameter',
        status: 400,
        code: 'invalid_parameter',
        detail: 'country: must be one of US, UK, FR',
        error: 'invalid_parameter',
        message: 'country: must be one of US, UK, FR',
        request_id: '3f0c2a8e-6d0b-4a0e-9d7e-2b1f5c9a7e11',
        errors: [{ param: 'country', message: 'must be one of US, UK, FR' }],
      },
    ],
  });

const ERROR_TABLE = Object.entries(ERROR_CODES)
  .map(([code, v]) => `| ${v.status} | \`${code}\` | ${v.title} |`)
  .join('\n');

/** The error statuses a lookup operation can answer. */
export const LOOKUP_ERROR_STATUSES = [400, 401, 403, 404, 429, 501, 502, 503, 504] as const;

/**
 * Error responses of a route, each the Problem document described with the codes behind its status: by default
 * every status a lookup can give; other routes (history, webhooks, status…) name the statuses they answer.
 */
export function problemResponses(statuses: readonly number[] = LOOKUP_ERROR_STATUSES): Record<number, z.ZodType> {
  const by = (status: number) =>
    problemSchema.describe(
      Object.entries(ERROR_CODES)
        .filter(([, v]) => v.status === status)
        .map(([code]) => code)
        .join(', '),
    );
  return Object.fromEntries(statuses.map((s) => [s, by(s)]));
}

export async function registerOpenApi(app: FastifyInstance, version: string, publicUrl?: string): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'marketlens',
        version,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Self-hosted, read-only product-data API: live, structured data from watch, sneaker, sportswear and ' +
          "electronics marketplaces. Every route also exists under the real site's name (e.g. `/api/v1/scraper/goat/prices`).\n\n" +
          '## Errors\n\nEvery error is `application/problem+json` (see the `Problem` schema):\n\n' +
          '| status | code | meaning |\n|---|---|---|\n' +
          ERROR_TABLE +
          '\n\n## Caching\n\nResponses carry `X-Cache` (hit, miss, stale, shared), `Age`, `Last-Modified` and ' +
          '`Server-Timing`. `max_age` (seconds) or `Cache-Control: no-cache` bound how old an answer may be.',
      },
      tags: [
        ...Object.values(MARKETPLACE_INFO).map((m) => ({
          name: m.site,
          description: `${m.site} lookups of the spec (alias paths \`/${m.alias}/\`)`,
        })),
        { name: 'Account', description: "The calling key's own limits and usage" },
        {
          name: ALIAS_TAG,
          description:
            "Every lookup again at the real site's path (`/api/v1/scraper/stockx/product` …), as the Retailed API " +
            'names them: the same parameters, answers and errors as the neutral path, so that existing Retailed ' +
            'clients and clients generated from this document can call either.',
        },
        {
          name: 'Products',
          description: 'One product by SKU across StockX, GOAT and Nike, per size (beyond the spec; docs/products.md)',
        },
        {
          name: BEYOND_SPEC_TAG,
          description:
            "Extensions beyond the spec's eight lookups, for clients of the Retailed API (e.g. `stockx/trends`)",
        },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: 'Your API key. `Authorization: Bearer <key>` is accepted too when `x-api-key` is absent.',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (doc) => finishDocument(jsonSchemaTransformObject(doc) as OpenApiDocument),
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/openapi.json', { schema: { hide: true } }, async (req, reply) => {
    const doc = app.swagger() as OpenApiDocument;
    const { openapi, info, ...rest } = doc;
    return reply.send({ openapi, info, servers: [{ url: publicUrl ?? requestOrigin(req) }], ...rest });
  });
}

/** The parts of the generated document finishDocument edits; the rest passes through untouched. */
interface OpenApiParameter {
  in?: string;
  schema?: { $ref?: unknown; type?: unknown };
}
interface OpenApiOperation {
  requestBody?: { required?: boolean };
  parameters?: OpenApiParameter[];
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
interface OpenApiDocument {
  [key: string]: unknown;
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

/** A Host header we are willing to echo into `servers` (name or IP, optional port); anything else → relative. */
const SANE_HOST = /^(?:[a-z0-9.-]{1,253}|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;

/**
 * The base URL this request reached us at: its scheme and Host (X-Forwarded-Proto/-Host from a trusted proxy,
 * MARKETLENS_TRUST_PROXY); `/` (relative) when the host is not a plain host.
 */
function requestOrigin(req: FastifyRequest): string {
  const host = req.host;
  return host && SANE_HOST.test(host) ? `${req.protocol}://${host}` : '/';
}

/** Whether a parameter schema (or the component it refers to) is an object. */
function isObjectSchema(schema: { $ref?: unknown; type?: unknown } | undefined, doc: OpenApiDocument): boolean {
  const ref = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
  const target = (ref ? doc.components?.schemas?.[decodeURIComponent(ref)] : schema) as { type?: unknown } | undefined;
  return target?.type === 'object';
}

/**
 * What the generators do not say on their own: every error is `application/problem+json`; a body on GET (the
 * finder's `query`) is optional, since its parameters may come from the query string; an object parameter in the
 * query string is a deepObject (the db filters); and components only one
 * side of a schema produced (zod's `…Input` twins of response records) are dropped, unused.
 */
export function finishDocument(doc: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      // Only on GET: the bodies of POST and PATCH (webhooks, tracked products) stay as required as their schemas say.
      if (method === 'get' && operation.requestBody) operation.requestBody.required = false;
      // An object in the query string is a deepObject (`where[size][equals]=10`), not the default form style.
      for (const param of operation.parameters ?? []) {
        if (param.in === 'query' && isObjectSchema(param.schema, doc))
          Object.assign(param, { style: 'deepObject', explode: true });
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const json = response.content?.['application/json'];
        if (Number(status) >= 400 && json) response.content = { 'application/problem+json': json };
      }
    }
  }
  const schemas: Record<string, unknown> = doc.components?.schemas ?? {};
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    const text = JSON.stringify(node);
    for (const m of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = decodeURIComponent(m[1]!);
      if (!used.has(name)) {
        used.add(name);
        visit(schemas[name]);
      }
    }
  };
  visit({ ...doc, components: { ...doc.components, schemas: {} } });
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return doc;
}
