/** Spec 4.4: product details, from the `__NEXT_DATA__` of GOAT's product page. */
import { z } from 'zod';
import { MarketlensError, invalidParam } from '../../errors.js';
import { complete, defineOperation } from '../../operations/types.js';
import { expectOk } from '../../upstream/expect.js';
import { parseMarketplaceUrl } from '../../upstream/url-guard.js';
import { camelProductAnswer } from './camel-keys.js';
import { isSkuQuery, requireGoatProduct } from './find.js';
import { isNotFoundPage, parseProductBody } from './parse.js';
import { GOAT_ORIGIN } from './prices.js';
import { PRODUCT_EXAMPLE } from './product-example.js';
import { productRecordSchema } from './schema.js';
import { extractResaleBProduct } from './history-extract.js';

/** The two storefront sections that have product pages. */
export type GoatSection = 'sneakers' | 'apparel';

/** GOAT slugs: lower-case letters, digits and hyphens (e.g. `air-jordan-3-retro-white-cement-reimagined-dn3707-100`). */
const SLUG = /^[a-z0-9][a-z0-9_-]{0,199}$/;
const PRODUCT_PATH = /^\/(sneakers|apparel)\/([^/]+)\/?$/;
const QUERY_HELP =
  'must be a GOAT product URL (https://www.goat.com/sneakers/{slug} or /apparel/{slug}) or a bare slug';

/** What to fetch for a `query`: the slug, and the sections to try in order. */
export interface ProductTarget {
  slug: string;
  sections: GoatSection[];
}

/**
 * `query` → the pages to fetch, or a 400 naming `query`. A URL must be on a GOAT host (SSRF guard) and name a
 * `/sneakers/` or `/apparel/` page. A bare slug does not say its section: GOAT serves sneakers (most of the
 * catalogue) under `/sneakers/` and clothing under `/apparel/`, so a slug is tried as a sneaker first and, only when
 * that page is not found, as apparel: sneakers cost one request, apparel two, and a slug that exists in neither is a
 * 404.
 * @example resolveProductQuery('https://www.goat.com/apparel/x-tee') // { slug: 'x-tee', sections: ['apparel'] }
 */
export function resolveProductQuery(query: string): ProductTarget {
  const input = query.trim();
  // A slug has no `/`, `.` or `:`; anything with one is a URL (with or without a scheme: `www.goat.com/sneakers/…`).
  if (!/[/.:]/.test(input)) {
    const slug = input.toLowerCase();
    if (!SLUG.test(slug)) throw invalidParam('query', `${QUERY_HELP}; "${input.slice(0, 80)}" is neither`);
    return { slug, sections: ['sneakers', 'apparel'] };
  }
  const url = parseMarketplaceUrl('resale-b', 'query', input);
  const m = PRODUCT_PATH.exec(url.pathname);
  const slug = m ? safeDecode(m[2]!)?.toLowerCase() : undefined;
  if (!m || slug === undefined || !SLUG.test(slug)) {
    throw invalidParam('query', `${QUERY_HELP}; the path ${url.pathname.slice(0, 80)} is not a product page`);
  }
  return { slug, sections: [m[1] as GoatSection] };
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

const params = z
  .object({
    query: z
      .string()
      .trim()
      .min(1, 'is required')
      .superRefine((value, ctx) => {
        if (isSkuQuery(value)) return;
        try {
          resolveProductQuery(value);
        } catch (e) {
          const message = e instanceof MarketlensError ? (e.errors?.[0]?.message ?? e.message) : QUERY_HELP;
          ctx.addIssue({ code: 'custom', message });
        }
      })
      .describe(
        'Storefront URL (`https://www.goat.com/sneakers/{slug}` or `/apparel/{slug}`) or the bare slug, e.g. ' +
          '`air-jordan-3-retro-white-cement-reimagined-dn3707-100`; or a SKU (`DN3707-100`), found through GOAT search',
      ),
  })
  .strict();

export const resaleBProduct = defineOperation({
  name: 'resale-b.product',
  marketplace: 'resale-b',
  path: '/api/v1/scraper/resale-b/product',
  summary: 'Product details (GOAT)',
  description:
    "GOAT's product template from the product page (`__NEXT_DATA__` → `props.pageProps.productTemplate`), with " +
    'keys in snake_case (`isAliasResellable` → `is_partner_resellable`, `applePayOnlyPromo` → ' +
    "`payment_pay_only_promo`). Exactly the spec's fields: a field GOAT does not send for this product (older " +
    'templates lack `age_groups`, `taxonomy_level1`, `featured_in` …) is `null`; other GOAT keys (`activity` …) are ' +
    'not included. `release_date_name` is `null` where GOAT sends an empty string.\n\n' +
    '`query` is a `www.goat.com` product URL (`/sneakers/{slug}` or `/apparel/{slug}`) or a bare slug; a bare slug is ' +
    'looked up under `/sneakers/` first, then under `/apparel/`.\n\n' +
    'A SKU (one or two words with a digit, five characters or more: `DN3707-100`, `389368 10`) is first looked up with ' +
    '`resale-b.search` (one more upstream request, cached as that search): the hit with exactly that SKU (case, ' +
    'spaces and hyphens ignored), else with that slug. None: 404 `not_found`.',
  params,
  record: productRecordSchema,
  cacheClass: 'products',
  example: { params: { query: `https://www.goat.com/sneakers/${PRODUCT_EXAMPLE.slug}` }, response: PRODUCT_EXAMPLE },
  // A SKU → the product's page, through the search (cached): the product is then cached under its slug.
  resolveParams: (p, ctx) =>
    isSkuQuery(p.query) ? requireGoatProduct(p.query, ctx).then((found) => ({ ...p, query: found.url })) : null,
  async fetch(ctx, p) {
    const { slug, sections } = resolveProductQuery(p.query);
    for (const [i, section] of sections.entries()) {
      const last = i === sections.length - 1;
      const res = await ctx.http.request(
        {
          url: `${GOAT_ORIGIN}/${section}/${encodeURIComponent(slug)}`,
          expect: 'html',
          label: 'product_page',
        },
        ctx,
      );
      if ((res.status === 404 || res.status === 410) && !last) continue;
      expectOk(res, 'resale-b', `product ${slug}`);
      // A not-found page served with 200 also means "try the other section"; the last one is left to the parser.
      if (!last && isNotFoundPage(res.body)) continue;
      return res.body;
    }
    throw new MarketlensError('not_found', `resale-b has no product ${slug}`);
  },
  parse(body: string) {
    return complete(parseProductBody(body));
  },
  // A storefront URL and its bare slug name one product: one cache entry, one upstream fetch.
  // A SKU not yet resolved (a cache probe before `resolveParams`) keys as itself.
  canonicalParams: (p) => ({ query: isSkuQuery(p.query) ? p.query.trim() : resolveProductQuery(p.query).slug }),
  // The example is illustrative; the probe is the Tazz slipper of the captures (template 1341930, as the prices').
  probe: { query: 'tazz-slipper-kids-sand-1143776k-san' },
  history: extractResaleBProduct,
  answerForm: camelProductAnswer,
  // The product template id, which resale-b.prices takes as its query: both lookups share the identity.
  identify: (record) => ({ id: String(record.id), country: null, currency: null, locale: null }),
  bodiesFromFiles(files) {
    if (files.length !== 1) {
      throw new MarketlensError(
        'invalid_parameter',
        'resale-b.product parses exactly one file: a product page or its JSON',
      );
    }
    const text = files[0]!.text;
    // Scrapers' exports hold arrays of templates; a record is one product.
    if (/^\s*\[/.test(text)) {
      throw new MarketlensError(
        'invalid_parameter',
        `${files[0]!.path} holds an array of product templates; save one product (page, _next/data JSON or template) per file`,
      );
    }
    return text;
  },
});
