import { z } from 'zod';
import { notImplementedOperation } from '../../operations/not-implemented.js';

export const resaleAOperations = {
  search: notImplementedOperation({
    name: 'resale-a.search',
    marketplace: 'resale-a',
    path: '/api/v1/scraper/resale-a/search',
    summary: 'Search products by text (StockX)',
    params: z.object({ query: z.string().trim().min(1).optional() }).strict(),
    cacheClass: 'searches',
  }),
  product: notImplementedOperation({
    name: 'resale-a.product',
    marketplace: 'resale-a',
    path: '/api/v1/scraper/resale-a/product',
    summary: 'Product with variants and market data (StockX)',
    params: z
      .object({
        query: z.string().trim().min(1),
        country: z.string().optional(),
        language: z.string().optional(),
        currency: z.string().optional(),
      })
      .strict(),
    cacheClass: 'products',
  }),
};
