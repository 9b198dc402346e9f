/**
 * Alerts over HTTP: `app.alerts` (the core's alert engine, src/core) and the /api/v1/webhooks routes.
 * `app.alerts.handleObservations` / `handleFailure` are the inputs the history and the lookup seam feed (wired in
 * src/core/seams.ts).
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import type { AlertEngine } from './engine.js';
import { registerWebhookRoutes } from './routes.js';

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
  store: Store;
  /** The core's engine: started and closed with the core. */
  engine: AlertEngine;
}

export function registerAlerts(app: FastifyInstance, deps: AlertsDeps): void {
  app.decorate('alerts', deps.engine);
  registerWebhookRoutes(app, {
    guard: deps.guard,
    alerts: deps.engine,
    problem: deps.problem,
    cap: { engine: deps.store.engine, max: deps.config.maxWebhooksPerKey },
  });
}
