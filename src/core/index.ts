/**
 * The service without HTTP (issue 33): one function builds its parts as plain objects — the database, keys, Redis,
 * the cache, the upstream client, the lookup service and its live-results seam, limits, the price-history recorder,
 * the job runner, the alert engine, status, products — declares their start/stop order, and wires every seam
 * subscription in one place (seams.ts). The HTTP app (src/server/app.ts) registers routes over a core; the CLI and
 * tests build one without Fastify. Nothing here imports the HTTP layer (test/core-parts.test.ts checks).
 */
import pino from 'pino';
import type { Kysely } from 'kysely';
import { LookupCache } from '../cache/lookup-cache.js';
import { MemoryStore } from '../cache/memory-store.js';
import { RedisFlights } from '../cache/redis-flights.js';
import { RedisStore } from '../cache/redis-store.js';
import { channelEndpoints } from '../alerts/channels/endpoints.js';
import { AlertEngine } from '../alerts/engine.js';
import { registerAlertMetrics } from '../alerts/metrics.js';
import type { AlertTables } from '../alerts/schema.js';
import { loadSessionSecret } from '../dashboard/secret.js';
import { SessionSigner } from '../dashboard/session.js';
import { historyCounter } from '../history/history-metrics.js';
import { HistoryRecorder } from '../history/recorder.js';
import { openKeys } from '../keys/open-keys.js';
import { KeyLimits } from '../limits/key-limits.js';
import { LiveResults } from '../operations/live-results.js';
import { LookupService } from '../operations/lookup.js';
import { ParsePool } from '../operations/parse-pool.js';
import { BUILT_IN_REGISTRY } from '../operations/registry.js';
import type { Logger } from '../platform/logger.js';
import { RedisConnection } from '../platform/redis-connection.js';
import { createProductWatch } from '../products/product-watch.js';
import { ProductService } from '../products/service.js';
import { createJobRunner } from '../jobs/index.js';
import { Metrics } from '../server/metrics.js';
import { Canaries, syncCanaryJob } from '../status/canaries.js';
import { createStatusParts } from '../status/status-parts.js';
import { openStore } from '../store/index.js';
import { createHttpClient } from '../upstream/create-client.js';
import type { UpstreamObserver } from '../upstream/observer.js';
import { Lifecycle } from './lifecycle.js';
import { wireSeams } from './seams.js';
import type { Core, CoreDeps } from './types.js';

export type { AlertEngineOverrides, Core, CoreDeps } from './types.js';

export async function buildCore(deps: CoreDeps): Promise<Core> {
  const { config } = deps;
  // Read at each call (not captured once), so a test that fakes Date after building the core moves it too.
  const clock = deps.clock ?? (() => Date.now());
  const log: Logger = deps.log ?? pino({ level: config.logLevel });
  const registry = deps.registry ?? BUILT_IN_REGISTRY;
  const metrics = deps.metrics ?? new Metrics();
  const life = new Lifecycle(deps.onStep);

  // The declared order. Stop runs it backwards: the features flush (canaries and the job runner stop, the recorder
  // writes its queue, alerts finish deliveries) before the limits write the last usage counts, before the database
  // closes, before Redis closes.
  try {
    // Shared state: in-process by default; MARKETLENS_REDIS_URL moves cache, de-duplication and limits to Redis.
    const redis = config.redisUrl
      ? new RedisConnection(config.redisUrl, config.redisPrefix, log, config.redisCommandTimeoutMs)
      : undefined;
    life.add({ name: 'redis', stop: () => redis?.close() });
    if (redis) await redis.waitUntilReady(); // bounded: an unreachable Redis only delays start-up by ~1 s

    // Durable state (keys, usage, …): SQLite in the data directory, or PostgreSQL. A bad database stops here.
    const store = deps.store ?? (await openStore(config, log));
    life.add({ name: 'store', stop: () => (deps.store ? undefined : store.close()) });
    const keys = deps.keys ?? (await openKeys(store, config, log));
    life.add({ name: 'keys', stop: () => (deps.keys ? undefined : keys.close()) });
    const sessions = new SessionSigner(await loadSessionSecret(store.db));
    const limits = await KeyLimits.create({ config, redis, db: store.db, log, health: store.health });
    // Writes the last usage counts: before the database closes.
    life.add({ name: 'limits', stop: () => limits.close() });

    const flights = redis ? new RedisFlights(redis) : undefined;
    flights?.start();
    const cache = new LookupCache({
      store: redis ? new RedisStore(redis) : new MemoryStore(config.cacheMaxBytes),
      flights,
      ttl: config.ttl,
      staleIfErrorSeconds: config.staleIfErrorSeconds,
      deadlineMs: config.deadlineMs,
      log,
      now: clock,
    });
    const parsePool =
      config.parseThreads > 0
        ? new ParsePool({ threads: config.parseThreads, thresholdBytes: config.parseOffThreadBytes })
        : undefined;
    life.add({ name: 'parse pool', stop: () => parsePool?.close() });
    // Upstream events fan out to the observers seams.ts subscribes (metrics, status).
    const upstreamObservers: UpstreamObserver[] = [];
    const http =
      deps.http ??
      createHttpClient(
        config,
        { onUpstream: (e) => upstreamObservers.forEach((o) => o.onUpstream(e)) },
        { marketplaces: registry.marketplaces },
      );
    life.add({ name: 'upstream client', stop: () => http.close?.() });
    const liveResults =
      deps.liveResults ?? new LiveResults((e) => log.error({ err: e }, 'live-result listener failed'));
    const lookup = new LookupService(config, http, cache, liveResults, parsePool, clock);

    const status = createStatusParts(http, redis);
    life.add({ name: 'status sharing', start: () => status.shared.start(), stop: () => status.shared.stop() });

    // One job runner for tracked products, canaries and alert deliveries (src/jobs): the database alone, or BullMQ
    // with Redis. Started below once every job kind has its handler; the alert engine only adds its lane to it.
    const jobs = createJobRunner({ config, db: store.db, log: log, clock });
    // Alerts only touch their own tables: a narrower view of the one database.
    const alerts = new AlertEngine({
      jobs,
      db: store.db as unknown as Kysely<AlertTables>,
      policy: config.webhooks,
      channels: channelEndpoints(config.channels),
      log,
      redis: config.redisUrl ? { url: config.redisUrl, prefix: config.redisPrefix } : undefined,
      ...deps.alerts,
    });
    registerAlertMetrics(metrics.registry, alerts);
    life.add({ name: 'alert engine', start: () => alerts.start(), stop: () => alerts.close() });

    const counter = historyCounter(metrics.registry);
    const recorder = new HistoryRecorder(store.db, {
      registry,
      retentionDays: config.historyRetentionDays,
      log: log,
      count: (result, n) => counter.inc({ result }, n),
      health: store.health,
      now: clock,
    });
    let stopPrune = () => {};
    // Its stop writes what is queued; its onObserved listeners (the alerts) still run then.
    life.add({
      name: 'history recorder',
      start: () => {
        stopPrune = recorder.startDailyPrune();
      },
      stop: async () => {
        stopPrune();
        await recorder.close();
      },
    });

    const products = new ProductService({ lookup, deadlineMs: config.deadlineMs, registry });
    const productWatch = createProductWatch({
      db: store.db,
      products,
      alerts,
      log,
      clock,
      answerProduct: deps.answerProduct,
    });

    // The canary job is written from the configuration before the job runner starts (deleted when canaries are off).
    life.add({ name: 'canary job', start: () => syncCanaryJob(store.db, config.canaryIntervalMs, clock()) });
    // Jobs start once every part (and, in the app, every route) is in place; stop waits for running ones.
    life.add({ name: 'job runner', start: () => jobs.start(), stop: () => jobs.stop() });
    const canaries = new Canaries(lookup, log, clock, registry);
    // Stopped first: the running round starts no further lookup, and the job runner's stop waits for it.
    life.add({ name: 'canaries', stop: () => canaries.stop() });

    const core: Core = {
      config,
      clock,
      log,
      registry,
      metrics,
      store,
      keys,
      redis,
      cache,
      http,
      parsePool,
      liveResults,
      lookup,
      limits,
      recorder,
      jobs,
      alerts,
      status,
      canaries,
      products,
      productWatch,
      sessions,
      order: life.order,
      start: () => life.start(),
      stop: () => life.stop(),
    };
    wireSeams(core, upstreamObservers);
    return core;
  } catch (e) {
    // A part that failed to open (a bad database, keys that do not load): close what was opened before it.
    await life.stop().catch(() => undefined);
    throw e;
  }
}
