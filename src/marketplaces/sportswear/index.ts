import { z } from 'zod';
import { notImplementedOperation } from '../../operations/not-implemented.js';

export const sportswearOperations = {
  product: notImplementedOperation({
    name: 'sportswear.product',
    marketplace: 'sportswear',
    path: '/api/v1/scraper/sportswear/product',
    summary: 'Product details (Nike)',
    params: z.object({ query: z.string().trim().min(1), country: z.string().optional() }).strict(),
    cacheClass: 'products',
  }),
};
