import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../errors.js';
import { notImplementedOperation } from './not-implemented.js';

describe('notImplementedOperation', () => {
  it('fails every lookup with 501 not_implemented naming the operation', async () => {
    const op = notImplementedOperation({
      name: 'sportswear.product',
      marketplace: 'sportswear',
      path: '/api/v1/scraper/sportswear/product',
      summary: 'x',
      params: z.object({ query: z.string() }).strict(),
      cacheClass: 'products',
    });
    const err = await op.fetch({} as never, { query: 'a' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketlensError);
    expect((err as MarketlensError).code).toBe('not_implemented');
    expect((err as MarketlensError).status).toBe(501);
    expect((err as MarketlensError).message).toContain('sportswear.product');
  });
});
