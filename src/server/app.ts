/**
 * The Fastify app factory: registers the routes over a core (src/core: the service's parts without HTTP — store, keys,
 * cache, upstream client, lookup, history, job runner, alerts, status, products). Tests build it with a config
 * pointing the marketplaces at a fake upstream and use `app.inject`.
 */
import Fastify, { type FastifyInstance, type onResponseHookHandler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { registerAlerts } from '../alerts/http.js';
import { buildCore, type Core, type CoreDeps } from '../core/index.js';
import { registerDashboard } from '../dashboard/index.js';
import { MarketlensError } from '../errors.js';
import type { KeyStore } from '../keys/key-store.js';
import { USAGE_PATH, guardWithLimits, registerUsageRoute } from '../limits/http.js';
import type { LiveResults } from '../operations/live-results.js';
import type { RedisConnection } from '../platform/redis-connection.js';
import type { KeyLimits } from '../limits/key-limits.js';
import type { Store } from '../store/index.js';
import { registerHistory } from '../history/routes.js';
import { registerProducts } from '../products/routes.js';
import type { LookupService } from '../operations/lookup.js';
import { registerProductWatch } from '../products/watch.js';
import { STATUS_PAGE_PATH, STATUS_PATH, registerStatus } from '../status/index.js';
import { callerKey, identifyCaller, makeAuthenticate } from './auth.js';
import { registerBodyHandling } from './body.js';
import { clientErrorHandler, frameworkErrors } from './client-errors.js';
import { ConnectionGuard } from './connection-guard.js';
import { HitPath, installHitPath } from './hit-path.js';
import { AccessLog } from './access-log.js';
import { bufferedStdout } from './log-destination.js';
import { guardedValidatorCompiler } from './request-input-guard.js';
import { trustProxyFn } from './trust-proxy.js';
import { requestIdOf } from './request-id.js';
import type { Metrics } from './metrics.js';
import { SeriesCounter, type CounterSeries } from './series-metrics.js';
import { ERROR_DOCS_PATH, registerErrorDocs } from './error-docs.js';
import { problemSchema, registerOpenApi } from './openapi.js';
import { RouteCatalog, registerMcp } from '../mcp/index.js';
import { operationPaths, registerOperationRoutes } from './operation-routes.js';
import { BODY_LIMIT_BYTES, normaliseError, sendProblem } from './problem.js';
import { VERSION } from '../version.js';

export interface AppDeps extends Omit<CoreDeps, 'log'> {
  /**
   * A core built by the caller: the app starts it once ready (nothing happens when it already runs) and leaves
   * stopping it to the caller. Without one, the app builds its own (logging through the app's logger), starts it once
   * ready and stops it on close.
   */
  core?: Core;
  /** A pino destination for tests that assert on log lines. */
  logStream?: NodeJS.WritableStream;
  /** False: every request goes through Fastify, none through the cached-hit path (tests compare the two). */
  hitPath?: boolean;
}

export interface AppState {
  /** False once shutdown began: /readyz answers 503 so the load balancer stops sending traffic. */
  ready: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    marketlens: {
      state: AppState;
      metrics: Metrics;
      keys: KeyStore;
      /** The database (keys, usage, and every other durable state). */
      store: Store;
      lookup: LookupService;
      /** The after-fetch seam: history, alerts and status subscribe here (src/operations/live-results.ts). */
      liveResults: LiveResults;
      limits: KeyLimits;
      /** Present when MARKETLENS_REDIS_URL is set. */
      redis?: RedisConnection;
      /** Client connection limits, and closing them on shutdown. */
      connections: ConnectionGuard;
      /** The cached-hit path in front of Fastify (absent with Redis limits, at debug, or when turned off). */
      hitPath?: HitPath;
      /** Every part of the service (the fields above are its parts, named as routes and tests know them). */
      core: Core;
    };
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const state: AppState = { ready: true };

  const logOut = deps.logStream ? undefined : bufferedStdout();
  const logStream = deps.logStream ?? logOut!.stream;
  const accessLog = new AccessLog(logStream, config.logLevel);
  // Behind a reverse proxy (MARKETLENS_TRUST_PROXY): client address, scheme and host from X-Forwarded-*.
  const trustProxy = trustProxyFn(config.trustProxy);
  const app = Fastify({
    trustProxy: trustProxy ?? false,
    logger: {
      level: config.logLevel,
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'headers["x-api-key"]'],
        censor: '[redacted]',
      },
      stream: logStream,
    },
    // Echo a sane caller-supplied X-Request-Id, otherwise mint one.
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers),
    bodyLimit: BODY_LIMIT_BYTES,
    logController: accessLog,
    // Errors Node's HTTP parser raises before a request exists (431, 400, 408), and bad URLs: problem+json too.
    clientErrorHandler,
    frameworkErrors,
    return503OnClosing: false,
    // Client timeouts (README, "Reliability"): a request must arrive in full within MARKETLENS_REQUEST_TIMEOUT_MS
    // (else 408), its headers within the idle timeout; Node checks both every connectionsCheckingInterval.
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(config.idleTimeoutMs, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(
        1000,
        Math.ceil(Math.min(config.idleTimeoutMs, config.requestTimeoutMs) / 4),
      ),
    },
  });
  // Every route's schemas by operationId, for the MCP tools (collected from here on, as routes are added).
  const routeCatalog = new RouteCatalog(app);
  const connections = new ConnectionGuard(app.server, {
    idleTimeoutMs: config.idleTimeoutMs,
    maxConnections: config.maxConnections,
  });
  // At shutdown a request whose body is still arriving is cut, unless its handler runs already (a HEAD lookup never
  // reads its body): tell the guard when one starts.
  app.addHook('preHandler', (req, _reply, done) => {
    connections.handlerStarted(req.raw);
    done();
  });
  // Every part without HTTP; this app registers routes over them. A bad database or keys stop start-up here.
  const core = deps.core ?? (await buildCore({ ...deps, log: app.log }));
  const { metrics, keys, store, lookup, liveResults, limits, redis, sessions, registry } = core;
  app.decorate('marketlens', { state, metrics, keys, store, lookup, liveResults, limits, redis, connections, core });
  // The parts start once every route is in place (jobs and deliveries never run during registration).
  app.addHook('onReady', async () => core.start());
  // preClose: while in-flight requests finish, this instance withdraws its status figures (Redis is still up) and the
  // canaries start no further lookup (the job runner's stop, in onClose, waits for the running one).
  app.addHook('preClose', async () => {
    if (deps.core) return;
    core.canaries.stop();
    await core.status.shared.stop();
  });
  // Fastify runs onClose hooks last-registered first: this one, registered before every route's, runs after theirs.
  // The core stops in its declared reverse order (src/core/index.ts): features flush before limits write the last
  // usage counts, before the database closes, before Redis closes.
  app.addHook('onClose', async () => {
    if (!deps.core) await core.stop();
    logOut?.flush();
  });
  // Spec 4.1 sends its query as a JSON body on GET; bodiless GETs with a JSON content type have no body.
  registerBodyHandling(app);
  // Every route's params, query and body: prototype names as keys and text a store cannot hold are 400s, before
  // the schema and before any handler (request-input-guard.ts).
  app.setValidatorCompiler(guardedValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // (callback style, like every hook on a cached lookup's path: no promise per request)
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
  // Once shutdown began, every answer closes its connection: a keep-alive connection whose request was in flight
  // would otherwise stay open after its answer, and hold app.close() (and the exit) up until keepAliveTimeout (72 s).
  // (callback style: no promise per response on the hot path)
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (!state.ready) reply.header('connection', 'close');
    done(null, payload);
  });
  // Request metrics: each route's observer is resolved when the route is added (reading `req.routeOptions` per
  // request builds a fresh object, and a label string would be built and hashed; issue 21); what no route took
  // (the not-found handler's 404 and 405) counts as 'unmatched'.
  app.addHook('onRoute', (route) => {
    const observe = typeof route.method === 'string' ? metrics.requestObserver(route.url, route.method) : undefined;
    const hook: onResponseHookHandler = (req, reply, done) => {
      if (observe) observe(reply.statusCode, reply.elapsedTime / 1000);
      else metrics.observeRequest(route.url, req.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    // A new array: Fastify copies a GET route's options for its HEAD route before this runs.
    route.onResponse = [...hooksOf(route.onResponse), hook];
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (req.is404) metrics.observeRequest('unmatched', req.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.setErrorHandler((e, req, reply) => {
    const err = normaliseError(e);
    if (err.code === 'internal') req.log.error({ err: e }, 'unhandled error');
    else if (err.code === 'database_unavailable')
      req.log.warn({ code: err.code, err: (e as Error).message }, 'database unavailable');
    else if (err.code === 'upstream_changed')
      req.log.warn({ code: err.code, detail: err.message, ...err.logContext }, 'upstream format changed');
    else if (err.status >= 500)
      req.log.warn({ code: err.code, detail: err.message, ...err.logContext }, 'upstream failure');
    return sendProblem(reply, err);
  });

  const knownPaths = new Set<string>([
    '/healthz',
    '/readyz',
    '/openapi.json',
    '/metrics',
    USAGE_PATH,
    STATUS_PATH,
    STATUS_PAGE_PATH,
    ERROR_DOCS_PATH,
    ...operationPaths(registry),
  ]);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0]!;
    if (knownPaths.has(path)) {
      reply.header('allow', 'GET, HEAD');
      return sendProblem(
        reply,
        new MarketlensError('method_not_allowed', `${req.method} is not allowed on ${path}; use GET`),
      );
    }
    return sendProblem(reply, new MarketlensError('route_not_found', `No route ${req.method} ${path}; see /docs`));
  });

  await registerOpenApi(app, VERSION, config.publicUrl);
  registerErrorDocs(app);

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok', version: VERSION }));
  // Redis down is reported but keeps the instance in rotation (lookups still answer, from upstream), unless limits
  // are configured to refuse requests without Redis (MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR=deny). The database down
  // is reported the same way: lookups answer, keys are checked in memory, and history, usage counts and alerts wait
  // in bounded memory until it is back.
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {
      server: state.ready ? 'ok' : 'closing',
      cache: redis ? 'redis' : 'memory',
      database: await store.health.check(store.db),
    };
    let ok = state.ready;
    let status = state.ready ? 'ready' : 'shutting_down';
    if (checks.database !== 'ok' && state.ready) status = 'degraded';
    if (redis) {
      checks.redis = await redis.health();
      if (checks.redis !== 'ok' && state.ready) {
        status = 'degraded';
        if (config.rateLimitOnRedisError === 'deny') ok = false;
      }
    }
    return reply.code(ok ? 200 : 503).send({ status, checks });
  });

  const authenticate = makeAuthenticate(keys, sessions);
  app.get('/metrics', {
    schema: { hide: true },
    onRequest: config.metricsPublic ? [] : [authenticate],
    handler: async (_req, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
  });

  registerStatus(app, { status: core.status, authenticate: config.metricsPublic ? undefined : authenticate });
  const cacheResults = cacheResultCounter(metrics);
  const bySeries = new Map<string, CounterSeries>();
  const cacheSeries = (operation: string, result: string) => {
    const id = operation + result;
    let series = bySeries.get(id);
    if (!series) bySeries.set(id, (series = cacheResults.series({ operation, result })));
    return series;
  };
  // Every keyed route counts against the key's rate limit and quota (issue 27): lookups, db API, history, tracking,
  // webhooks. Only the usage, status and metrics routes stay free (they report; a monitor polls them).
  const guard = guardWithLimits(identifyCaller(keys, sessions), limits);
  const hitRoutes = registerOperationRoutes(app, {
    registry,
    lookup,
    deadlineMs: config.deadlineMs,
    guard,
    onCacheResult: (operation, result) => {
      cacheSeries(operation, result).inc();
      core.status.aggregator.onCacheAnswer(operation, result);
    },
    config,
  });
  registerUsageRoute(app, authenticate, limits, problemSchema);
  registerAlerts(app, { config, guard, problem: problemSchema, store, engine: core.alerts });
  registerHistory(app, { config, guard, store, recorder: core.recorder, scheduler: core.jobs, registry });
  registerProducts(app, { products: core.products, guard });
  registerProductWatch(app, { guard, watch: core.productWatch, store });
  registerDashboard(app, { sessions, guard });
  // MCP: tools over the routes above (each call counts through its route), stdio and Streamable HTTP at /mcp.
  registerMcp(app, { catalog: routeCatalog, registry, config, version: VERSION, authenticate });

  // At debug and trace every request also logs an "incoming request" line through Fastify's child logger.
  if (deps.hitPath !== false && !['debug', 'trace'].includes(config.logLevel)) {
    app.marketlens.hitPath = installHitPath(app.server, {
      routes: hitRoutes,
      keyOf: callerKey(keys, sessions),
      limits,
      accessLog,
      trustProxy,
      observer: (url) => metrics.requestObserver(url, 'GET'),
      ready: () => state.ready,
      log: app.log,
    });
  }
  return app;
}

/** A route option's hooks as an array (Fastify takes one function or several). */
function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}

/** `marketlens_cache_results_total{operation, result}`: hit, miss, stale, shared (one registry may serve several apps in tests). */
function cacheResultCounter(metrics: Metrics): SeriesCounter {
  const name = 'marketlens_cache_results_total';
  const existing = metrics.registry.getSingleMetric(name) as unknown as SeriesCounter | undefined;
  return (
    existing ??
    new SeriesCounter(
      name,
      'Lookups by operation and how they were answered (X-Cache)',
      ['operation', 'result'],
      metrics.registry,
    )
  );
}
