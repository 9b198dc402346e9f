/**
 * The product watch over HTTP: `app.productWatch` (the core's product watch, src/products/product-watch.ts) and the
 * product's history route.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { Store } from '../store/index.js';
import { registerProductHistoryRoute } from './history-route.js';
import type { ProductWatch } from './product-watch.js';

export type { AnswerCaller, AnswerProduct, ProductWatch } from './product-watch.js';

declare module 'fastify' {
  interface FastifyInstance {
    productWatch: ProductWatch;
  }
}

export interface ProductWatchRouteDeps {
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  watch: ProductWatch;
  store: Store;
}

export function registerProductWatch(app: FastifyInstance, deps: ProductWatchRouteDeps): void {
  app.decorate('productWatch', deps.watch);
  registerProductHistoryRoute(app, { guard: deps.guard, store: deps.store });
}
