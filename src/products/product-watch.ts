/**
 * What happens around every product answer (the route, tracking by SKU, the CLI, and any in-process caller of the
 * product service): the product ↔ marketplace links are written, so the product's history answers without a live
 * lookup, and the answer goes to the alert engine (spread.above, price.new_low). A part of the core (src/core): free
 * of the HTTP layer; src/products/watch.ts serves its route.
 */
import type { Kysely } from 'kysely';
import type { Logger } from '../platform/logger.js';
import type { Database } from '../store/schema.js';
import type { LaneName } from '../upstream/lane.js';
import { LastWritten, linksSignature, saveAnswerLinks } from './links.js';
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

export interface ProductWatchDeps {
  db: Kysely<Database>;
  products: ProductService;
  /** The alert engine's input for product answers. */
  alerts: { handleProductAnswer(answer: ProductAnswer, observedAt: number): void };
  log: Logger;
  clock: () => number;
  /** Another source of product answers than the product service (a test scripting the market). */
  answerProduct?: AnswerProduct;
}

export function createProductWatch(deps: ProductWatchDeps): ProductWatch {
  const written = new LastWritten();
  const answered = async (answer: ProductAnswer, observedAt: number): Promise<void> => {
    // Alerts first: they queue in memory and wait out a database outage; the links are best effort.
    deps.alerts.handleProductAnswer(answer, observedAt);
    // Only what changed is written: a warm answer (the usual one) costs the caller no database round trip.
    const signature = linksSignature(answer);
    if (written.get(answer.sku) === signature) return;
    try {
      await saveAnswerLinks(deps.db, answer, observedAt);
      written.set(answer.sku, signature);
    } catch (e) {
      deps.log.warn({ err: e, sku: answer.sku }, 'product links not written');
    }
  };
  let answer: AnswerProduct;
  if (deps.answerProduct) {
    const source = deps.answerProduct;
    answer = async (sku, options, caller) => {
      const result = await source(sku, options, caller);
      await answered(result, deps.clock());
      return result;
    };
  } else {
    observeAnswers(deps.products, answered, deps.clock);
    answer = async (sku, options, caller) => (await deps.products.answer(sku, options, caller)).answer;
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
  return { answer, answered, refresh };
}

/**
 * Every answer the product service gives — the route's, the CLI's, MCP's and the dashboard's alike — is handed on:
 * the service's `answer` is wrapped on this core's instance, so its callers need not know about links and alerts.
 */
function observeAnswers(
  service: ProductService,
  answered: (answer: ProductAnswer, observedAt: number) => Promise<void>,
  clock: () => number,
): void {
  const original = service.answer.bind(service);
  service.answer = async (...args) => {
    const result = await original(...args);
    await answered(result.answer, clock());
    return result;
  };
}
