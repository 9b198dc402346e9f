/**
 * What happens around every product answer (the route and tracking by SKU): the product ↔ marketplace links are
 * written, so the product's history answers without a live lookup, and the answer goes to the alert engine
 * (spread.above, price.new_low). Also registers the product's history route and runs tracked-by-SKU jobs.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { MarketlensError } from '../errors.js';
import { registerProductHistoryRoute } from './history-route.js';
import { saveAnswerLinks } from './links.js';
import type { SkuTrackParams } from './track-sku.js';
import type { ProductAnswer } from './types.js';

/** The product answer for a SKU (the `product` service: lookups on every sneaker marketplace, in parallel). */
export type AnswerProduct = (sku: string, opts: { country?: string; currency?: string }) => Promise<ProductAnswer>;

export interface ProductWatch {
  /** A product answer, its links written and its alerts detected. */
  answer: AnswerProduct;
  /** Hand a product answer made elsewhere (made at `observedAt`) to the links and the alerts. */
  answered(answer: ProductAnswer, observedAt: number): Promise<void>;
  /** One run of a product tracked by SKU. */
  refresh(params: Record<string, unknown>): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    productWatch: ProductWatch;
  }
}

export interface ProductWatchDeps {
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  /** The product service; without one, product answers (and runs of products tracked by SKU) answer 501. */
  answerProduct?: AnswerProduct;
}

export function registerProductWatch(app: FastifyInstance, deps: ProductWatchDeps): void {
  const store = app.history.store;
  const answered = async (answer: ProductAnswer, observedAt: number): Promise<void> => {
    // Alerts first: they queue in memory and wait out a database outage; the links are best effort.
    app.alerts.handleProductAnswer(answer, observedAt);
    await saveAnswerLinks(store.db, answer, observedAt).catch((e: unknown) =>
      app.log.warn({ err: e, sku: answer.sku }, 'product links not written'),
    );
  };
  const answer: AnswerProduct = async (sku, opts) => {
    if (!deps.answerProduct) throw new MarketlensError('not_implemented', 'Product answers are not available');
    const result = await deps.answerProduct(sku, opts);
    await answered(result, Date.now());
    return result;
  };
  const refresh = async (params: Record<string, unknown>): Promise<void> => {
    const p = params as Partial<SkuTrackParams>;
    if (typeof p.sku !== 'string') throw new Error('a product tracked by SKU without its sku');
    await answer(p.sku, { country: p.country, currency: p.currency });
  };
  app.decorate('productWatch', { answer, answered, refresh });
  registerProductHistoryRoute(app, { guard: deps.guard, store });
}
