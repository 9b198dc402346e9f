/**
 * Spec 4.7: product details from the Nike product page (`__NEXT_DATA__`); when the page is blocked, the fields the
 * product_feed threads/v3 API carries (parse-feed.ts), the rest null and named in X-Missing-Parts.
 */
import { z } from 'zod';
import { MarketlensError, isMarketlensError } from '../../errors.js';
import type { FetchContext } from '../../operations/types.js';
import { complete, defineOperation } from '../../operations/types.js';
import { expectOk } from '../../upstream/expect.js';
import { feedLanguage, feedUrl, parseFeedText, type FeedTarget } from './parse-feed.js';
import { parseProductPage } from './parse.js';
import { nullPaths } from './record-parts.js';
import { NIKE_ORIGIN, resolveProductTarget, styleColorOfUrl } from './product-url.js';
import { productSchema } from './schema.js';
import { acceptLanguage, normaliseCountry } from './storefronts.js';
import { extractSportswearProduct } from './history-extract.js';

/** What `fetch` hands to `parse`: the page and the URL it finally came from. */
export interface ProductPageBodies {
  html: string;
  /** Final URL after redirects (real host), or null for a saved file. */
  url: string | null;
}

/** The page was blocked: the product feed's answer (its text) for the colourway instead. */
export interface FeedBodies {
  feed: string;
  target: FeedTarget;
}

export type SportswearBodies = ProductPageBodies | FeedBodies;

/**
 * threads/v3 for the colourway; any failure there leaves the page's own block as the answer (the feed is a fallback,
 * not a second opinion on whether the product exists).
 */
async function fetchFeed(ctx: FetchContext, target: FeedTarget, blocked: MarketlensError): Promise<FeedBodies> {
  try {
    const res = await ctx.http.request(
      { url: feedUrl(target), expect: 'json', label: 'product_feed', headers: { accept: 'application/json' } },
      ctx,
    );
    expectOk(res, 'sportswear', `product feed ${target.styleColor}`);
    parseFeedText(res.body, target); // the colourway must be in it, else the page's block stands
    return { feed: res.body, target };
  } catch (e) {
    if (isMarketlensError(e)) throw blocked;
    throw e;
  }
}

/** Runs the same resolution as `fetch`, so a bad query or country is a 400 before any upstream request. */
function checkQuery(query: string, ctx: z.RefinementCtx): void {
  try {
    resolveProductTarget(query);
  } catch (e) {
    if (!isMarketlensError(e) || !e.errors?.[0]) throw e;
    ctx.addIssue({ code: 'custom', message: e.errors[0].message });
  }
}

const params = z
  .object({
    query: z
      .string()
      .trim()
      .min(1)
      .superRefine(checkQuery)
      .describe(
        'Nike product page URL, e.g. `https://www.nike.com/fr/t/chaussure-dunk-low-retro-pour-xxxxxx/DD1391-100` ' +
          '(its path sets country and language), or a bare style-colour code such as `DD1391-100`',
      ),
    country: z
      .string()
      .trim()
      .refine(
        (c) => normaliseCountry(c) !== undefined,
        'must be an ISO 3166-1 alpha-2 country code such as US, GB, FR, DE, JP',
      )
      .optional()
      .describe(
        'Storefront country for a bare style-colour (ISO 3166-1 alpha-2, `UK` = GB); default US. With a URL it must match the URL',
      ),
  })
  .strict();

export const sportswearProduct = defineOperation({
  name: 'sportswear.product',
  marketplace: 'sportswear',
  path: '/api/v1/scraper/sportswear/product',
  summary: 'Product details (Nike)',
  description:
    "The colourway named by the URL's (or the code's) style-colour, from the product page's `__NEXT_DATA__`: " +
    "its product group's entry (falling back to the page's selected product when it is that colourway). " +
    "Text comes in the storefront's language, prices in its currency. A bare code is fetched as " +
    '`https://www.nike.com/{country}/t/-/{STYLE-COLOR}`, which Nike redirects to the product page. ' +
    '`sizes[].status` ACTIVE does not mean in stock. `gender` is null: the page carries gender strings, not the ' +
    'integer the spec shows. A code the page does not list answers 404.\n\n' +
    "When the product page is blocked (bot manager), the answer comes from Nike's `product_feed/threads/v3` API " +
    '(filtered by style-colour, marketplace and language): ids, codes, brand, sport tags, prices, titles, description, ' +
    'colours and sizes with GTINs. Every field only the page carries is null and named in the `X-Missing-Parts` ' +
    'response header (e.g. `badge,pdp_url,…,sizes.status,product_info.origins,…`). An older page generation ' +
    '(2023, `initialState.Threads.products`) parses too, with null where it lacks a field.',
  params,
  record: productSchema,
  cacheClass: 'products',
  async fetch(ctx, p): Promise<SportswearBodies> {
    const target = resolveProductTarget(p.query, p.country);
    const feedTarget: FeedTarget = {
      styleColor: target.styleColor,
      marketplace: target.country,
      language: feedLanguage(target.country, target.language),
    };
    const res = await ctx.http
      .request(
        {
          url: target.pageUrl,
          expect: 'html',
          label: 'product_page',
          headers: {
            accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
            'accept-language': acceptLanguage(target.country, target.language),
          },
        },
        ctx,
      )
      .catch((e: unknown) => {
        if (isMarketlensError(e) && e.code === 'upstream_blocked') return fetchFeed(ctx, feedTarget, e);
        throw e;
      });
    if ('feed' in res) return res;
    expectOk(res, 'sportswear', `product ${target.styleColor}`);
    // Nike sends a code it does not know to some other page (home, a listing): not a product.
    if (styleColorOfUrl(res.url) === undefined) {
      throw new MarketlensError(
        'not_found',
        `sportswear has no product ${target.styleColor} (redirected to ${new URL(res.url).pathname})`,
      );
    }
    return { html: res.body, url: res.url } satisfies ProductPageBodies;
  },
  parse(bodies: SportswearBodies, p) {
    if ('feed' in bodies) {
      const record = parseFeedText(bodies.feed, bodies.target);
      return { record, missing: nullPaths(record) };
    }
    const styleColor = p.query
      ? resolveProductTarget(p.query, p.country).styleColor
      : bodies.url
        ? styleColorOfUrl(bodies.url)
        : undefined;
    return complete(parseProductPage(bodies.html, styleColor));
  },
  // A product URL is its storefront and style-colour (the slug is decoration Nike redirects away); a storefront
  // language other than the default (/ca/fr/) cannot be said with a bare code, so that URL keeps a placeholder slug.
  canonicalParams: (p) => {
    const t = resolveProductTarget(p.query, p.country);
    if (t.language === null) return { query: t.styleColor, country: t.country };
    return { query: `${NIKE_ORIGIN}/${t.country.toLowerCase()}/${t.language}/t/-/${t.styleColor}` };
  },
  probe: { query: 'DD1391-100' },
  history: extractSportswearProduct,
  identify: (record, p) => {
    const t = resolveProductTarget(p.query, p.country);
    return {
      id: t.styleColor,
      country: t.country,
      currency: record.prices?.currency ?? null,
      locale: acceptLanguage(t.country, t.language).split(',')[0]!,
    };
  },
  bodiesFromFiles(files, p): SportswearBodies {
    if (files.length !== 1) {
      throw new MarketlensError(
        'invalid_parameter',
        'sportswear.product parses exactly one saved product page (HTML) or product_feed/threads/v3 answer (JSON)',
      );
    }
    const text = files[0]!.text;
    // A saved threads/v3 answer: the colourway and storefront come from query (and country), as for a live fallback.
    if (/^\s*\{/.test(text) && /"objects"\s*:/.test(text.slice(0, 2000))) {
      if (!p.query)
        throw new MarketlensError(
          'invalid_parameter',
          'query: a product feed answer needs the style-colour (query=…)',
          { errors: [{ param: 'query', message: 'a product feed answer needs the style-colour' }] },
        );
      const target = resolveProductTarget(p.query, p.country);
      return {
        feed: text,
        target: {
          styleColor: target.styleColor,
          marketplace: target.country,
          language: feedLanguage(target.country, target.language),
        },
      };
    }
    return { html: text, url: null };
  },
});
