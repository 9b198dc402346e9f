/**
 * `GET /api/v1/products/{sku}` (beyond the spec, its own OpenAPI tag): the product by SKU across StockX, GOAT and
 * Nike. Registered from buildApp with one line; the answer itself is the core's ProductService's.
 */
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { z } from 'zod';
import { COSTS_ONE_REQUEST } from '../limits/http.js';
import { problemResponses } from '../server/openapi.js';
import { productPathSchema, productQuerySchema } from './params.js';
import { productAnswerSchema } from './schema.js';
import type { ProductService } from './service.js';

export const PRODUCTS_TAG = 'Products';
export const PRODUCT_PATH = '/api/v1/products/:sku';

declare module 'fastify' {
  interface FastifyInstance {
    /** The product by SKU, for in-process callers (product history, MCP, dashboard). */
    products: ProductService;
  }
}

export interface ProductRouteDeps {
  /** The core's product service (its answers already handed to the product watch). */
  products: ProductService;
  /** Authenticates the caller and counts the request against its rate limit and quota (guardWithLimits). */
  guard: onRequestHookHandler;
}

const maxAge = z.coerce
  .number()
  .int()
  .min(0)
  .optional()
  .describe(
    'Oldest cached sub-lookup accepted, in seconds; 0 (or `Cache-Control: no-cache`) asks every marketplace live',
  );

const DESCRIPTION =
  'One product across StockX (`resale-a`), GOAT (`resale-b`) and Nike (`sportswear`), found by its SKU: StockX by ' +
  'search with an exact style-id match (a hit without one is confirmed on its product page), GOAT by search with ' +
  'an exact SKU match, Nike by style-colour. Each marketplace is then looked up as its own routes would (the same ' +
  'cache entries, de-duplication, limits and price history), the three in parallel.\n\n' +
  "- `sizes[]`: one row per size in one size system (`us_men`, `us_women`, `us_kids`, `other`: men's, women's and " +
  "kids' never mixed), joined by a shared GTIN where two marketplaces state one, else by the size label " +
  '(`matched_by`); every offer with its kind, condition, price in major units, currency, stock where stated and ' +
  'URL; `best_buy` / `best_sell` compare only offers in the requested currency.\n' +
  '- Prices are never converted: GOAT prices in its country’s currency (US USD, GB GBP, FR EUR; other countries: ' +
  'GOAT is `error`), Nike in its storefront’s; each offer and `marketplaces[].currency` say which.\n' +
  '- One marketplace failing: 200 with the others, the failed one `status: error` and named in `X-Missing-Parts` ' +
  '(with parts a lookup left null, e.g. `resale-a.market`). None found: 404 `not_found` when every marketplace said ' +
  'it has no such SKU, else the failure (e.g. 503 `upstream_blocked`).\n' +
  '- `X-Cache`: `hit` when every sub-lookup came from the cache, `miss` when any went upstream.\n\n' +
  `**Cost.** ${COSTS_ONE_REQUEST} Upstream, a cold answer is up to 2 StockX lookups (search, product), 3 GOAT ` +
  '(search, prices, product) and 1 Nike (product): each counts in its marketplace’s limiter and cache exactly like ' +
  'the same lookup on its own route, and a warm answer (every sub-lookup cached) makes no upstream request.';

export function registerProducts(app: FastifyInstance, deps: ProductRouteDeps): void {
  const { products } = deps;
  app.decorate('products', products);
  app.route({
    method: 'GET',
    url: PRODUCT_PATH,
    onRequest: deps.guard,
    schema: {
      operationId: 'productBySku',
      tags: [PRODUCTS_TAG],
      summary: 'One product by SKU across StockX, GOAT and Nike, per size',
      description: DESCRIPTION,
      security: [{ apiKey: [] }],
      params: productPathSchema,
      querystring: productQuerySchema.extend({ max_age: maxAge }),
      response: {
        200: productAnswerSchema,
        ...problemResponses(),
      },
    },
    handler: async (req, reply) => {
      const { sku } = req.params as z.output<typeof productPathSchema>;
      const { max_age: requested, ...locale } = req.query as z.output<typeof productQuerySchema> & {
        max_age?: number;
      };
      const noCache = /\bno-cache\b/i.test(req.headers['cache-control'] ?? '');
      const result = await products.answer(sku, locale, { maxAgeSeconds: noCache ? 0 : requested });
      reply.header('x-cache', result.cache);
      if (result.missingParts.length > 0) reply.header('x-missing-parts', result.missingParts.join(','));
      return result.answer;
    },
  });
}
