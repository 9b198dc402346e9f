import { z } from 'zod';
import { notImplementedOperation } from '../../operations/not-implemented.js';

export const electronicsOperations = {
  product: notImplementedOperation({
    name: 'electronics.product',
    marketplace: 'electronics',
    path: '/api/v1/scraper/electronics/product',
    summary: 'Product details, pricing, reviews, photos and specifications (Best Buy)',
    params: z.object({ query: z.string().trim().min(1) }).strict(),
    cacheClass: 'products',
  }),
};
