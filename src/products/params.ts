/**
 * The product route's input: the SKU in the path; `country` and `currency` exactly as the StockX product lookup
 * takes them (the widest of the three marketplaces: GOAT prices three countries, Nike prices in its storefront's
 * currency), the currency defaulting to the country's.
 */
import { z } from 'zod';
import { countryParam, currencyParam, preferredCurrency } from '../marketplaces/resale-a/locale.js';
import { zodToInvalidParameter } from '../param-errors.js';
import { skuParam } from './sku.js';
import type { ProductLocale } from './source.js';

export const productPathSchema = z.object({ sku: skuParam }).strict();

export const productQuerySchema = z
  .object({
    country: countryParam.optional(),
    currency: currencyParam
      .optional()
      .describe(
        "Currency to price in (ISO 4217), default the country's. StockX answers in it; GOAT (its country's currency) " +
          'and Nike (its storefront’s) cannot be asked for one: their offers keep their own currency, labelled.',
      ),
  })
  .strict();

export interface ProductRequest extends ProductLocale {
  sku: string;
}

/**
 * Checks and completes what a caller (the route, the CLI, the MCP server) asks: 400 `invalid_parameter` naming
 * `sku`, `country` or `currency`.
 * @example productRequest('dd1391 100', { country: 'fr' }) // { sku: 'DD1391-100', country: 'FR', currency: 'EUR' }
 */
export function productRequest(sku: string, options: { country?: string; currency?: string }): ProductRequest {
  const path = productPathSchema.safeParse({ sku });
  if (!path.success) throw zodToInvalidParameter(path.error);
  const query = productQuerySchema.safeParse(options);
  if (!query.success) throw zodToInvalidParameter(query.error);
  const country = query.data.country ?? 'US';
  return { sku: path.data.sku, country, currency: query.data.currency ?? preferredCurrency(country) };
}
