/**
 * Pure parser of Chrono24 search-result pages (spec §2.5). Chrono24 serves results only as HTML, so this is the one
 * parser in the project that builds a DOM: `cheerio/slim` (htmlparser2), never the default parse5 mode (≈5× slower).
 * Only the parts that hold data become a DOM (the card region minus its image carousels, the pagination nav); the
 * count, the carousels' image URLs and the region bounds are found by string search.
 *
 * Markup generations (notes ../shared/upstreams/chrono24.md §3): the 2026 cards (`div.js-listing-item-container`,
 * `wt-listing-item-*`) and the ≤2024 cards (`a.js-article-item` around `div.p-x-2.p-x-sm-0` text blocks with
 * `span.currency`). A page may arrive as several excerpt files (`marketlens parse` on the captures): each part is
 * parsed on its own DOM and the parts are merged, so a cut-off card never borrows another card's data.
 */
import { load, type Cheerio, type CheerioAPI } from 'cheerio/slim';
import type { AnyNode, Element } from 'domhandler';
import { invalidParam, upstreamChanged } from '../../errors.js';
import { parseLocaleNumber, parsePriceText } from './price-text.js';
import type { Listing, SearchResult } from './schema.js';

/** What `fetch` hands to `parse`: the final URL (after redirects) and the page, possibly in several parts. */
export interface SearchBodies {
  url: string;
  pages: string[];
  /** The page size the pages were fetched with (a live fetch states it; a saved page may not know it). */
  pageSize?: number;
}

interface PartResult {
  listings: Listing[];
  /** Card containers that lacked a title (a truncated tail of an excerpt, or a format change). */
  skipped: number;
  total: number | null;
  pagination: { current: number; pages: number[]; hasNext: boolean } | null;
  /** The page is recognisably a search-results page (list container, count or metaData search action). */
  isResultsPage: boolean;
}

const text = (el: Cheerio<AnyNode>): string => el.text().replace(/\s+/g, ' ').trim();
const orNull = (s: string): string | null => (s === '' ? null : s);

/** `/rolex/submariner-date--id47962070.htm` → `47962070`. */
export function listingIdFromHref(href: string | undefined): string | null {
  const m = href?.match(/--id(\d+)\.htm/);
  return m ? m[1]! : null;
}

/** Images of a DOM scope (cards without a stripped carousel, legacy cards), in page order. */
function imageUrls($: CheerioAPI, scope: Cheerio<AnyNode>, base: string): string[] {
  const out: string[] = [];
  scope.find('img').each((_, img) => {
    const attrs = img.attribs;
    const url = imageFromAttributes((name) => attrs[name]);
    const abs = url ? absolute(url, base) : null;
    if (abs && !out.includes(abs)) out.push(abs);
  });
  return out;
}

function absolute(href: string, base: string): string | null {
  try {
    return new URL(href, base).href;
  } catch {
    return null;
  }
}

/** Only the image block counts: badges (e.g. the "Certified" seal) are images too. */
function cardImages($: CheerioAPI, card: Cheerio<Element>, base: string, carousels: string[][]): string[] {
  const ref = card.find('c24-carousel[data-ml-images]').first().attr('data-ml-images');
  if (ref === undefined) return imageUrls($, card.find('.listing-item-image').first(), base);
  return (carousels[Number(ref)] ?? []).map((u) => absolute(u, base)).filter((u): u is string => u !== null);
}

/** One 2026 card (`div.js-listing-item-container`). */
function parseModernCard($: CheerioAPI, card: Cheerio<Element>, base: string, carousels: string[][]): Listing | null {
  const title = text(card.find('p.text-bold.text-ellipsis').first());
  if (title === '') return null;
  const link = card.find('a.js-listing-item-link').first();
  const href = link.attr('href') ?? card.find('a[href*="--id"]').first().attr('href');
  const priceEl = card.find('.wt-listing-item-price').first();
  const shipping = priceEl.nextAll('p.text-muted').first();
  const badge = card.find('.wt-listing-item-image-badge').first();
  return {
    id: listingIdFromHref(href),
    url: href ? absolute(href, base) : null,
    badge: orNull(text(badge.length > 0 ? badge : card.find('.listing-item-image-badge-wrapper').first())),
    price: parsePriceText(text(priceEl)),
    title,
    subtitle: orNull(text(card.find('p.text-ellipsis').not('.text-bold').first())),
    images: cardImages($, card, base, carousels),
    location: orNull(text(card.find('.wt-listing-item-location span.text-uppercase').first())),
    shipping: orNull(text(shipping.length > 0 ? shipping : card.find('p.text-muted').first())),
  };
}

/** One ≤2024 card: the `div.p-x-2.p-x-sm-0` text block, inside `a.js-article-item` on full pages. */
function parseLegacyCard($: CheerioAPI, block: Cheerio<Element>, base: string): Listing | null {
  const title = text(block.find('div.text-bold.text-ellipsis').first());
  if (title === '') return null;
  const anchor = block.closest('a.js-article-item');
  const href = anchor.attr('href');
  const priceBox = block.find('span.currency').first().parent();
  const priceText =
    priceBox.length > 0 ? text(priceBox) : text(block.find('div.text-bold').not('.text-ellipsis').first());
  const badge = anchor.find('.article-item-image-badge, .article-image-badge').first();
  return {
    id: anchor.attr('data-article-id') ?? listingIdFromHref(href),
    url: href ? absolute(href, base) : null,
    badge: orNull(text(badge)),
    price: parsePriceText(priceText),
    title,
    subtitle: orNull(text(block.find('div.text-ellipsis.m-b-2').first())),
    images: anchor.length > 0 ? imageUrls($, anchor, base) : [],
    location: orNull(text(block.find('button.js-tooltip span.text-uppercase').first())),
    shipping: orNull(text(block.find('div.text-muted.text-sm').first())),
  };
}

/** "9,140 listings" (2026: `span.text-lg > strong`; 2024: `div.result-page-top strong`), read by string search. */
export function totalResultsOf(html: string): number | null {
  for (const re of [
    /class="text-lg"[^>]*>\s*<strong>([^<]+)<\/strong>/,
    /class="[^"]*\bresult-page-top\b[^"]*"[\s\S]{0,600}?<strong>([^<]+)<\/strong>/,
  ]) {
    const m = html.match(re);
    if (m && /^\s*\d/.test(m[1]!)) return parseLocaleNumber(m[1]!);
  }
  return null;
}

function pagination(html: string): PartResult['pagination'] {
  const at = html.search(/<nav\b[^>]*class="[^"]*\bpagination\b/);
  const nextBox = /class="next-item-container"[^>]*>\s*<a\b[^>]*href=/.test(html);
  const legacyNext = /class="[^"]*\bpaging-next\b/.test(html);
  if (at === -1) return nextBox || legacyNext ? { current: NaN, pages: [], hasNext: true } : null;
  const end = html.indexOf('</nav>', at);
  const $ = load(html.slice(at, end === -1 ? undefined : end + 6));
  const nav = $('nav').first();
  // Page links are recognised by their number, not their aria-label, which is localised per domain.
  const pages = new Set<number>();
  nav.find('a').each((_, a) => {
    const t = text($(a));
    if (/^\d+$/.test(t)) pages.add(Number(t));
  });
  const active = nav.find('[aria-current="page"]').first();
  // An unreadable marker (cut off, renamed) is an unknown page (NaN), never page 0 (`Number('')`).
  const currentText = text(active.length > 0 ? active : nav.find('.active').first());
  const current = /^\d+$/.test(currentText) ? Number(currentText) : NaN;
  // Every card carousel has its own i-forward button: "next" is looked for only in the pagination and its container.
  const hasNext = nextBox || nav.find('a').filter((_, a) => $(a).find('i.i-forward').length > 0).length > 0;
  pages.delete(current);
  return { current, pages: [...pages].sort((a, b) => a - b), hasNext };
}

/**
 * Parses one page part. The 2026 page is mostly markup we do not need (menus, filter bar, SEO links, and an image
 * carousel of ~5 KB per card), so only the card region goes through the DOM, with each carousel replaced by the
 * image URLs read from its tags: a 665 KB page then costs a fraction of a whole-document parse.
 * @example parseSearchPart(html, 'https://www.chrono24.com/rolex/submariner--mod1.htm').listings.length
 */
export function parseSearchPart(html: string, base: string): PartResult {
  const listings: Listing[] = [];
  let skipped = 0;
  const region = cardRegion(html);
  if (region !== null) {
    const { markup, carousels } = stripCarousels(region);
    const $ = load(markup);
    $('div.js-listing-item-container').each((_, el) => {
      const card = parseModernCard($, $(el), base, carousels);
      if (card) listings.push(card);
      else skipped++;
    });
  } else if (html.includes('p-x-2 p-x-sm-0')) {
    const $ = load(html);
    $('div.p-x-2.p-x-sm-0').each((_, el) => {
      const card = parseLegacyCard($, $(el), base);
      if (card) listings.push(card);
    });
  }
  const total = totalResultsOf(html);
  return {
    listings,
    skipped,
    total,
    pagination: pagination(html),
    isResultsPage:
      /id="wt-watches"|\bjs-listing-item-list\b/.test(html) ||
      total !== null ||
      /"action":"c24\.marketplace\.search\./.test(html),
  };
}

/** Start of the tag whose attributes contain position `at`, when that tag is a `<div`. */
function divTagStart(html: string, at: number): number {
  const lt = html.lastIndexOf('<', at);
  return lt !== -1 && html.startsWith('<div', lt) && html.indexOf('>', lt) > at ? lt : -1;
}

/** From the first 2026 card container to the end of the last card (the next-page box or pagination after it). */
export function cardRegion(html: string): string | null {
  const starts: number[] = [];
  for (
    let at = html.indexOf('js-listing-item-container');
    at !== -1;
    at = html.indexOf('js-listing-item-container', at + 1)
  ) {
    const lt = divTagStart(html, at);
    if (lt !== -1) starts.push(lt);
  }
  if (starts.length === 0) return null;
  const last = starts[starts.length - 1]!;
  const ends = [
    'class="next-item-container"',
    'page-size-switcher',
    '<nav class="pagination"',
    'class="wt-s3-link-list',
  ]
    .map((marker) => html.indexOf(marker, last))
    .filter((i) => i !== -1);
  return html.slice(starts[0], ends.length > 0 ? Math.min(...ends) : undefined);
}

const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', '#39': "'" };
const decodeAttr = (v: string): string => v.replace(/&(amp|quot|apos|lt|gt|#39);/g, (_, e: string) => ENTITIES[e]!);

/** Image URL from an img's attributes: the lazy size template at its large size, else a real `src`. */
function imageFromAttributes(attr: (name: string) => string | undefined): string | null {
  const master = attr('data-lazy-sweet-spot-master-src');
  // `…-Square_SIZE_.jpg` is a size template; `ExtraLarge` is the large image the page's own JSON-LD uses.
  if (master)
    return master.includes('Square_SIZE_')
      ? master.replace('Square_SIZE_', 'ExtraLarge')
      : master.replace('_SIZE_', '480');
  const src = attr('data-src') ?? attr('src');
  return src && !src.startsWith('data:') ? src : null;
}

/**
 * Image URL of one raw `<img …>` tag (attribute values decoded).
 * @example imageFromTag('<img src="data:…" data-lazy-sweet-spot-master-src="https://img.chrono24.com/images/uhren/1-a-Square_SIZE_.jpg">') // …/1-a-ExtraLarge.jpg
 */
export function imageFromTag(tag: string): string | null {
  return imageFromAttributes((name) => {
    const v = tag.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1];
    return v === undefined ? undefined : decodeAttr(v);
  });
}

/** Replaces each `<c24-carousel>` by an empty one pointing at its image list, read from the img tags. */
function stripCarousels(region: string): { markup: string; carousels: string[][] } {
  const carousels: string[][] = [];
  let out = '';
  let from = 0;
  for (let at = region.indexOf('<c24-carousel'); at !== -1; at = region.indexOf('<c24-carousel', from)) {
    const close = region.indexOf('</c24-carousel>', at);
    if (close === -1) break;
    const images: string[] = [];
    for (const tag of region.slice(at, close).match(/<img\b[^>]*>/g) ?? []) {
      const url = imageFromTag(tag);
      if (url && !images.includes(url)) images.push(url);
    }
    out += `${region.slice(from, at)}<c24-carousel data-ml-images="${carousels.length}"></c24-carousel>`;
    carousels.push(images);
    from = close + '</c24-carousel>'.length;
  }
  // Whitespace between tags would become thousands of text nodes; text inside elements is untouched.
  return { markup: (out + region.slice(from)).replace(/>\s+</g, '><'), carousels };
}

function median(sorted: number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Spec price_stats from the page's priced listings (Chrono24 states none): nulls when nothing is priced. */
export function priceStats(listings: Listing[]): SearchResult['stats']['price_stats'] {
  const prices = listings
    .map((l) => l.price.amount)
    .filter((a): a is number => a !== null)
    .sort((a, b) => a - b);
  if (prices.length === 0) return { lowest_price: null, median_price: null, average_price: null, highest_price: null };
  const sum = prices.reduce((s, p) => s + p, 0);
  return {
    lowest_price: prices[0]!,
    median_price: median(prices),
    average_price: Math.round((sum / prices.length) * 100) / 100,
    highest_price: prices[prices.length - 1]!,
  };
}

/**
 * A Chrono24 results page (all its parts) → the spec §2.5 record. `requestedPage` is the page asked for: a page
 * that states another page number means Chrono24 ignored the request, which is never passed off as the asked page.
 * @example parseSearchPage({ url: res.url, pages: [res.body] }, 1, 60)
 */
export function parseSearchPage(bodies: SearchBodies, requestedPage = 1, pageSize?: number): SearchResult {
  const parts = bodies.pages.map((html) => parseSearchPart(html, bodies.url));
  const listings = parts.flatMap((p) => p.listings);
  // A results page never holds more listings than the page size asked for: more is not the page we know.
  const over = pageSize === undefined ? undefined : parts.find((p) => p.listings.length > pageSize);
  if (over) {
    throw upstreamChanged(
      'watchmarket',
      `a results page holds ${over.listings.length} listings for page_size=${pageSize}`,
    );
  }
  const skipped = parts.reduce((s, p) => s + p.skipped, 0);
  // A truncated last card per excerpt is expected; more than that is markup we no longer read.
  if (skipped > parts.length || (skipped > 0 && listings.length === 0)) {
    throw upstreamChanged('watchmarket', `${skipped} result cards without a title: the card markup changed`);
  }
  const isResultsPage = parts.some((p) => p.isResultsPage) || listings.length > 0;
  if (!isResultsPage) {
    throw upstreamChanged(
      'watchmarket',
      'the page is not a search-results page (no result list, count or cards)',
      bodies.pages[0]?.slice(0, 500),
    );
  }
  const stated = parts.find((p) => p.total !== null)?.total ?? null;
  const nav = parts.find((p) => p.pagination !== null)?.pagination ?? null;
  const current = nav && Number.isFinite(nav.current) ? nav.current : requestedPage;
  if (nav && Number.isFinite(nav.current) && nav.current !== requestedPage) {
    const last = Math.max(nav.current, ...nav.pages);
    if (requestedPage > last) throw invalidParam('page', `is beyond the last page (${last})`);
    throw upstreamChanged('watchmarket', `asked for page ${requestedPage}, Chrono24 answered page ${nav.current}`);
  }
  const hasNext = nav?.hasNext ?? false;
  return {
    url: bodies.url,
    stats: {
      price_stats: priceStats(listings),
      // Only the count the page states: a page without one (cut off, or its markup changed) is not "0 listings".
      total_results: stated,
    },
    results: listings,
    pagination: {
      current,
      next: hasNext ? current + 1 : null,
      other_pages: nav ? nav.pages.filter((p) => p !== current) : [],
      has_next_page: hasNext,
    },
  };
}

/**
 * The page a results page says it shows and the highest page it links to, or null when it has no pagination.
 * @example statedPage(html) // { current: 1, last: 153 }
 */
export function statedPage(html: string): { current: number; last: number } | null {
  const nav = pagination(html);
  return nav && Number.isFinite(nav.current)
    ? { current: nav.current, last: Math.max(nav.current, ...nav.pages) }
    : null;
}

/**
 * Page `page` of a canonical brand/model page that shows page `current`: Chrono24 pages those by path
 * (`/rolex/submariner--mod1-2.htm`, `/rolex/index-2.htm`, notes §2), so a `showpage` lost in the canonical redirect
 * is put back this way. Null for the generic search page, which pages by `showpage`.
 * @example pagedCanonicalUrl('https://www.chrono24.com/rolex/submariner--mod1.htm?query=x', 1, 3) // …/submariner--mod1-3.htm?query=x
 */
export function pagedCanonicalUrl(url: string, current: number, page: number): string | null {
  const u = new URL(url);
  if (u.pathname.startsWith('/search/') || !u.pathname.endsWith('.htm')) return null;
  // Only a suffix equal to the page shown is a page number (`/rolex/ref-5508.htm` is reference 5508, not a page).
  const base =
    current > 1 && u.pathname.endsWith(`-${current}.htm`)
      ? u.pathname.slice(0, -`-${current}.htm`.length) + '.htm'
      : u.pathname;
  u.pathname = page === 1 ? base : base.replace(/\.htm$/, `-${page}.htm`);
  u.searchParams.delete('showpage');
  return u.href;
}

/** The canonical URL a saved page names (for `marketlens parse`, which has no fetch URL). */
export function canonicalUrlOf(pages: string[]): string | null {
  for (const html of pages) {
    const m = html.match(/<link[^>]+rel="canonical"[^>]+href="([^"]+)"/);
    if (m) return m[1]!;
  }
  return null;
}
