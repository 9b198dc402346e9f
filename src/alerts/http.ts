/**
 * Wires alerts into the app: the alert engine on the database, its delivery loop, and the /api/v1/webhooks routes.
 * `app.alerts.handleObservations` / `handleFailure` are the inputs the history and the lookup seam feed.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { Config } from '../config.js';
import { openStore, type Store } from '../store/index.js';
import { channelEndpoints } from './channels/endpoints.js';
import { AlertEngine, type AlertEngineOptions } from './engine.js';
import { registerWebhookRoutes } from './routes.js';
import type { AlertTables } from './schema.js';

declare module 'fastify' {
  interface FastifyInstance {
    alerts: AlertEngine;
  }
}

export interface AlertsDeps {
  config: Config;
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  problem: z.ZodType;
  /** The app's store when it has one; otherwise alerts open (and close) their own. */
  store?: Store;
  /** Tests shorten retry timing or replace the sender. */
  engine?: Partial<Pick<AlertEngineOptions, 'timing' | 'sender' | 'timeoutMs'>>;
}

export async function registerAlerts(app: FastifyInstance, deps: AlertsDeps): Promise<AlertEngine> {
  const store = deps.store ?? (await openStore(deps.config, app.log));
  // Alerts only touch their own tables: a narrower view of the one database.
  const engine = new AlertEngine({
    db: store.db as unknown as Kysely<AlertTables>,
    policy: deps.config.webhooks,
    channels: channelEndpoints(deps.config.channels),
    log: app.log,
    redis: deps.config.redisUrl ? { url: deps.config.redisUrl, prefix: deps.config.redisPrefix } : undefined,
    ...deps.engine,
  });
  app.decorate('alerts', engine);
  registerWebhookRoutes(app, {
    guard: deps.guard,
    alerts: engine,
    problem: deps.problem,
    cap: { engine: store.engine, max: deps.config.maxWebhooksPerKey },
  });
  app.addHook('onReady', async () => engine.start());
  app.addHook('onClose', async () => {
    await engine.close();
    if (!deps.store) await store.close();
  });
  return engine;
}
