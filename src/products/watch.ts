/**
 * What happens around every product answer (the route, tracking by SKU, and any in-process caller of
 * `app.products`): the product ↔ marketplace links are written, so the product's history answers without a live
 * lookup, and the answer goes to the alert engine (spread.above, price.new_low). Also registers the product's
 * history route and runs the products tracked by SKU.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { LaneName } from '../upstream/lane.js';
import { registerProductHistoryRoute } from './history-route.js';
import { saveAnswerLinks } from './links.js';
import type { ProductService } from './service.js';
import type { SkuTrackParams } from './track-sku.js';
import type { ProductAnswer } from './types.js';

/** How a refresh nobody waits on asks: cached sub-lookups up to an age are fine, in the scheduled lane. */
export interface AnswerCaller {
  maxAgeSeconds?: number;
  lane?: LaneName;
}

/** The product answer for a SKU (ProductService.answer without its HTTP details). */
export type AnswerProduct = (
  sku: string,
  options: { country?: string; currency?: string },
  caller?: AnswerCaller,
) => Promise<ProductAnswer>;

export interface ProductWatch {
  /** A product answer, its links written and its alerts detected. */
  answer: AnswerProduct;
  /** Hands a product answer made at `observedAt` to the links and the alerts. */
  answered(answer: ProductAnswer, observedAt: number): Promise<void>;
  /** One run of a product tracked by SKU (its job's interval given, so a fresh enough cached answer will do). */
  refresh(params: Record<string, unknown>, intervalMs: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    productWatch: ProductWatch;
  }
}

export interface ProductWatchDeps {
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
  /** Another source of product answers than `app.products` (a test scripting the market). */
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
  let answer: AnswerProduct;
  if (deps.answerProduct) {
    const source = deps.answerProduct;
    answer = async (sku, options, caller) => {
      const result = await source(sku, options, caller);
      await answered(result, Date.now());
      return result;
    };
  } else {
    observeAnswers(app.products, answered);
    answer = async (sku, options, caller) => (await app.products.answer(sku, options, caller)).answer;
  }
  const refresh = async (params: Record<string, unknown>, intervalMs: number): Promise<void> => {
    const p = params as Partial<SkuTrackParams>;
    if (typeof p.sku !== 'string') throw new Error('a product tracked by SKU without its sku');
    await answer(
      p.sku,
      { country: p.country, currency: p.currency },
      // As a tracked lookup: an answer younger than half the interval is fresh enough; it waits behind callers.
      { maxAgeSeconds: Math.floor(intervalMs / 2000), lane: 'scheduled' },
    );
  };
  app.decorate('productWatch', { answer, answered, refresh });
  registerProductHistoryRoute(app, { guard: deps.guard, store });
}

/**
 * Every answer the product service gives — the route's, the CLI's, MCP's and the dashboard's alike — is handed on:
 * the service's `answer` is wrapped on this app's instance, so its callers need not know about links and alerts.
 */
function observeAnswers(
  service: ProductService,
  answered: (answer: ProductAnswer, observedAt: number) => Promise<void>,
): void {
  const original = service.answer.bind(service);
  service.answer = async (...args) => {
    const result = await original(...args);
    await answered(result.answer, Date.now());
    return result;
  };
}
