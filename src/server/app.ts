/**
 * The Fastify app factory: wires configuration, keys, the upstream client and the lookup service into routes.
 * Tests build it with a config pointing the marketplaces at a fake upstream and use `app.inject`.
 */
import Fastify, { type FastifyInstance, type onResponseHookHandler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import { LookupCache } from '../cache/lookup-cache.js';
import { MemoryStore } from '../cache/memory-store.js';
import { RedisConnection } from '../platform/redis-connection.js';
import { RedisFlights } from '../cache/redis-flights.js';
import { RedisStore } from '../cache/redis-store.js';
import { registerAlerts, type AlertsDeps } from '../alerts/http.js';
import { registerAlertMetrics } from '../alerts/metrics.js';
import { loadSessionSecret, registerDashboard, SessionSigner } from '../dashboard/index.js';
import type { Config } from '../config.js';
import { MarketlensError } from '../errors.js';
import type { KeyStore } from '../keys/key-store.js';
import { openKeys } from '../keys/open-keys.js';
import { KeyLimits } from '../limits/key-limits.js';
import { USAGE_PATH, guardWithLimits, registerUsageRoute } from '../limits/http.js';
import { LiveResults } from '../operations/live-results.js';
import { registerHistory } from '../history/routes.js';
import { registerProducts } from '../products/routes.js';
import { LookupService } from '../operations/lookup.js';
import { registerProductWatch, type AnswerProduct } from '../products/watch.js';
import { ParsePool } from '../operations/parse-pool.js';
import { openStore, type Store } from '../store/index.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import type { HttpClient } from '../upstream/http-client.js';
import { createHttpClient } from '../upstream/create-client.js';
import type { UpstreamObserver } from '../upstream/observer.js';
import { STATUS_PAGE_PATH, STATUS_PATH, registerStatus, registerStatusCanaries } from '../status/index.js';
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
import { Metrics } from './metrics.js';
import { SeriesCounter, type CounterSeries } from './series-metrics.js';
import { ERROR_DOCS_PATH, registerErrorDocs } from './error-docs.js';
import { problemSchema, registerOpenApi } from './openapi.js';
import { RouteCatalog, registerMcp } from '../mcp/index.js';
import { operationPaths, registerOperationRoutes } from './operation-routes.js';
import { BODY_LIMIT_BYTES, normaliseError, sendProblem } from './problem.js';
import { VERSION } from '../version.js';

export interface AppDeps {
  config: Config;
  /** The database; opened from config (and closed with the app) when absent. */
  store?: Store;
  keys?: KeyStore;
  http?: HttpClient;
  metrics?: Metrics;
  /**
   * The marketplaces and operations to serve; the built-in ones by default. A test adds a marketplace with
   * `BUILT_IN_REGISTRY.with(module)` (and loads its config with `loadConfig(env, registry.marketplaces)`).
   */
  registry?: Registry;
  /** The after-fetch seam; one is made when not given. */
  liveResults?: LiveResults;
  /** A pino destination for tests that assert on log lines. */
  logStream?: NodeJS.WritableStream;
  /** Alert delivery timing/sender overrides (tests). */
  alerts?: AlertsDeps['engine'];
  /** False: every request goes through Fastify, none through the cached-hit path (tests compare the two). */
  hitPath?: boolean;
  /** Product answers from elsewhere than the product service (tests scripting the market for product alerts). */
  answerProduct?: AnswerProduct;
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
    };
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const metrics = deps.metrics ?? new Metrics();
  const registry = deps.registry ?? BUILT_IN_REGISTRY;
  // Upstream events go to /metrics and to /api/v1/status (src/status), which adds itself below.
  const upstreamObservers: UpstreamObserver[] = [metrics];
  const http: HttpClient =
    deps.http ??
    createHttpClient(
      config,
      { onUpstream: (e) => upstreamObservers.forEach((o) => o.onUpstream(e)) },
      { marketplaces: registry.marketplaces },
    );
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
  // Durable state (keys, usage, …): SQLite in the data directory, or PostgreSQL. A bad database stops start-up here.
  const store = deps.store ?? (await openStore(config, app.log));
  const keys =
    deps.keys ??
    (await openKeys(store, config, app.log).catch(async (e: unknown) => {
      if (!deps.store) await store.close();
      throw e;
    }));
  // Dashboard sessions stand for a key on every route that takes one (src/dashboard, src/server/auth.ts).
  const sessions = new SessionSigner(await loadSessionSecret(store.db));
  // Shared state: in-process by default; MARKETLENS_REDIS_URL moves cache, de-duplication and limits to Redis.
  const redis = config.redisUrl
    ? new RedisConnection(config.redisUrl, config.redisPrefix, app.log, config.redisCommandTimeoutMs)
    : undefined;
  if (redis) await redis.waitUntilReady(); // bounded: an unreachable Redis only delays start-up by ~1 s
  const flights = redis ? new RedisFlights(redis) : undefined;
  flights?.start();
  const cache = new LookupCache({
    store: redis ? new RedisStore(redis) : new MemoryStore(config.cacheMaxBytes),
    flights,
    ttl: config.ttl,
    staleIfErrorSeconds: config.staleIfErrorSeconds,
    deadlineMs: config.deadlineMs,
    log: app.log,
  });
  const parsePool =
    config.parseThreads > 0
      ? new ParsePool({ threads: config.parseThreads, thresholdBytes: config.parseOffThreadBytes })
      : undefined;
  const liveResults =
    deps.liveResults ?? new LiveResults((e) => app.log.error({ err: e }, 'live-result listener failed'));
  const lookup = new LookupService(config, http, cache, liveResults, parsePool);
  const limits = await KeyLimits.create({ config, redis, db: store.db, log: app.log, health: store.health });
  app.decorate('marketlens', { state, metrics, keys, store, lookup, liveResults, limits, redis, connections });
  // Fastify runs onClose hooks last-registered first: this one, registered before every feature (status, alerts,
  // history), runs after theirs, so they flush into a database that is still open.
  app.addHook('onClose', async () => {
    await http.close?.();
    await parsePool?.close();
    await limits.close(); // writes the last usage counts: before the database closes
    if (!deps.keys) keys.close();
    if (!deps.store) await store.close();
    await redis?.close();
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

  const status = registerStatus(app, {
    http,
    redis,
    liveResults,
    authenticate: config.metricsPublic ? undefined : authenticate,
    observeUpstream: (o) => upstreamObservers.push(o),
  });
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
      status.onCacheAnswer(operation, result);
    },
    resaleBProductKeys: config.resaleBProductKeys,
  });
  registerUsageRoute(app, authenticate, limits, problemSchema);
  // Alerts share the app's database; their delivery loop stops (in its own onClose, registered first) before it closes.
  const alerts = await registerAlerts(app, {
    config,
    guard,
    problem: problemSchema,
    store,
    engine: deps.alerts,
  });
  liveResults.onFailure((failure) => alerts.handleFailure(failure));
  await registerHistory(app, { config, guard, store });
  registerProducts(app, { lookup, deadlineMs: config.deadlineMs, guard, registry });
  // Canaries are jobs of the history's scheduler (tracked products' too): added once it exists, before it starts.
  await registerStatusCanaries(app, { lookup, intervalMs: config.canaryIntervalMs });
  app.history.recorder.onObserved((batch) => alerts.handleObservations(batch));
  registerProductWatch(app, { guard, answerProduct: deps.answerProduct });
  registerDashboard(app, { sessions, guard });
  registerAlertMetrics(metrics.registry, alerts);
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
