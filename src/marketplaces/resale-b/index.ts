import { z } from 'zod';
import { notImplementedOperation } from '../../operations/not-implemented.js';
import { resaleBPrices } from './prices.js';

export const resaleBOperations = {
  prices: resaleBPrices,
  product: notImplementedOperation({
    name: 'resale-b.product',
    marketplace: 'resale-b',
    path: '/api/v1/scraper/resale-b/product',
    summary: 'Product details (GOAT)',
    params: z.object({ query: z.string().trim().min(1).describe('Storefront URL or bare slug') }).strict(),
    cacheClass: 'products',
  }),
};
