/**
 * Operational status (issue 22): wires the aggregator to its sources and serves GET /api/v1/status (JSON) and
 * GET /status (HTML). Registered from buildApp with one call.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RedisConnection } from '../platform/redis-connection.js';
import type { LiveResults } from '../operations/live-results.js';
import type { HttpClient } from '../upstream/http-client.js';
import { problemResponses } from '../server/openapi.js';
import type { LookupService } from '../operations/lookup.js';
import type { Registry } from '../operations/registry.js';
import { StatusAggregator } from './aggregator.js';
import { registerCanaries } from './canaries.js';
import { renderStatusPage } from './page.js';
import { statusResponseSchema } from './schema.js';
import { SharedStatus } from './shared-status.js';
import { sumRaw, toView } from './view.js';

export const STATUS_PATH = '/api/v1/status';
export const STATUS_PAGE_PATH = '/status';

export interface StatusDeps {
  http: HttpClient;
  /** Key check for both routes, or none when MARKETLENS_METRICS_PUBLIC=true. */
  authenticate?: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
  liveResults?: LiveResults;
  redis?: RedisConnection;
  /** Adds an UpstreamObserver next to the metrics one. */
  observeUpstream: (observer: StatusAggregator) => void;
}

export function registerStatus(app: FastifyInstance, deps: StatusDeps): StatusAggregator {
  const instance = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const aggregator = new StatusAggregator({
    instance,
    circuit: deps.http.circuit
      ? (mp) => {
          const c = deps.http.circuit!(mp);
          return { state: c.state, reopens_at: c.reopensAt === null ? null : new Date(c.reopensAt).toISOString() };
        }
      : undefined,
  });
  deps.observeUpstream(aggregator);
  deps.liveResults?.onResult((r) => aggregator.onLiveResult(r));
  deps.liveResults?.onFailure((f) => aggregator.onLiveFailure(f));
  const shared = new SharedStatus(aggregator, deps.redis, instance);
  shared.start();
  // preClose: Redis (closed in onClose) is still up, so this instance can withdraw its figures at once.
  app.addHook('preClose', () => shared.stop());

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
  return aggregator;
}

/**
 * Canaries (MARKETLENS_CANARY_INTERVAL) as `canary` jobs of the price history's scheduler (`app.history.scheduler`):
 * call after registerHistory, before the app is ready (the scheduler starts on ready).
 */
export async function registerStatusCanaries(
  app: FastifyInstance,
  deps: { lookup: LookupService; intervalMs: number | null; registry?: Registry },
): Promise<void> {
  const canaries = await registerCanaries({
    scheduler: app.history.scheduler,
    db: app.history.store.db,
    lookup: deps.lookup,
    intervalMs: deps.intervalMs,
    log: app.log,
    registry: deps.registry,
  });
  // preClose runs before every onClose: the running round stops starting lookups, the scheduler's stop waits for it.
  app.addHook('preClose', async () => canaries.stop());
}
