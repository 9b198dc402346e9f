/**
 * Tracking by SKU: `POST /api/v1/db/products {"sku": "…", "interval": "15m"}` beside the lookup form. Stored as a
 * `track` job like any tracked product (same per-key cap, owner, list and delete), whose `operation` is `product`:
 * each run is one product answer, refreshing every marketplace of that product (src/history/track.ts hands the run
 * to `app.productWatch.refresh`).
 */
import { z } from 'zod';
import { zodToInvalidParameter } from '../param-errors.js';
import { parseInterval, PRODUCT_TRACK_OPERATION, type TrackPayload } from '../history/track.js';
import { productRequest } from './params.js';

/** The form's fields; the SKU, country and currency are then checked as the product route checks them. */
const skuTrackBody = z
  .object({
    sku: z.string(),
    country: z.string().optional(),
    currency: z.string().optional(),
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
  country: string;
  currency: string;
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
  const request = productRequest(sku, { country, currency });
  const params: SkuTrackParams = { sku: request.sku, country: request.country, currency: request.currency };
  return {
    payload: { operation: PRODUCT_TRACK_OPERATION, params: { ...params }, ownerKeyId },
    intervalMs: parseInterval(interval) * 1000,
  };
}
