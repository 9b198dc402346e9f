/**
 * GOAT search answers → hits. Pure. Two sources (../shared/upstreams/goat.md §2 F–G, §3.3):
 * - the consumer search `{ data: { productsList: [...], totalResults } }` (or a bare `productsList` array, as scrapers
 *   save it);
 * - Constructor.io `{ response: { results: [{ value, data }] } }` (or a bare array of `data` objects).
 * A body that is neither is `upstream_changed`; a real "no results" answer is an empty list.
 */
import type { z } from 'zod';
import { upstreamChanged } from '../../errors.js';
import { GOAT_ORIGIN } from './hosts.js';
import {
  constructorDataSchema,
  consumerProductSchema,
  type ConstructorData,
  type ConsumerProduct,
  type GoatSearchHit,
} from './search-schema.js';

export type GoatSearchSource = 'consumer' | 'constructor';

/** What the search operation fetched: the body and which source served it. */
export interface GoatSearchBodies {
  source: GoatSearchSource;
  body: string;
}

/**
 * Any supported search body → hits in GOAT's order, one per template id, at most `limit`.
 * @example parseGoatSearch({ source: 'consumer', body: '{"data":{"productsList":[]}}' }, 12) // []
 */
export function parseGoatSearch(bodies: GoatSearchBodies, limit = Number.POSITIVE_INFINITY): GoatSearchHit[] {
  const json = parseJson(bodies.body, bodies.source);
  const hits = bodies.source === 'consumer' ? consumerHits(json) : constructorHits(json);
  return unique(hits).slice(0, limit);
}

/**
 * The source a saved body comes from (for `marketlens parse`), or null when it looks like neither.
 * @example searchSourceOf('{"response":{"results":[]}}') // 'constructor'
 */
export function searchSourceOf(body: string): GoatSearchSource | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  if (Array.isArray(json)) {
    const first: unknown = json[0];
    if (!isRecord(first)) return null;
    if ('variantsList' in first || 'title' in first) return 'consumer';
    if ('product_type' in first || 'lowest_price_cents' in first) return 'constructor';
    return null;
  }
  if (!isRecord(json)) return null;
  if (isRecord(json.data)) return 'consumer';
  if (isRecord(json.response)) return 'constructor';
  return null;
}

/**
 * The storefront page of a hit. GOAT serves shoes under `/sneakers/` and everything else under `/apparel/`
 * (product.ts); a hit that names no category is taken as a shoe, as most of the catalogue is.
 */
export function goatProductUrl(slug: string, category: string | null | undefined, productType?: string | null): string {
  const shoe = category == null || category === '' || category === 'shoes' || productType === 'sneakers';
  return `${GOAT_ORIGIN}/${shoe ? 'sneakers' : 'apparel'}/${encodeURIComponent(slug)}`;
}

function consumerHits(json: unknown): GoatSearchHit[] {
  let list: unknown;
  if (Array.isArray(json)) list = json;
  else if (isRecord(json) && isRecord(json.data)) {
    list = json.data.productsList;
    // An empty protobuf list may be left out; a count of 0 says it is a real "no results".
    if (list === undefined && json.data.totalResults === 0) list = [];
  }
  if (!Array.isArray(list)) throw upstreamChanged('resale-b', 'consumer search answer has no data.productsList');
  return list.map((raw) => consumerHit(check(consumerProductSchema, raw, 'consumer search product')));
}

function consumerHit(p: ConsumerProduct): GoatSearchHit {
  return {
    id: p.id,
    slug: p.slug,
    url: goatProductUrl(p.slug, p.category, p.productType),
    name: text(p.title),
    sku: null,
    brand: text(p.brandName),
    image: text(p.pictureUrl),
    release_date: dateOfSeconds(p.releaseDate?.seconds),
    ...lowestOfVariants(p.variantsList ?? []),
  };
}

/** The lowest of the per-variant lowest prices (each size × condition GOAT lists for the product). */
function lowestOfVariants(
  variants: NonNullable<ConsumerProduct['variantsList']>,
): Pick<GoatSearchHit, 'lowest_price' | 'currency'> {
  let best: { cents: number; currency: string } | null = null;
  for (const v of variants) {
    const money = v.localizedLowestPriceCents;
    const amount = money?.amountCents;
    const currency = money?.currency;
    // 0 is GOAT's "no price" (it sends 0 retail prices too), never a price.
    if (typeof amount !== 'number' || amount <= 0 || typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
      continue;
    // One search answers in one currency; a variant in another would not compare, so the first currency rules.
    if (best && currency !== best.currency) continue;
    if (!best || amount < best.cents) best = { cents: amount, currency };
  }
  return best ? { lowest_price: best.cents / 100, currency: best.currency } : { lowest_price: null, currency: null };
}

function constructorHits(json: unknown): GoatSearchHit[] {
  if (Array.isArray(json)) {
    return json.map((raw) => constructorHit(check(constructorDataSchema, raw, 'Constructor hit data'), null));
  }
  const results = isRecord(json) && isRecord(json.response) ? json.response.results : undefined;
  if (!Array.isArray(results)) throw upstreamChanged('resale-b', 'Constructor search answer has no response.results');
  return results.map((r) => {
    if (!isRecord(r)) throw upstreamChanged('resale-b', 'Constructor search result is not an object');
    const data = check(constructorDataSchema, r.data, 'Constructor hit data');
    return constructorHit(data, typeof r.value === 'string' ? r.value : null);
  });
}

function constructorHit(d: ConstructorData, name: string | null): GoatSearchHit {
  const cents = d.lowest_price_cents;
  const priced = typeof cents === 'number' && cents > 0;
  return {
    id: d.id,
    slug: d.slug,
    url: goatProductUrl(d.slug, d.category, d.product_type),
    name: text(name),
    sku: text(d.sku),
    brand: null,
    image: text(d.image_url),
    release_date: dateOfNumber(d.release_date) ?? dateOfText(d.release_date_time),
    // The unsuffixed `lowest_price_cents` is US cents: the other currencies carry a suffix (`_gbp`, `_eur` …).
    lowest_price: priced ? cents / 100 : null,
    currency: priced ? 'USD' : null,
  };
}

function check<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw upstreamChanged('resale-b', `${what}: ${issue?.path.join('.')} ${issue?.message}`, JSON.stringify(raw));
}

function parseJson(body: string, source: GoatSearchSource): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw upstreamChanged('resale-b', `${source} search answer is not JSON`, body);
  }
}

/** GOAT repeats a template across pages and sometimes within one (the 2025-08 capture has one twice). */
function unique(hits: GoatSearchHit[]): GoatSearchHit[] {
  const seen = new Set<string>();
  return hits.filter((h) => (seen.has(h.id) ? false : (seen.add(h.id), true)));
}

/** `{ seconds: 1741478399 }` → `2025-03-08` (GOAT stores release days as their last second, UTC). */
function dateOfSeconds(seconds: number | string | undefined): string | null {
  const n = Number(seconds);
  if (seconds === undefined || !Number.isFinite(n) || n <= 0) return null;
  return new Date(n * 1000).toISOString().slice(0, 10);
}

/** `20230627` → `2023-06-27`. */
function dateOfNumber(n: number | null | undefined): string | null {
  if (n == null) return null;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(String(n));
  return m ? validDate(`${m[1]}-${m[2]}-${m[3]}`) : null;
}

/** `2022-07-28 23:59:59` → `2022-07-28`. */
function dateOfText(s: string | null | undefined): string | null {
  const m = typeof s === 'string' ? /^(\d{4}-\d{2}-\d{2})/.exec(s) : null;
  return m ? validDate(m[1]!) : null;
}

function validDate(iso: string): string | null {
  const d = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso ? null : iso;
}

function text(v: string | null | undefined): string | null {
  return typeof v === 'string' && v.trim() !== '' ? v : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
