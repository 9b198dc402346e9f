/**
 * One route per operation under its neutral path (canonical, documented) and its alias path (same handler, hidden
 * from the docs), generated from the operation registry.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MarketlensError } from '../errors.js';
import { MARKETPLACE_INFO } from '../marketplaces/catalog.js';
import type { LookupResult, LookupService } from '../operations/lookup.js';
import { aliasPath, allOperations } from '../operations/registry.js';
import type { Operation } from '../operations/types.js';
import { problemResponses } from './openapi.js';

const maxAge = z.coerce
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Oldest cached answer accepted, in seconds; 0 forces a live fetch (same as `Cache-Control: no-cache`)');

export interface OperationRouteDeps {
  lookup: LookupService;
  deadlineMs: number;
  /** onRequest hook that authenticates the caller (CONTRACT §2). */
  authenticate: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/** Every path registered for operations, so the not-found handler can answer 405 for other methods. */
export function operationPaths(): string[] {
  return allOperations().flatMap((op) => [op.path, aliasPath(op)]);
}

export function registerOperationRoutes(app: FastifyInstance, deps: OperationRouteDeps): void {
  for (const op of allOperations()) {
    const isFinder = op.name === 'watchmarket.finder';
    // The finder takes `query` from a JSON body (as the spec says) or from the query string.
    const querystring = isFinder ? op.params.partial().extend({ max_age: maxAge }) : op.params.extend({ max_age: maxAge });
    const body = isFinder ? z.object({ query: z.string() }).strict().optional() : undefined;
    const handler = makeHandler(op, deps, isFinder);
    for (const [url, hide] of [[op.path, false], [aliasPath(op), true]] as const) {
      app.route({
        method: 'GET',
        url,
        // Fastify cannot attach a body schema to the automatic HEAD route.
        exposeHeadRoute: !isFinder,
        onRequest: deps.authenticate,
        schema: {
          hide,
          operationId: hide ? undefined : op.name.replace(/[.-](\w)/g, (_, c: string) => c.toUpperCase()),
          tags: [MARKETPLACE_INFO[op.marketplace].site],
          summary: op.summary,
          description: `${op.description}\n\nAlias path: \`${aliasPath(op)}\`.`,
          security: [{ apiKey: [] }],
          querystring,
          ...(body ? { body } : {}),
          response: {
            200: op.example ? op.record.meta({ examples: [op.example.response] }) : op.record,
            ...problemResponses(op),
          },
        },
        handler,
      });
    }
  }
}

function makeHandler(op: Operation, deps: OperationRouteDeps, isFinder: boolean) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const query = { ...(req.query as Record<string, unknown>) };
    const requested = query.max_age as number | undefined;
    delete query.max_age;
    if (isFinder) {
      const fromBody = (req.body as { query?: string } | undefined)?.query;
      if (fromBody !== undefined) query.query = fromBody;
      const checked = op.params.safeParse(query);
      if (!checked.success) {
        throw new MarketlensError('invalid_parameter', 'query: is required (JSON body {"query": "..."} or ?query=)', {
          errors: [{ param: 'query', message: 'is required' }],
        });
      }
      Object.assign(query, checked.data);
    }
    const noCache = /\bno-cache\b/i.test(String(req.headers['cache-control'] ?? ''));
    const result = await deps.lookup.run(op, query, {
      signal: AbortSignal.timeout(deps.deadlineMs),
      maxAgeSeconds: noCache ? 0 : requested,
    });
    setLookupHeaders(reply, result);
    return reply.type('application/json; charset=utf-8').send(result.json);
  };
}

/** CONTRACT §4: X-Cache, Age, Last-Modified, Server-Timing; plus X-Missing-Parts for partial records. */
export function setLookupHeaders(reply: FastifyReply, r: LookupResult): void {
  reply.header('x-cache', r.cache);
  reply.header('age', String(Math.max(0, Math.floor((Date.now() - r.fetchedAt) / 1000))));
  reply.header('last-modified', new Date(r.fetchedAt).toUTCString());
  const timing: string[] = [];
  if (r.upstreamMs !== undefined) timing.push(`upstream;dur=${r.upstreamMs.toFixed(1)}`);
  if (r.parseMs !== undefined) timing.push(`parse;dur=${r.parseMs.toFixed(1)}`);
  if (timing.length > 0) reply.header('server-timing', timing.join(', '));
  if (r.missingParts.length > 0) reply.header('x-missing-parts', r.missingParts.join(','));
}
