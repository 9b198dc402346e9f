/**
 * /openapi.json and /docs, generated from the same zod schemas that validate requests and records.
 */
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import type { Operation } from '../operations/types.js';

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
    errors: z.array(z.object({ param: z.string(), message: z.string() })).optional().describe('One entry per bad parameter'),
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

/** Error responses every operation can give, documented with the codes behind each status. */
export function problemResponses(_op: Operation): Record<number, z.ZodType> {
  const by = (status: number) =>
    problemSchema.describe(
      Object.entries(ERROR_CODES)
        .filter(([, v]) => v.status === status)
        .map(([code]) => code)
        .join(', '),
    );
  return Object.fromEntries([400, 401, 403, 404, 429, 501, 502, 503, 504].map((s) => [s, by(s)]));
}

export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'marketlens',
        version,
        description:
          'Self-hosted, read-only product-data API: live, structured data from watch, sneaker, sportswear and ' +
          'electronics marketplaces. Every route also exists under the real site\'s name (e.g. `/api/v1/scraper/goat/prices`).\n\n' +
          '## Errors\n\nEvery error is `application/problem+json` (see the `Problem` schema):\n\n' +
          '| status | code | meaning |\n|---|---|---|\n' +
          ERROR_TABLE +
          '\n\n## Caching\n\nResponses carry `X-Cache` (hit, miss, stale, shared), `Age`, `Last-Modified` and ' +
          '`Server-Timing`. `max_age` (seconds) or `Cache-Control: no-cache` bound how old an answer may be.',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  app.get('/openapi.json', { schema: { hide: true } }, async (_req, reply) => reply.send(app.swagger()));
}
