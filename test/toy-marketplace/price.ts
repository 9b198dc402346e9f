/** The toy's one operation: the price of a toy by its numeric id. */
import { z } from 'zod';
import { MarketlensError, upstreamChanged } from '../../src/errors.js';
import { complete, type Operation } from '../../src/operations/types.js';
import { expectOk } from '../../src/upstream/expect.js';
import { extractToyPrice } from './history-extract.js';
import { toyDescriptor } from './marketplace.js';

const params = z
  .object({
    query: z
      .string()
      .trim()
      .regex(/^\d{1,9}$/, 'must be a toy id, e.g. 42'),
  })
  .strict();
const record = z
  .object({ id: z.string(), name: z.string(), price: z.number().nullable(), currency: z.string() })
  .strict();
type Params = z.output<typeof params>;
export type ToyPrice = z.output<typeof record>;

export const toyPrice: Operation<Params, string, ToyPrice, 'toy.price', 'toy'> = {
  name: 'toy.price',
  marketplace: toyDescriptor.id,
  path: '/api/v1/scraper/toy/price',
  summary: 'Price of a toy (Toy Shop)',
  description: "The toy shop's price API, as is.",
  params,
  record,
  cacheClass: 'prices',
  // The toy the doctor and the canaries look up (its fake shop answers it in the tests).
  probe: { query: '42' },
  history: extractToyPrice,
  async fetch(ctx, p) {
    const res = await ctx.http.request(
      { url: `https://www.toyshop.example/api/toys/${p.query}`, expect: 'json', label: 'toy' },
      ctx,
    );
    expectOk(res, 'toy', `toy ${p.query}`);
    return res.body;
  },
  parse(body) {
    let json: { id?: unknown; name?: unknown; price?: unknown };
    try {
      json = JSON.parse(body);
    } catch {
      throw upstreamChanged('toy', 'the price API did not answer JSON', body);
    }
    return complete({
      id: String(json.id),
      name: String(json.name),
      price: typeof json.price === 'number' ? json.price : null,
      currency: 'EUR',
    });
  },
  identify: (r) => ({ id: r.id, country: 'FR', currency: r.currency, locale: null }),
  bodiesFromFiles(files) {
    const [file] = files;
    if (!file || files.length !== 1)
      throw new MarketlensError('invalid_parameter', 'toy.price parses one saved answer');
    return file.text;
  },
};
