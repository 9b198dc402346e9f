/** Spec 4.8: one Best Buy product — pricing, reviews, photos and specifications — assembled from several sources. */
import { z } from 'zod';
import { defineOperation } from '../../operations/types.js';
import { assemble } from './assemble.js';
import type { ElectronicsBodies } from './bodies.js';
import { bodiesFromSavedFiles } from './bodies-from-files.js';
import { fetchElectronicsBodies } from './fetch.js';
import { electronicsProductSchema } from './schema.js';
import { canonicalQuery, parseProductQuery } from './sku.js';
import { refineWith } from '../../operations/refine-with.js';
import { extractElectronicsProduct } from './history-extract.js';

const params = z
  .object({
    query: z
      .string()
      .trim()
      .min(1)
      .superRefine(refineWith(parseProductQuery))
      .describe(
        'Best Buy product page URL (`/site/<name>/<sku>.p?skuId=<sku>`, `/product/<name>/<id>`, ' +
          '`/product/<name>/<id>/sku/<sku>`, `…/<sku>/openbox`) or a bare numeric SKU, e.g. `6534615`',
      ),
  })
  .strict();

export const electronicsProduct = defineOperation({
  name: 'electronics.product',
  marketplace: 'electronics',
  path: '/api/v1/scraper/electronics/product',
  summary: 'Product details, pricing, reviews, photos and specifications (Best Buy)',
  description:
    'Assembled from the product page (every page generation since 2024: component JSON scripts, initializer ' +
    'scripts, Next.js/Apollo `productBySkuId`), the pricing API, the price view, the reviews API and, when ' +
    '`MARKETLENS_BESTBUY_API_KEY` is set, the official Products API — fetched in parallel. A part whose sources ' +
    'failed is `null` and named in the `X-Missing-Parts` response header (e.g. `reviews`, `pricing.sku_price_domain`); ' +
    'only when every source fails is the lookup an error (404 when the product page does not exist). Keys are ' +
    "Best Buy's own names in naive snake_case (`isMAP` → `is_m_a_p`). `specification_groups` holds the grouped " +
    'specifications; `specifications` holds the display settings only old pages carried (otherwise null).',
  params,
  record: electronicsProductSchema,
  cacheClass: 'products',
  async fetch(ctx, p) {
    return fetchElectronicsBodies(ctx, p.query);
  },
  parse(bodies: ElectronicsBodies) {
    const { record, missing } = assemble(bodies);
    return { record, missing };
  },
  canonicalParams: (p) => ({ query: canonicalQuery(parseProductQuery(p.query)) }),
  probe: { query: '6534615' },
  history: extractElectronicsProduct,
  // Best Buy is the US store: prices in USD.
  identify: (record, p) => ({
    id: record.pricing?.sku_price_domain?.sku_id ?? canonicalQuery(parseProductQuery(p.query)),
    country: 'US',
    currency: 'USD',
    locale: 'en-US',
  }),
  bodiesFromFiles(files, p) {
    const sku = p.query ? parseProductQuery(p.query).sku : undefined;
    return bodiesFromSavedFiles(files, sku);
  },
});
