/**
 * The dashboard (issue 31): a web page served by the service at `/`, signed in with an API key exchanged for a
 * session cookie, on the same API routes. Registered from buildApp with one line; the page itself is `dashboard/`.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { DASHBOARD_DIR, loadAssets, type DashboardAssets } from './assets.js';
import { registerDashboardRoutes } from './routes.js';
import type { SessionSigner } from './session.js';

export { loadSessionSecret } from './secret.js';
export { SessionSigner } from './session.js';

export function registerDashboard(
  app: FastifyInstance,
  deps: { sessions: SessionSigner; guard: onRequestHookHandler },
): void {
  // The page's files ship beside dist/; a copy of the service without them still serves the API (and says why the
  // page is missing) rather than not starting.
  let assets: DashboardAssets | undefined;
  try {
    assets = loadAssets();
  } catch (e) {
    app.log.error(
      { err: { message: (e as Error).message }, dir: DASHBOARD_DIR },
      'dashboard files missing: no page at /',
    );
  }
  registerDashboardRoutes(app, {
    assets,
    sessions: deps.sessions,
    keys: app.marketlens.keys,
    limits: app.marketlens.limits,
    guard: deps.guard,
  });
}
