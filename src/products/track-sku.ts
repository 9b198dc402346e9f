/**
 * Tracking by SKU: `POST /api/v1/db/products {"sku": "…", "interval": "15m"}` beside the lookup form. Stored as a
 * `track` job like any tracked product (same per-key cap, owner, list and delete), whose `operation` is `product`:
 * each run is one product answer, refreshing every marketplace of that product (src/history/track.ts hands the run
 * to `app.productWatch.refresh`).
 */
import { z } from 'zod';
import { invalidParam } from '../errors.js';
import { zodToInvalidParameter } from '../server/problem.js';
import { parseInterval, PRODUCT_TRACK_OPERATION, type TrackPayload } from '../history/track.js';
import { normaliseSku } from './sku.js';

const skuTrackBody = z
  .object({
    sku: z.string().trim().min(1).max(100),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'expected an ISO 3166-1 alpha-2 code')
      .optional(),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'expected an ISO 4217 code')
      .optional(),
    interval: z.union([z.number(), z.string()]).optional(),
  })
  .strict();

/** The SKU form's own fields, documented beside the lookup form's in the tracking body's schema (OpenAPI). */
export const SKU_TRACK_FIELDS = {
  sku: z
    .string()
    .optional()
    .describe(
      'Track a product by SKU instead of one lookup (no `operation` then): each run is one product answer ' +
        '(`GET /api/v1/products/{sku}`), refreshing every marketplace of that product; `country` and `currency` as ' +
        'that answer takes them',
    ),
};

/** What a product tracked by SKU stores as its parameters. */
export interface SkuTrackParams {
  sku: string;
  country?: string;
  currency?: string;
}

/** The SKU form is the body with a `sku` (the lookup form has an `operation` instead). */
export function isSkuTrackBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'sku' in body && !('operation' in body);
}

export function parseSkuTrackRequest(
  body: unknown,
  ownerKeyId: string | null,
): { payload: TrackPayload; intervalMs: number } {
  const checked = skuTrackBody.safeParse(body);
  if (!checked.success) throw zodToInvalidParameter(checked.error);
  const { sku, country, currency, interval } = checked.data;
  const normal = normaliseSku(sku);
  if (!normal) throw invalidParam('sku', 'must name a product');
  const params: SkuTrackParams = { sku: normal };
  if (country) params.country = country.toUpperCase();
  if (currency) params.currency = currency.toUpperCase();
  return {
    payload: { operation: PRODUCT_TRACK_OPERATION, params: { ...params }, ownerKeyId },
    intervalMs: parseInterval(interval) * 1000,
  };
}
