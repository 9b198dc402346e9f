/**
 * The product by SKU, without HTTP: finds the SKU on StockX, GOAT and Nike and runs their lookups, all three
 * marketplaces in parallel (each one's own steps in order: a search before its product), then assembles the
 * ProductAnswer. Used by the route, the CLI, and callers in-process (product history and alerts, MCP, dashboard).
 */
import { MarketlensError, isMarketlensError, type ErrorCode } from '../errors.js';
import type { CacheStatus, LookupService } from '../operations/lookup.js';
import type { LaneName } from '../upstream/lane.js';
import { BUILT_IN_REGISTRY, type Registry } from '../operations/registry.js';
import { ServiceLookups } from './lookups.js';
import { productRequest } from './params.js';
import { sizeTable } from './size-table.js';
import { DEFAULT_SKU_SOURCES } from './sources.js';
import type { MarketplaceAnswer, ProductHeader, SkuSource } from './source.js';
import type { ProductAnswer, ProductMarketplace, ProductSource } from './types.js';
import { PRODUCT_MARKETPLACES } from './types.js';

export interface ProductServiceDeps {
  lookup: LookupService;
  /** MARKETLENS_DEADLINE_MS: one deadline for the whole answer, every sub-lookup within it. */
  deadlineMs: number;
  registry?: Registry;
  /** The marketplaces asked, in answer order (the built-in three by default). */
  sources?: readonly SkuSource[];
}

/** How the caller wants the sub-lookups run. */
export interface ProductCaller {
  /** Oldest cached sub-lookup accepted, in seconds; 0 fetches every marketplace live. */
  maxAgeSeconds?: number;
  /** `scheduled` for refreshes nobody waits on (tracked products): they queue behind interactive lookups. */
  lane?: LaneName;
}

export interface ProductResult {
  answer: ProductAnswer;
  /** Failed marketplaces by name, and parts their lookups left null (`resale-a.market`): X-Missing-Parts. */
  missingParts: string[];
  /** How the sub-lookups were answered, as one X-Cache (`hit` only when every one was a cache hit). */
  cache: CacheStatus;
}

type Outcome =
  | { marketplace: ProductMarketplace; found: MarketplaceAnswer }
  | { marketplace: ProductMarketplace; found: null }
  | { marketplace: ProductMarketplace; error: MarketlensError };

export class ProductService {
  private readonly registry: Registry;
  private readonly sources: readonly SkuSource[];

  constructor(private readonly deps: ProductServiceDeps) {
    this.registry = deps.registry ?? BUILT_IN_REGISTRY;
    this.sources = deps.sources ?? DEFAULT_SKU_SOURCES;
  }

  /**
   * The product answer for `sku`. Rejects with 400 `invalid_parameter` for a bad SKU, country or currency; with 404
   * `not_found` when no marketplace knows the SKU; with the most telling failure when none answered. One marketplace
   * failing is an answer without it (`status: error`, named in `missingParts`).
   */
  async answer(
    sku: string,
    options: { country?: string; currency?: string } = {},
    caller: ProductCaller = {},
  ): Promise<ProductResult> {
    const request = productRequest(sku, options);
    const lookups = new ServiceLookups(this.deps.lookup, this.registry, {
      deadlineAt: Date.now() + this.deps.deadlineMs,
      maxAgeSeconds: caller.maxAgeSeconds,
      lane: caller.lane,
    });
    const outcomes = await Promise.all(
      this.sources.map((source): Promise<Outcome> =>
        source.answer(request.sku, request, lookups).then(
          (found) => ({ marketplace: source.marketplace, found }),
          (e: unknown) => ({ marketplace: source.marketplace, error: asError(e) }),
        ),
      ),
    );
    const answered = outcomes.flatMap((o) =>
      'found' in o && o.found ? [{ ...o.found, marketplace: o.marketplace }] : [],
    );
    if (answered.length === 0) throw mostTelling(request.sku, outcomes);
    const answer: ProductAnswer = {
      sku: request.sku,
      country: request.country,
      currency: request.currency,
      product: header(answered),
      marketplaces: outcomes.map(sourceOf).sort(byAnswerOrder),
      sizes: sizeTable(answered, request.currency),
    };
    const missingParts = [
      ...outcomes.flatMap((o) => ('error' in o ? [o.marketplace] : [])),
      ...answered.flatMap((a) => a.missingParts),
    ];
    return { answer, missingParts, cache: lookups.summary() };
  }
}

function asError(e: unknown): MarketlensError {
  return isMarketlensError(e) ? e : new MarketlensError('internal', 'the product lookup failed', { cause: e });
}

function sourceOf(o: Outcome): ProductSource {
  const none = { id: null, slug: null, url: null, currency: null, error: null };
  if ('error' in o) {
    return {
      marketplace: o.marketplace,
      status: 'error',
      ...none,
      error: { code: o.error.code, message: o.error.message },
    };
  }
  if (!o.found) return { marketplace: o.marketplace, status: 'not_found', ...none };
  const { id, slug, url, currency } = o.found;
  return { marketplace: o.marketplace, status: 'found', id, slug, url, currency, error: null };
}

function byAnswerOrder(a: ProductSource, b: ProductSource): number {
  return PRODUCT_MARKETPLACES.indexOf(a.marketplace) - PRODUCT_MARKETPLACES.indexOf(b.marketplace);
}

/**
 * The product header, each field from the first marketplace that states it. Name, brand, image and release date:
 * StockX, then GOAT, then Nike (StockX and GOAT title the colourway in English; Nike's title is the model in the
 * storefront's language). Retail price: Nike first (the brand's own price, in its storefront's currency), then
 * StockX (its US retail trait, only when pricing in USD).
 */
function header(answered: readonly (MarketplaceAnswer & { marketplace: ProductMarketplace })[]): ProductHeader {
  const inOrder = (order: readonly ProductMarketplace[]) =>
    [...answered].sort((a, b) => order.indexOf(a.marketplace) - order.indexOf(b.marketplace));
  const first = <K extends keyof ProductHeader>(key: K, order: readonly ProductMarketplace[]): ProductHeader[K] =>
    inOrder(order).find((a) => a.header[key] !== null)?.header[key] ?? null;
  const catalog = ['resale-a', 'resale-b', 'sportswear'] as const;
  return {
    name: first('name', catalog),
    brand: first('brand', catalog),
    image: first('image', catalog),
    retail_price: first('retail_price', ['sportswear', 'resale-a', 'resale-b']),
    release_date: first('release_date', catalog),
  };
}

/** Codes that say a marketplace does not have the SKU (or cannot be asked for it here), not that it failed. */
const NOT_AN_ANSWER: readonly ErrorCode[] = ['not_found', 'invalid_parameter'];

/**
 * Nothing found anywhere: 404 when every marketplace said it has no such SKU; otherwise the first real failure (an
 * unknown SKU cannot be told apart from a marketplace that could not be asked), its message naming every marketplace.
 */
function mostTelling(sku: string, outcomes: readonly Outcome[]): MarketlensError {
  const failures = outcomes.flatMap((o) => ('error' in o && !NOT_AN_ANSWER.includes(o.error.code) ? [o] : []));
  const said = outcomes
    .map((o) => `${o.marketplace}: ${'error' in o ? `${o.error.code} (${o.error.message})` : 'not found'}`)
    .join('; ');
  const failure = failures[0];
  if (!failure) return new MarketlensError('not_found', `No marketplace has SKU ${sku} (${said})`);
  return new MarketlensError(failure.error.code, `No marketplace answered for SKU ${sku} (${said})`, {
    retryAfter: failure.error.retryAfter,
  });
}
