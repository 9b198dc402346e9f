import { z } from 'zod';
import { notImplementedOperation } from '../../operations/not-implemented.js';

export const watchmarketOperations = {
  finder: notImplementedOperation({
    name: 'watchmarket.finder',
    marketplace: 'watchmarket',
    path: '/api/v2/finder/watchmarket-search',
    summary: 'Look up search filter groups and their codes by name (Chrono24)',
    params: z.object({ query: z.string().trim().min(1) }).strict(),
    cacheClass: 'finder',
  }),
  search: notImplementedOperation({
    name: 'watchmarket.search',
    marketplace: 'watchmarket',
    path: '/api/v1/scraper/watchmarket/search',
    summary: 'Search listings with filters, sorting and pagination (Chrono24)',
    params: z.object({ query: z.string().optional() }).catchall(z.string()),
    cacheClass: 'searches',
  }),
};
