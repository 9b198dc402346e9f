/** The marketplaces the product answer asks, in answer order (PRODUCT_MARKETPLACES). */
import { resaleASkuSource } from '../marketplaces/resale-a/sku-source.js';
import { resaleBSkuSource } from '../marketplaces/resale-b/sku-source.js';
import { sportswearSkuSource } from '../marketplaces/sportswear/sku-source.js';
import { findGoatProduct } from '../marketplaces/resale-b/find.js';
import type { SkuSource } from './source.js';

export const DEFAULT_SKU_SOURCES: readonly SkuSource[] = [
  resaleASkuSource,
  resaleBSkuSource((sku, lookups) => findGoatProduct(sku, lookups)),
  sportswearSkuSource,
];
