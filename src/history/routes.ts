/**
 * Price-history routes beyond the spec (CONTRACT §8), under their own OpenAPI tag: the Retailed-style
 * `GET /api/v1/db/{products,prices,variants}` (db-routes.ts), tracking (track-routes.ts) and the series
 * `GET /api/v1/history` (history-route.ts). Registered from buildApp with one line, over the core's store, recorder
 * and scheduler (src/core): the recording itself is wired there.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Config } from '../config.js';
import type { JobRunner } from '../jobs/index.js';
import type { Registry } from '../operations/registry.js';
import type { Store } from '../store/index.js';
import { registerDbRoutes } from './db-routes.js';
import { registerHistoryRoute } from './history-route.js';
import type { HistoryRecorder } from './recorder.js';
import { registerTrackRoutes } from './track-routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Price history: the store it writes to, its recorder (`recorder.onObserved` feeds the alerts), the scheduler. */
    history: { store: Store; recorder: HistoryRecorder; scheduler: JobRunner };
  }
}

export interface HistoryDeps {
  config: Config;
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  /** The core's parts: started and stopped with the core. */
  store: Store;
  recorder: HistoryRecorder;
  scheduler: JobRunner;
  /** The app's marketplaces and operations: whose lookups are charted and tracked. */
  registry: Registry;
}

export function registerHistory(app: FastifyInstance, deps: HistoryDeps): void {
  const { guard, store, recorder, scheduler } = deps;
  app.decorate('history', { store, recorder, scheduler });
  registerDbRoutes(app, { guard, store });
  registerTrackRoutes(app, {
    guard,
    store,
    scheduler,
    maxTrackedPerKey: deps.config.maxTrackedPerKey,
    registry: deps.registry,
  });
  registerHistoryRoute(app, { guard, store, registry: deps.registry });
}
