/** Best Buy (electronics): product pages and JSON APIs behind Akamai (notes §6). */
import { z } from 'zod';
import { defineMarketplace, isJsonBody } from '../descriptor.js';

export const electronicsMarketplace = defineMarketplace({
  id: 'electronics',
  alias: 'bestbuy',
  site: 'Best Buy',
  hosts: ['www.bestbuy.com', 'bestbuy.com', 'api.bestbuy.com'],
  envName: 'ELECTRONICS',
  home: 'https://www.bestbuy.com/',
  // The Products API (api.bestbuy.com) takes a key, not cookies; only the web host is warmed.
  warmUpHosts: ['www.bestbuy.com'],
  browserByDefault: false,
  // The official Products API takes a key (optional: without one the web sources alone make the record).
  settings: {
    MARKETLENS_BESTBUY_API_KEY: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Optional official Best Buy Products API key (developer.bestbuy.com).' }),
  },
  // Akamai's own cookies named in a page that is not a product page (the generic Akamai marker covers "Access Denied").
  blockMarkers: [{ name: 'Akamai challenge', test: /_abck|bm_sz|sec-if-cpt-container/i, decisive: false }],
  // Product pages of every generation carry a SKU id (component JSON, initializer, Apollo); APIs answer JSON.
  looksReal: (res, req) => (req.expect === 'json' ? isJsonBody(res) : /skuId|"sku_id"|productBySkuId/i.test(res.body)),
});

/** MARKETLENS_BESTBUY_API_KEY, when set. */
export function bestbuyApiKey(config: {
  marketplaces: Readonly<Record<string, { settings: Readonly<Record<string, unknown>> } | undefined>>;
}): string | undefined {
  const key = config.marketplaces[electronicsMarketplace.id]?.settings.MARKETLENS_BESTBUY_API_KEY;
  return typeof key === 'string' ? key : undefined;
}
