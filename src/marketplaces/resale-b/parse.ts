/** Pure parsers for resale-b (GOAT) upstream bodies. */
import { MarketlensError, upstreamChanged } from '../../errors.js';
import { extractNextData } from '../../util/next-data.js';
import { snakeKeysDeep } from '../../util/snake-case.js';
import {
  PRODUCT_FIELDS,
  PRODUCT_KEY_RENAMES,
  priceEntrySchema,
  type PriceEntry,
  type ResaleBProduct,
} from './schema.js';

const MONEY_KEYS = ['lowestPriceCents', 'lastSoldPriceCents', 'instantShipLowestPriceCents'] as const;

/**
 * `buy_bar_data` JSON → spec §2.3 entries. The upstream array already is the record: entries keep GOAT's camelCase
 * keys and omit `amount` exactly where GOAT omits it. Keys beyond the spec are dropped so the record stays documented.
 */
export function parseBuyBarData(body: string): PriceEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    throw upstreamChanged('resale-b', 'buy_bar_data is not JSON', body);
  }
  if (!Array.isArray(data)) throw upstreamChanged('resale-b', 'buy_bar_data is not an array', body);
  return data.map((raw, i) => {
    const parsed = priceEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw upstreamChanged(
        'resale-b',
        `buy_bar_data entry ${i}: ${issue?.path.join('.')} ${issue?.message}`,
        JSON.stringify(raw),
      );
    }
    const entry = parsed.data;
    // Zod keeps key order of the schema; rebuild the money objects so an absent amount stays absent (never undefined).
    for (const key of MONEY_KEYS) {
      const m = entry[key];
      entry[key] = {
        currency: m.currency,
        ...(m.amount === undefined ? {} : { amount: m.amount }),
        ...(m.amountUsdCents === undefined ? {} : { amountUsdCents: m.amountUsdCents }),
      };
    }
    return entry;
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Spec §2.4 product ← GOAT productTemplate
// ---------------------------------------------------------------------------------------------------------------

/** Keys kept inside nested objects: the spec's, nothing more (GOAT may add keys; the record stays documented). */
const NESTED_KEYS: Partial<Record<keyof ResaleBProduct, readonly string[]>> = {
  size_options: ['value', 'presentation'],
  featured_in: ['name', 'slug', 'clickthrough_destination'],
  robot_assets: ['url'],
  product_template_external_pictures: [
    'order',
    'aspect',
    'source_url',
    'dominant_color',
    'attribution_url',
    'grid_picture_url',
    'main_picture_url',
  ],
};
const LOCALIZED_MONEY_KEYS = ['amount', 'currency', 'amount_usd_cents'] as const;

/**
 * A product body → spec §2.4 record. Accepts every form GOAT serves the template in: the product page (HTML with
 * `__NEXT_DATA__` → `props.pageProps.productTemplate`), the `_next/data` JSON (`pageProps.productTemplate`), the
 * `__NEXT_DATA__` JSON itself, or a bare productTemplate object (web-api `product_templates/{slug}`, scrapers' exports).
 * @example parseProductBody(html).slug // 'air-jordan-3-retro-white-cement-reimagined-dn3707-100'
 */
export function parseProductBody(body: string): ResaleBProduct {
  return productTemplateToRecord(productTemplateFromBody(body));
}

/**
 * Finds the productTemplate in a body. Throws not_found for Next.js not-found pages, upstream_changed when the body
 * has no template where one belongs.
 */
export function productTemplateFromBody(body: string): Record<string, unknown> {
  if (/^\s*</.test(body)) {
    let nextData: unknown;
    try {
      nextData = extractNextData(body);
    } catch {
      throw upstreamChanged('resale-b', 'product page __NEXT_DATA__ is not JSON', body);
    }
    if (nextData === undefined) throw upstreamChanged('resale-b', 'product page has no __NEXT_DATA__', body);
    return templateFromNextData(nextData, body);
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw upstreamChanged('resale-b', 'product body is neither an HTML page nor JSON', body);
  }
  return templateFromNextData(json, body);
}

/** `__NEXT_DATA__` (`props.pageProps`), `_next/data` (`pageProps`) or a bare template → the template. */
function templateFromNextData(data: unknown, body: string): Record<string, unknown> {
  if (!isObject(data)) throw upstreamChanged('resale-b', 'product JSON is not an object', body);
  if (isBareTemplate(data)) return data;
  const pageProps = isObject(data.props) ? data.props.pageProps : data.pageProps;
  if (isObject(pageProps) && isObject(pageProps.productTemplate)) return pageProps.productTemplate;
  if (isNotFoundNextData(data))
    throw new MarketlensError('not_found', 'resale-b has no such product (GOAT not-found page)');
  throw upstreamChanged('resale-b', 'product page has no props.pageProps.productTemplate', body);
}

/**
 * True for a Next.js not-found answer: the 404 page (`page: "/404"`), the error page with status 404, or the
 * `_next/data` form `{"notFound": true}`. Used by the fetcher to decide whether to try the other section.
 * @example isNotFoundPage(html) // false for a product page
 */
export function isNotFoundPage(body: string): boolean {
  let data: unknown;
  try {
    data = /^\s*</.test(body) ? extractNextData(body) : JSON.parse(body);
  } catch {
    return false;
  }
  return isObject(data) && isNotFoundNextData(data);
}

function isNotFoundNextData(data: Record<string, unknown>): boolean {
  if (data.notFound === true || data.page === '/404') return true;
  const pageProps = isObject(data.props) ? data.props.pageProps : data.pageProps;
  return isObject(pageProps) && pageProps.statusCode === 404;
}

/** A productTemplate itself: GOAT's numeric id, its slug and the product's name at the top level. */
function isBareTemplate(o: Record<string, unknown>): boolean {
  return typeof o.id === 'number' && typeof o.slug === 'string' && typeof o.name === 'string';
}

/**
 * The snake_case rule of the notes (naive converter + two renames), then exactly the spec's field set: a field GOAT
 * does not send is null, extra upstream keys (`activity`, 2023's `careInstructions` …) are dropped, and
 * `release_date_name: ""` (GOAT's "no name") is null as the spec documents it.
 */
export function productTemplateToRecord(template: Record<string, unknown>): ResaleBProduct {
  const snake = snakeKeysDeep(template, PRODUCT_KEY_RENAMES) as Record<string, unknown>;
  const record: Record<string, unknown> = {};
  for (const field of PRODUCT_FIELDS) {
    const value = snake[field] ?? null;
    const keys = NESTED_KEYS[field];
    record[field] = keys && Array.isArray(value) ? value.map((item) => pickKeys(item, keys)) : value;
  }
  record.localized_special_display_price_cents = pickKeys(
    record.localized_special_display_price_cents,
    LOCALIZED_MONEY_KEYS,
  );
  if (record.release_date_name === '') record.release_date_name = null;
  return record as ResaleBProduct;
}

/** An object reduced to `keys` (absent ones null); anything else unchanged, for the record check to judge. */
function pickKeys(value: unknown, keys: readonly string[]): unknown {
  if (!isObject(value)) return value;
  return Object.fromEntries(keys.map((k) => [k, value[k] ?? null]));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
