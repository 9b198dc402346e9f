/**
 * Operational status (issue 22) over HTTP: serves the core's status parts (src/status/status-parts.ts) as
 * GET /api/v1/status (JSON) and GET /status (HTML). Registered from buildApp with one call; the aggregator's sources
 * are subscribed in the core (src/core/seams.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problemResponses } from '../server/openapi.js';
import { renderStatusPage } from './page.js';
import { statusResponseSchema } from './schema.js';
import type { StatusParts } from './status-parts.js';
import { sumRaw, toView } from './view.js';

export const STATUS_PATH = '/api/v1/status';
export const STATUS_PAGE_PATH = '/status';

export interface StatusDeps {
  status: StatusParts;
  /** Key check for both routes, or none when MARKETLENS_METRICS_PUBLIC=true. */
  authenticate?: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

export function registerStatus(app: FastifyInstance, deps: StatusDeps): void {
  const { shared } = deps.status;
  const onRequest = deps.authenticate ? [deps.authenticate] : [];
  const gather = async () => {
    const { shared: isShared, raws } = await shared.gather();
    return {
      shared: isShared,
      total: toView(raws.length === 1 ? raws[0]! : sumRaw(raws)),
      instances: raws.map(toView),
    };
  };
  app.get(STATUS_PATH, {
    onRequest,
    schema: {
      operationId: 'status',
      tags: ['Status'],
      summary: 'Live figures per marketplace and operation',
      description:
        'Over the last 5 minutes and the last hour, per marketplace and operation: lookups, success rate, outcome ' +
        'counts by error code, share answered from cache, upstream requests and bytes per live lookup, p50/p95 ' +
        'upstream latency (per marketplace of each request, per operation of each live lookup) and which fetch tier ' +
        'answered; per marketplace: the circuit breaker (with its reopen time), and ' +
        "the last `upstream_blocked` and `upstream_changed`. With MARKETLENS_REDIS_URL, every instance's figures " +
        "and their sum; otherwise this instance's. Needs a key unless MARKETLENS_METRICS_PUBLIC=true. " +
        'The same as a page: `GET /status`.',
      security: deps.authenticate ? [{ apiKey: [] }] : [],
      // 400: a malformed request (any route); with a key check, its 401 and 403 too.
      response: { 200: statusResponseSchema, ...problemResponses(deps.authenticate ? [400, 401, 403] : [400]) },
    },
    handler: async () => gather(),
  });
  app.get(STATUS_PAGE_PATH, {
    onRequest,
    schema: { hide: true },
    handler: async (_req, reply) => {
      const { shared: isShared, total, instances } = await gather();
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(renderStatusPage({ total, instances: instances.length, shared: isShared }));
    },
  });
}
