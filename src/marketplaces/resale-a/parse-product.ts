/**
 * Product page (catalog) + GetMarketData answer (market) → spec §2.6 product. Pure.
 */
import { upstreamChanged } from '../../errors.js';
import { fromMarketProduct, parseMarketData, type MarketData } from './parse-market.js';
import { marketFromOffers, pageOffers } from './parse-offers.js';
import { findProductNode, pageJson } from './parse-page.js';
import { upstreamProductSchema, type Product, type UpstreamProduct, type Variant } from './schema.js';

export interface ProductBodies {
  /** The product page: final URL (real host) and HTML. */
  page: { url: string; html: string };
  /** The GetMarketData answer, or null when it could not be fetched (see `marketError`). */
  market: string | null;
  /** Error code of a failed market fetch: the record then has `market: null` unless the page carried one. */
  marketError?: string;
}

/**
 * The slug a product page URL names, or undefined.
 * @example slugOfPageUrl('https://stockx.com/fr-fr/nike-x-stussy-bucket-hat-black') // 'nike-x-stussy-bucket-hat-black'
 */
export function slugOfPageUrl(url: string): string | undefined {
  try {
    const segments = new URL(url).pathname.split('/').filter(Boolean);
    return segments.length > 0 ? decodeURIComponent(segments[segments.length - 1]!) : undefined;
  } catch {
    return undefined;
  }
}

/** Where the record's market came from: the market answer, the page's own market node, its JSON-LD offers, none. */
export type MarketSource = 'market' | 'page' | 'offers' | 'none';

/**
 * Bodies → record. `slugs`: the slugs the caller asked for (to pick the page's product among related ones).
 * @example parseProduct({ page: { url, html }, market: body }, ['nike-x-stussy-bucket-hat-black']).market?.bids
 */
export function parseProduct(bodies: ProductBodies, slugs: readonly string[] = []): Product {
  return parseProductWithSource(bodies, slugs).record;
}

/**
 * Bodies → record and where its market came from. Without a market answer or a market node in the page, the page's
 * JSON-LD offers in `currency` (the requested one; a page without it is not searched) give the lowest asks.
 */
export function parseProductWithSource(
  bodies: ProductBodies,
  slugs: readonly string[] = [],
  currency?: string,
): { record: Product; marketSource: MarketSource } {
  const json = pageJson(bodies.page.html, 'product page');
  const fromUrl = slugOfPageUrl(bodies.page.url);
  const node = findProductNode(json, fromUrl ? [fromUrl, ...slugs] : slugs);
  if (!node)
    throw upstreamChanged('resale-a', 'product page has no product node in its embedded JSON', bodies.page.html);
  const parsed = upstreamProductSchema.safeParse(node);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw upstreamChanged('resale-a', `product node: ${issue?.path.join('.')} ${issue?.message}`, JSON.stringify(node));
  }
  const p = parsed.data;
  // Market: the GetMarketData answer; pages up to 2023 also embedded one (bidAskData), used when that is all we have.
  let market: MarketData | null = bodies.market === null ? null : parseMarketData(bodies.market);
  if (market && market.ids.length > 0 && !market.ids.some((id) => id === p.id || id === p.urlKey)) {
    throw upstreamChanged('resale-a', `market data is for ${market.ids.join('/')}, not for ${p.urlKey}`);
  }
  let marketSource: MarketSource = market === null ? 'none' : 'market';
  if (market === null && (p.market != null || (p.variants ?? []).some((v) => v.market != null))) {
    market = fromMarketProduct(p);
    marketSource = 'page';
  }
  const offers = market === null && currency !== undefined ? pageOffers(bodies.page.html, currency) : undefined;
  if (offers) {
    market = marketFromOffers(offers);
    marketSource = 'offers';
  }
  return { record: toRecord(p, market), marketSource };
}

function toRecord(p: UpstreamProduct, market: MarketData | null): Product {
  const name = titleOf(p);
  if (name === undefined) throw upstreamChanged('resale-a', `product ${p.urlKey} has no title`);
  return {
    id: p.id,
    productId: p.id,
    slug: p.urlKey,
    name,
    primary_category: text(p.primaryCategory),
    gender: text(p.gender),
    brand: text(p.brand),
    category: text(p.productCategory),
    model: text(p.model),
    sku: text(p.styleId),
    description: text(p.description),
    image: text(p.media?.imageUrl),
    thumb_image: text(p.media?.thumbUrl),
    small_image: text(p.media?.smallImageUrl),
    breadcrumbs: (p.breadcrumbs ?? []).map((b) => ({ url: b.url, name: b.name, level: b.level })),
    traits: (p.traits ?? [])
      .filter((t) => t.value !== null && t.value !== undefined)
      .map((t) => ({ name: t.name, value: String(t.value) })),
    market: market ? market.product : null,
    variants: (p.variants ?? []).map((v): Variant => ({
      id: v.id,
      sizes: (v.sizeChart?.displayOptions ?? []).map((o) => ({ size: o.size, type: o.type })),
      gtins: (v.gtins ?? []).map((g) => ({ type: g.type, identifier: String(g.identifier) })),
      market: market?.variants.get(v.id) ?? null,
      traits: { size: v.traits?.size == null ? null : String(v.traits.size) },
    })),
  };
}

/** `title`, else `primaryTitle secondaryTitle`. */
export function titleOf(p: {
  title?: string | null;
  primaryTitle?: string | null;
  secondaryTitle?: string | null;
}): string | undefined {
  const title = text(p.title);
  if (title) return title;
  // The model (primaryTitle) names the product; a colourway (secondaryTitle) alone is no name.
  const primary = text(p.primaryTitle);
  if (primary === null) return undefined;
  const secondary = text(p.secondaryTitle);
  return secondary === null ? primary : `${primary} ${secondary}`;
}

/** Upstream strings: blank means absent (apparel `styleId: ""`), so null. */
function text(v: string | null | undefined): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}
