/**
 * Spec §4.5 parameters → Chrono24's search URL. `SEARCH_PARAM_MAP` is the one mapping table: the zod parameter
 * schema, the URL builder and the OpenAPI description are all generated from it, so they cannot drift apart.
 * Sources per row: ../shared/upstreams/chrono24.md §2.
 */
import { z } from 'zod';
import { invalidParam } from '../../errors.js';
import { CHRONO24_DOMAINS } from '../catalog.js';
import { FINDER_CATALOG } from './finder-catalog-data.js';
import { LabelIndex, describeValues, splitLabelList } from './label-match.js';

/** How the values of a comma-list filter are checked before they go upstream. */
type FilterKind =
  /** Codes of a closed catalog group: anything else is a 400 (string codes match case-insensitively). */
  | { kind: 'codes' }
  /** Open numeric ids (brands, models, merchants): digits only; the catalog lists only the ones we know. */
  | { kind: 'ids' }
  /** Country codes: two letters; `GB` is sent as Chrono24's `UK`. */
  | { kind: 'country' }
  /** Four-digit years, each sent as its own `year=` parameter. */
  | { kind: 'years' }
  /** Whole millimetres, e.g. 40. */
  | { kind: 'millimetres' }
  /** Free text, sent as given. */
  | { kind: 'text' }
  /** No known Chrono24 URL parameter: rejected with `why`, never silently ignored. */
  | { kind: 'unsupported'; why: string };

export interface FilterMapping {
  /** Spec §4.5 parameter name. */
  param: string;
  /** Chrono24 query parameter (repeated once per value), or null when none is known. */
  upstream: string | null;
  check: FilterKind;
  /** Where the mapping comes from (notes §2): F pills of the 2026 capture, I public code tables, M chrono24-mcp. */
  source: string;
}

/** Spec §4.5 filter parameters, in the spec's order. */
export const SEARCH_PARAM_MAP: readonly FilterMapping[] = [
  { param: 'manufacturer', upstream: 'manufacturerIds', check: { kind: 'ids' }, source: 'F, M' },
  { param: 'model', upstream: 'models', check: { kind: 'ids' }, source: 'F' },
  { param: 'reference_number', upstream: 'referenceNumber', check: { kind: 'text' }, source: 'M (unverified)' },
  { param: 'case_material', upstream: 'caseMaterials', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'case_diameter', upstream: 'caseDiameter', check: { kind: 'millimetres' }, source: 'F' },
  {
    param: 'thickness',
    upstream: null,
    check: { kind: 'unsupported', why: 'Chrono24 has no known URL parameter for case thickness' },
    source: '—',
  },
  {
    param: 'lug_width',
    upstream: null,
    check: { kind: 'unsupported', why: 'Chrono24 has no known URL parameter for lug width' },
    source: '—',
  },
  { param: 'dial_color', upstream: 'dialColor', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'dial_numbers', upstream: 'dialNumbers', check: { kind: 'codes' }, source: 'I' },
  { param: 'glass', upstream: 'glass', check: { kind: 'codes' }, source: 'I' },
  { param: 'bracelet_material', upstream: 'braceletMaterial', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'bracelet_color', upstream: 'braceletColor', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'clasp', upstream: 'clasp', check: { kind: 'codes' }, source: 'I' },
  { param: 'clasp_material', upstream: 'claspMaterial', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'movement_type', upstream: 'movementTypes', check: { kind: 'codes' }, source: 'I' },
  { param: 'waterproof', upstream: 'waterproof', check: { kind: 'codes' }, source: 'I' },
  { param: 'bezel_material', upstream: 'bezelMaterial', check: { kind: 'codes' }, source: 'I' },
  { param: 'functions', upstream: 'functions', check: { kind: 'codes' }, source: 'I' },
  { param: 'watch_category', upstream: 'watchCategories', check: { kind: 'codes' }, source: 'F, I' },
  {
    param: 'watch_type',
    upstream: null,
    check: {
      kind: 'unsupported',
      why: 'Chrono24 has no known URL parameter for watch_type; use `styles` (e.g. 1804 diving watches) or `watch_category`',
    },
    source: '—',
  },
  { param: 'gender', upstream: 'gender', check: { kind: 'codes' }, source: 'I' },
  { param: 'styles', upstream: 'styles', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'condition', upstream: 'condition', check: { kind: 'codes' }, source: 'I' },
  { param: 'used_or_new', upstream: 'usedOrNew', check: { kind: 'codes' }, source: 'F, I' },
  {
    param: 'common_certified',
    upstream: 'certified',
    check: { kind: 'codes' },
    source: 'F (the pill sends certified=true)',
  },
  { param: 'seller_type', upstream: 'sellerType', check: { kind: 'codes' }, source: 'I' },
  {
    param: 'merchant_id',
    upstream: 'merchantId',
    check: { kind: 'ids' },
    source: 'metaData vueFilter.hidden.merchantId',
  },
  {
    param: 'dealer_performance_attributes',
    upstream: 'dealerPerformanceAttributes',
    check: { kind: 'codes' },
    source: 'I',
  },
  { param: 'country', upstream: 'countryIds', check: { kind: 'country' }, source: 'F, I' },
  { param: 'listing_type', upstream: 'listingType', check: { kind: 'codes' }, source: 'I' },
  { param: 'checkout_available', upstream: 'checkoutAvailable', check: { kind: 'codes' }, source: 'I' },
  { param: 'stock_info', upstream: 'stockInfo', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'year', upstream: 'year', check: { kind: 'years' }, source: 'F, I' },
  { param: 'specials', upstream: 'specials', check: { kind: 'codes' }, source: 'F, I' },
  { param: 'other_attributes', upstream: 'otherAttributes', check: { kind: 'codes' }, source: 'F, I' },
];

/** Spec sort_by → Chrono24 `sortorder`; null = omitted (relevance is the site's default order). */
export const SORT_ORDERS = {
  relevance: null,
  price_asc: '1',
  price_desc: '11',
  age_desc: '5',
} as const;
/** Why `age_asc` is refused (CONTRACT §7: never another order silently). */
export const AGE_ASC_REFUSAL =
  'Chrono24 offers no oldest-first order (its sort orders are relevance, price low→high, price high→low, newest and ' +
  'popularity), so age_asc cannot be served; use age_desc for newest first';

export const PAGE_SIZES = ['30', '60', '120'] as const;

/** Chrono24's country sites (`domain` values); the list lives with the SSRF allowlist it also defines. */
export const DOMAINS = CHRONO24_DOMAINS;

/** Currencies Chrono24 formats (`window.metaData.currencyFormats` of the 2026 capture). */
export const CURRENCIES = [
  'AED',
  'AUD',
  'BHD',
  'BRL',
  'CAD',
  'CHF',
  'CLP',
  'CNY',
  'CZK',
  'DKK',
  'EUR',
  'GBP',
  'HKD',
  'HRK',
  'HUF',
  'IDR',
  'INR',
  'JPY',
  'KRW',
  'KWD',
  'MXN',
  'MYR',
  'NOK',
  'NZD',
  'OMR',
  'PHP',
  'PLN',
  'QAR',
  'RON',
  'RUB',
  'SEK',
  'SGD',
  'THB',
  'TRY',
  'TWD',
  'USD',
  'ZAR',
] as const;

/** One label index per catalog group, keyed by Chrono24 parameter (built once: 545 brands, ~160 countries). */
const INDEX_BY_UPSTREAM = new Map<string, LabelIndex>(FINDER_CATALOG.map((g) => [g.id, new LabelIndex(g.values)]));

/** What other parameters of the same request tell a filter: the brands chosen, for model names. */
export interface FilterContext {
  /** Manufacturer ids of the request: a model name resolves among these brands' models. */
  manufacturers?: ReadonlySet<string>;
  /** Field-level check of `model` before the brand is known: a name several brands share is not an error yet. */
  allowAmbiguous?: boolean;
}

/** Splits a spec comma list; empty items are dropped. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Checks one filter's comma list and returns the codes to send upstream, or a message saying what is wrong. Each value
 * may be a code or a label of the catalog (case- and accent-insensitive exact match): the upstream URL only ever gets
 * codes.
 * @example normaliseFilterValues(mappingFor('dial_color')!, '702, blue') // → { values: ['702', '710'] }
 * @example normaliseFilterValues(mappingFor('manufacturer')!, 'Rolex,A. Lange & Sohne') // → { values: ['221', '1'] }
 */
export function normaliseFilterValues(
  m: FilterMapping,
  raw: string,
  ctx: FilterContext = {},
): { values: string[] } | { error: string } {
  const check = m.check;
  if (check.kind === 'unsupported') return { error: check.why };
  const index = m.upstream ? INDEX_BY_UPSTREAM.get(m.upstream) : undefined;
  const items = index ? splitLabelList(raw, index) : splitList(raw);
  if (items.length === 0) return { error: 'must list at least one value' };
  switch (check.kind) {
    case 'codes':
      return resolveAll(
        m,
        items,
        index,
        ctx,
        (item) => index?.values.find((v) => v.code.toLowerCase() === item.toLowerCase())?.code,
      );
    case 'ids':
      // Open id spaces: any numeric id goes through (the catalog lists the ids we know, not all of Chrono24's).
      if (!index)
        return items.every((i) => /^\d{1,12}$/.test(i))
          ? { values: items }
          : { error: 'must be numeric Chrono24 ids, e.g. 221' };
      return resolveAll(m, items, index, ctx, (item) => (/^\d{1,12}$/.test(item) ? item : undefined));
    case 'country':
      // Chrono24 spells the United Kingdom `UK` (notes §2), the ISO code is GB; a country name resolves to its code.
      return resolveAll(m, items, index, ctx, (item) =>
        /^[A-Za-z]{2}$/.test(item) ? (item.toUpperCase() === 'GB' ? 'UK' : item.toUpperCase()) : undefined,
      );
    case 'years':
      return items.every((i) => /^(1[6-9]|20)\d\d$/.test(i))
        ? { values: items }
        : { error: 'must be four-digit years, e.g. 2020,2021' };
    case 'millimetres':
      return items.every((i) => /^\d{1,3}$/.test(i))
        ? { values: items }
        : { error: 'must be whole millimetres, e.g. 40' };
    case 'text':
      return { values: items };
  }
}

/** Each item as a code (`asCode`) or else as a catalog label; every miss is reported with the nearest labels. */
function resolveAll(
  m: FilterMapping,
  items: string[],
  index: LabelIndex | undefined,
  ctx: FilterContext,
  asCode: (item: string) => string | undefined,
): { values: string[] } | { error: string } {
  const out: string[] = [];
  const errors: string[] = [];
  const within = m.param === 'model' ? ctx.manufacturers : undefined;
  for (const item of items) {
    const code = asCode(item);
    if (code !== undefined) {
      out.push(code);
      continue;
    }
    const hit = index?.match(item, within) ?? { kind: 'unknown' as const, closest: [] };
    if (hit.kind === 'found') out.push(hit.code);
    else if (hit.kind === 'ambiguous') {
      if (ctx.allowAmbiguous) out.push(hit.candidates[0]!.code);
      else errors.push(`"${item}" names several codes: ${describeValues(hit.candidates)}; send the code`);
    } else {
      const scope = within && within.size > 0 ? ' among the models of the manufacturer given' : '';
      const closest = hit.closest.length > 0 ? `; closest: ${describeValues(hit.closest)}` : '';
      errors.push(`unknown value "${item}"${scope}${closest}`);
    }
  }
  if (errors.length > 0) return { error: `${errors.join('; ')} (codes and labels: finder, ${m.upstream})` };
  return { values: out };
}

export function mappingFor(param: string): FilterMapping | undefined {
  return SEARCH_PARAM_MAP.find((m) => m.param === param);
}

/** Longest accepted filter value (a comma list of ~40 twelve-digit ids, or a long reference text). */
const FILTER_MAX_LENGTH = 500;

function filterField(m: FilterMapping) {
  const desc =
    m.check.kind === 'unsupported'
      ? `Not supported: ${m.check.why}. Any value answers 400.`
      : `Comma-separated; each value is sent as its own \`${m.upstream}=\` parameter.` +
        (m.check.kind === 'codes' || INDEX_BY_UPSTREAM.has(m.upstream ?? '')
          ? ' Codes or labels from the finder (labels match case- and accent-insensitively); an unknown or ambiguous value answers 400 with the closest labels.'
          : '');
  return (
    z
      .string()
      // Every value goes into the Chrono24 URL: an unbounded list or text would make an URL upstream refuses (414/431).
      .max(FILTER_MAX_LENGTH, `must be at most ${FILTER_MAX_LENGTH} characters`)
      .optional()
      .superRefine((v, ctx) => {
        // Over-long values already failed max(): resolving thousands of names would only cost time.
        if (v === undefined || v.length > FILTER_MAX_LENGTH) return;
        // A model name several brands share is settled in buildSearchUrl, which knows the manufacturer.
        const r = normaliseFilterValues(m, v, { allowAmbiguous: m.param === 'model' });
        if ('error' in r) ctx.addIssue({ code: 'custom', message: r.error });
      })
      .describe(desc)
  );
}

const intParam = (min: number, max: number) =>
  z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(min).max(max);

/** How OpenAPI documents a page size: the integers 30, 60, 120. */
const PAGE_SIZE_DOC = { type: 'integer', enum: PAGE_SIZES.map(Number) } as const;

/** The query-string parameters of `watchmarket.search` (all arrive as strings; numbers are coerced). */
export const searchParamsSchema = z
  .object({
    query: z
      .string()
      .trim()
      .max(200)
      .optional()
      .describe('Free text, as typed in the Chrono24 search box (e.g. `Rolex Submariner`)'),
    currency: z
      .string()
      .trim()
      .toUpperCase()
      .pipe(z.enum(CURRENCIES, { error: `must be one of ${CURRENCIES.join(', ')}` }))
      .default('EUR')
      .describe('Currency of the prices (`currencyId`)'),
    language: z
      .string()
      .trim()
      .regex(/^[a-z]{2}[_-][A-Za-z]{2}$/, 'must look like en_US or de_DE')
      .default('en_US')
      .describe(
        'Sent as Accept-Language. Chrono24 picks its language from the domain (com → English, de → German); it has no language URL parameter',
      ),
    domain: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(DOMAINS, { error: `must be one of ${DOMAINS.join(', ')}` }))
      .default('com')
      .describe('Chrono24 country site: `www.chrono24.<domain>`'),
    // No zod default: whether it was given decides how `pageSize` and `limit` combine with it (pageSizeOf).
    page_size: z
      .enum(PAGE_SIZES, { error: 'must be one of 30, 60, 120' })
      // Query-string text to validate, an integer to generated clients (`page_size: 30`).
      .meta(PAGE_SIZE_DOC)
      .optional()
      .describe('Listings per page (`pageSize`): 30, 60 or 120. Default 60, or the smallest that holds `limit`'),
    pageSize: z
      .enum(PAGE_SIZES, { error: 'must be one of 30, 60, 120' })
      .meta(PAGE_SIZE_DOC)
      .optional()
      .describe(
        'Alias of `page_size`, as Retailed clients send it (camelCase); the same answer. Both given: they must agree',
      ),
    limit: intParam(1, 120)
      .optional()
      .describe(
        'At most this many results (1–120): the page is fetched with the smallest page size that holds them ' +
          '(30, 60 or 120; `page` counts pages of that size) and the answer is cut to `limit` listings, `price_stats` ' +
          'computed from those. With `page_size`, it must not exceed it',
      ),
    sort_by: z
      .enum(['relevance', 'price_asc', 'price_desc', 'age_desc', 'age_asc'], {
        error: 'must be one of relevance, price_asc, price_desc, age_desc, age_asc',
      })
      .default('relevance')
      .refine((v) => v !== 'age_asc', AGE_ASC_REFUSAL)
      .describe(
        '`sortorder`: relevance (omitted), price_asc 1, price_desc 11, age_desc 5. age_asc answers 400: Chrono24 has no oldest-first order',
      ),
    max_age_in_days: intParam(0, 3650)
      .default(0)
      .describe('Only listings at most this many days old (`maxAgeInDays`); 0 = no limit'),
    page: intParam(1, 10_000).default(1).describe('Page number (`showpage`)'),
    price_from: intParam(0, 1e9).optional().describe('Minimum price in `currency` (`priceFrom`)'),
    price_to: intParam(0, 1e9).optional().describe('Maximum price in `currency` (`priceTo`)'),
    ...Object.fromEntries(SEARCH_PARAM_MAP.map((m) => [m.param, filterField(m)])),
  })
  .strict();
export type SearchParams = z.output<typeof searchParamsSchema>;
export type PageSize = (typeof PAGE_SIZES)[number];

/**
 * The page size to fetch: `page_size` or its alias `pageSize` (400 naming `pageSize` when they differ), else the
 * smallest that holds `limit` (400 naming `limit` when it exceeds a given page size), else 60.
 * @example pageSizeOf({ limit: 10 }) // '30'
 */
export function pageSizeOf(p: Pick<Partial<SearchParams>, 'page_size' | 'pageSize' | 'limit'>): PageSize {
  if (p.pageSize !== undefined && p.page_size !== undefined && p.pageSize !== p.page_size) {
    throw invalidParam('pageSize', `is an alias of page_size, which is ${p.page_size}; send one of them`);
  }
  const given = p.page_size ?? p.pageSize;
  if (p.limit === undefined) return given ?? '60';
  if (given !== undefined && p.limit > Number(given)) {
    throw invalidParam('limit', `must not exceed the page size (${given})`);
  }
  return given ?? PAGE_SIZES.find((size) => Number(size) >= p.limit!)!;
}

/**
 * The parameters in one spelling: `pageSize` folded into `page_size` (with its default), so that both spellings and
 * the default make one cache entry and one search identity.
 * @example canonicalSearchParams(searchParamsSchema.parse({ pageSize: '30' })).page_size // '30'
 */
export function canonicalSearchParams(p: SearchParams): SearchParams {
  const { pageSize: _alias, ...rest } = p;
  return { ...rest, page_size: pageSizeOf(p) };
}

/** The host of a domain code. */
export function hostFor(domain: string): string {
  return `www.chrono24.${domain}`;
}

/**
 * Spec parameters → the Chrono24 search URL (real host; the client applies origin overrides).
 * Comma lists become repeated parameters in the order given.
 * @example buildSearchUrl(searchParamsSchema.parse({ query: 'Rolex', dial_color: '702,710' }))
 *   // https://www.chrono24.com/search/index.htm?dosearch=true&query=Rolex&currencyId=EUR&pageSize=60&showpage=1&dialColor=702&dialColor=710
 */
export function buildSearchUrl(p: SearchParams): string {
  if ((p.sort_by as string) === 'age_asc') throw invalidParam('sort_by', AGE_ASC_REFUSAL);
  if (p.price_from !== undefined && p.price_to !== undefined && p.price_from > p.price_to) {
    throw invalidParam('price_from', `must not exceed price_to (${p.price_to})`);
  }
  const q = new URLSearchParams();
  q.set('dosearch', 'true');
  if (p.query) q.set('query', p.query);
  q.set('currencyId', p.currency);
  q.set('pageSize', pageSizeOf(p));
  q.set('showpage', String(p.page));
  const sort = SORT_ORDERS[p.sort_by];
  if (sort) q.set('sortorder', sort);
  if (p.max_age_in_days > 0) q.set('maxAgeInDays', String(p.max_age_in_days));
  if (p.price_from !== undefined) q.set('priceFrom', String(p.price_from));
  if (p.price_to !== undefined) q.set('priceTo', String(p.price_to));
  const given = p as Record<string, unknown>;
  const resolved = new Map<string, string[]>();
  const resolve = (m: FilterMapping, ctx: FilterContext): string[] | undefined => {
    const raw = given[m.param];
    if (typeof raw !== 'string') return undefined;
    const r = normaliseFilterValues(m, raw, ctx);
    if ('error' in r) throw invalidParam(m.param, r.error);
    return r.values;
  };
  // Brands first: a model name resolves within them.
  const brands = resolve(mappingFor('manufacturer')!, {});
  if (brands) resolved.set('manufacturer', brands);
  for (const m of SEARCH_PARAM_MAP) {
    const values = resolved.get(m.param) ?? resolve(m, { manufacturers: new Set(brands ?? []) });
    if (values === undefined) continue;
    const r = { values };
    for (const v of r.values) q.append(m.upstream!, v);
  }
  return `https://${hostFor(p.domain)}/search/index.htm?${q.toString()}`;
}

/** `en_US` → `en-US,en;q=0.9` for the Accept-Language header. */
export function acceptLanguage(language: string): string {
  const [lang, region] = language.split(/[_-]/) as [string, string];
  return `${lang.toLowerCase()}-${region.toUpperCase()},${lang.toLowerCase()};q=0.9`;
}

/** The Markdown table of the OpenAPI description, generated from the mapping table. */
export function mappingTableMarkdown(): string {
  const rows = [
    '| parameter | Chrono24 | notes |',
    '|---|---|---|',
    '| `query` | `query` (+ `dosearch=true`) | free text |',
    '| `domain` | host `www.chrono24.<domain>` | ' + DOMAINS.join(', ') + ' |',
    '| `currency` | `currencyId` | default EUR |',
    '| `language` | `Accept-Language` header | the site language follows the domain |',
    '| `page_size` (or `pageSize`) | `pageSize` | 30, 60, 120; default 60 |',
    '| `limit` | `pageSize` (the smallest holding it) | 1–120; the answer is cut to `limit` listings |',
    '| `page` | `showpage` | |',
    '| `sort_by` | `sortorder` | relevance omitted, price_asc 1, price_desc 11, age_desc 5, age_asc → 400 |',
    '| `max_age_in_days` | `maxAgeInDays` | 0 = omitted |',
    '| `price_from`, `price_to` | `priceFrom`, `priceTo` | |',
    ...SEARCH_PARAM_MAP.map((m) => {
      const target = m.upstream ? `\`${m.upstream}\` (repeated)` : '— (400)';
      const note =
        m.check.kind === 'unsupported'
          ? m.check.why
          : m.check.kind === 'codes'
            ? 'catalog codes or labels (finder)'
            : m.check.kind === 'country'
              ? 'two-letter codes or country names; GB is sent as UK'
              : m.check.kind === 'ids' && INDEX_BY_UPSTREAM.has(m.upstream ?? '')
                ? m.param === 'model'
                  ? 'numeric ids or model names (resolved within the manufacturer given)'
                  : 'numeric ids or names (finder)'
                : m.check.kind;
      return `| \`${m.param}\` | ${target} | ${note} |`;
    }),
  ];
  return (
    rows.join('\n') +
    '\n\nLabels match case- and accent-insensitively and exactly (`manufacturer=A. Lange & Sohne` → `manufacturerIds=1`); ' +
    'an unknown or ambiguous label answers 400 naming the parameter and the closest labels. The Chrono24 URL carries only codes.'
  );
}
