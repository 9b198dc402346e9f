/**
 * What a subscription can ask for: event types and the filter that narrows them, with the event payloads sent.
 * Payload fields are snake_case like the rest of the API; a value the source lacks is null.
 */
import { z } from 'zod';
import { OPERATION_NAMES, type OperationName } from '../operations/types.js';
import { PRICE_KINDS, type PriceKind } from '../history/observation.js';

export const EVENT_TYPES = [
  'price.changed',
  'price.below',
  'price.above',
  'stock.changed',
  'listing.new',
  'listing.removed',
  'product.not_found',
  'marketplace.changed',
  'spread.above',
  'price.new_low',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Sent only by POST /api/v1/webhooks/:id/test; never matched by filters. */
export const TEST_EVENT = 'webhook.test';

export const filterSchema = z
  .object({
    operations: z.array(z.enum(OPERATION_NAMES)).min(1).optional().describe('Only lookups of these operations'),
    products: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(1000)
      .optional()
      .describe('Only these products: each a product id, slug or SKU (case-insensitive)'),
    sizes: z
      .array(z.string().trim().min(1).max(20))
      .min(1)
      .max(100)
      .optional()
      .describe('Only these size labels, as the marketplace shows them'),
    countries: z
      .array(z.string().regex(/^[A-Za-z]{2}$/, 'expected ISO 3166-1 alpha-2 codes'))
      .min(1)
      .optional()
      .describe('Only prices observed for these countries (ISO 3166-1 alpha-2)'),
    kinds: z.array(z.enum(PRICE_KINDS)).min(1).optional().describe('Only these price kinds'),
    min_change_pct: z
      .number()
      .min(0)
      .max(1000)
      .optional()
      .describe('price.changed only when |change| ≥ this percentage'),
    below: z
      .number()
      .positive()
      .optional()
      .describe('Threshold for price.below (major units): sent when a price falls under it'),
    above: z
      .number()
      .positive()
      .optional()
      .describe('Threshold for price.above (major units): sent when a price rises over it'),
    skus: z
      .array(z.string().trim().min(1).max(100))
      .min(1)
      .max(1000)
      .optional()
      .describe('Only these SKUs (style codes, case-insensitive): product events and prices of products with a SKU'),
    min_spread_pct: z
      .number()
      .min(0)
      .max(10_000)
      .optional()
      .describe('spread.above: sent when best sell − best buy reaches this percentage of the buy price'),
    min_spread: z
      .number()
      .min(0)
      .optional()
      .describe('spread.above: sent when best sell − best buy reaches this amount (major units of their currency)'),
    days: z
      .number()
      .int()
      .min(1)
      .max(365)
      .optional()
      .describe('price.new_low: the window of earlier prices a new low must be under, in days (default 30)'),
  })
  .strict()
  .meta({
    id: 'WebhookFilter',
    examples: [
      { products: ['1341930'], sizes: ['10'], below: 150 },
      { skus: ['DD1391-100'], sizes: ['10'], min_spread_pct: 15, days: 30 },
    ],
  });
export type WebhookFilter = z.output<typeof filterSchema>;

/** Stored form of a filter: country codes upper case (no transform in the schema: it also describes responses). */
export function normaliseFilter(f: WebhookFilter): WebhookFilter {
  return f.countries ? { ...f, countries: f.countries.map((c) => c.toUpperCase()) } : f;
}

/** The context shared by every price/stock event, used by filters too. */
export interface PriceContext {
  marketplace: string;
  operation: OperationName;
  product_id: string;
  name: string | null;
  sku: string | null;
  url: string | null;
  size: string | null;
  condition: string | null;
  kind: PriceKind;
  country: string | null;
  currency: string;
  observed_at: string;
}

/** A stock event's context: kind and currency are those of the size's price, null when the entry states none. */
export type StockContext = Omit<PriceContext, 'kind' | 'currency'> & {
  kind: PriceKind | null;
  currency: string | null;
};

export interface PriceChangedData extends PriceContext {
  old: number;
  new: number;
  change: number;
  /** Relative to the old price, in percent, rounded to 2 decimals. */
  change_pct: number;
}

export interface ThresholdData extends PriceContext {
  old: number | null;
  new: number;
  threshold: number;
}

export type StockChangedData = StockContext & {
  in_stock: boolean;
  /** The size's price in this answer (lowest ask/price where stated), null when a sold-out entry states none. */
  price: number | null;
};

export interface ListingData {
  marketplace: string;
  operation: OperationName;
  search: string;
  listing_id: string;
  observed_at: string;
}

export interface FailureData {
  marketplace: string | null;
  operation: OperationName;
  params: Readonly<Record<string, unknown>>;
  code: string;
  message: string;
  at: string;
}

/** An offer in a product event: where to buy or sell at that size. */
export interface ProductOfferData {
  marketplace: string;
  kind: string;
  condition: string | null;
  amount: number;
  currency: string;
  url: string | null;
}

/** The context of a product event: one size of a product answered across marketplaces. */
export interface ProductSizeContext {
  sku: string;
  name: string | null;
  country: string;
  size: string;
  size_system: string;
  /** The currency of the buy price (the spread is only computed between offers in one currency). */
  currency: string;
  buy: ProductOfferData | null;
  sell: ProductOfferData | null;
  /** Best sell − best buy (same currency), null without both. */
  spread: number | null;
  /** The spread in percent of the buy price, rounded to 2 decimals. */
  spread_pct: number | null;
  observed_at: string;
}

/** The spread at a size, as remembered between answers. */
export interface SpreadValue {
  spread: number | null;
  spread_pct: number | null;
}

/** The lowest buy price seen per UTC day (day start in ms, amount), oldest first. */
export type DailyLows = Array<[number, number]>;

export interface SpreadAboveData extends ProductSizeContext {
  /** The spread before this answer, null the first time or when there was none. */
  previous_spread: number | null;
  previous_spread_pct: number | null;
  min_spread: number | null;
  min_spread_pct: number | null;
}

export interface NewLowData extends ProductSizeContext {
  /** The lowest buy price recorded at this size within `days` before this answer. */
  previous_low: number;
  days: number;
}

/** A detected change, before fan-out. `threshold` events are matched per subscription, so they carry old/new only. */
export type DetectedEvent =
  | { type: 'price.changed'; context: PriceContext; old: number; new: number }
  | { type: 'price.first'; context: PriceContext; new: number }
  | { type: 'stock.changed'; context: StockContext; inStock: boolean; price: number | null }
  | { type: 'listing.new' | 'listing.removed'; data: ListingData }
  | { type: 'product.not_found' | 'marketplace.changed'; data: FailureData }
  /** A size's spread changed (thresholds are per subscription: crossed in match.ts). */
  | { type: 'product.spread'; context: ProductSizeContext; old: SpreadValue | null; new: SpreadValue }
  /** A size's lowest buy price, with the daily lows seen before it (the window is per subscription). */
  | { type: 'product.low'; context: ProductSizeContext; amount: number; earlier: DailyLows };

/** The JSON body of every webhook (Standard Webhooks shape). */
export interface WebhookMessage {
  type: EventType | typeof TEST_EVENT;
  timestamp: string;
  data: Record<string, unknown>;
}
