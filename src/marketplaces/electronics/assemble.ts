/**
 * Bodies → spec §2.8 record, plus which parts are missing because their source failed. Pure: a source whose body
 * does not parse counts as failed (upstream_changed) like one that did not answer.
 */
import { allFailed } from '../../operations/sources.js';
import type { ElectronicsBodies, SourceError, SourceName } from './bodies.js';
import { extractPageData, type PageData } from './parse-page.js';
import { productName } from './parse-name.js';
import { buildPricing, isPriceViewAnswer, isPricingAnswer } from './parse-pricing.js';
import { buildReviews, isReviewsAnswer } from './parse-reviews.js';
import { buildSpecificationGroups, buildSpecificationsSettings } from './parse-specifications.js';
import { obj } from './pick.js';
import type { ElectronicsProduct } from './schema.js';

export interface Assembled {
  record: ElectronicsProduct;
  /** Record parts (dotted paths) left null because a source they come from failed. */
  missing: string[];
  /** Every failed source, including bodies that arrived but did not parse. */
  failures: Partial<Record<SourceName, SourceError>>;
}

/** Which sources feed which part (the official API only counts when it was asked). */
const PART_SOURCES: Record<string, SourceName[]> = {
  pricing: ['pricing', 'priceView', 'page', 'official'],
  'pricing.sku_price_domain': ['pricing', 'page', 'official'],
  reviews: ['reviews', 'page', 'official'],
  'reviews.reviews': ['reviews'],
  specification_groups: ['page'],
  specifications: ['page'],
};

/**
 * A source's JSON, or undefined (and a failure) when it is not JSON or not of the shape its parser knows: foreign
 * data is a failed source, named in X-Missing-Parts, never records made of nulls.
 */
function parseJson(
  text: string | undefined,
  name: SourceName,
  failures: Partial<Record<SourceName, SourceError>>,
  hasShape: (body: unknown) => boolean,
): unknown {
  if (text === undefined) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    failures[name] = { code: 'upstream_changed', message: `${name} answer is not JSON` };
    return undefined;
  }
  if (hasShape(body)) return body;
  failures[name] = { code: 'upstream_changed', message: `${name} answer does not have the expected shape` };
  return undefined;
}

/** The official Products API answers one product object, with its sku. */
const isOfficialAnswer = (body: unknown): boolean => obj(body)?.sku !== undefined;

/**
 * @example assemble({ sku: '6534615', page: html, pricing: json, errors: { reviews: { code: 'upstream_error', message: '…' } } })
 */
export function assemble(bodies: ElectronicsBodies): Assembled {
  const failures: Partial<Record<SourceName, SourceError>> = { ...bodies.errors };
  let page: PageData | undefined = bodies.pageData;
  if (!page && bodies.page !== undefined) {
    page = extractPageData(bodies.page, bodies.sku);
    if (!page) failures.page = { code: 'upstream_changed', message: 'product page carries no known product data' };
  }
  const pricingApi = parseJson(bodies.pricing, 'pricing', failures, isPricingAnswer);
  const priceView = parseJson(bodies.priceView, 'priceView', failures, isPriceViewAnswer);
  const reviewsApi = parseJson(bodies.reviews, 'reviews', failures, isReviewsAnswer);
  const official = obj(parseJson(bodies.official, 'official', failures, isOfficialAnswer));

  const record: ElectronicsProduct = {
    pricing: buildPricing({
      sku: bodies.sku,
      pricingApi,
      priceView,
      pricingApp: page?.pricingApp,
      product: page?.product,
      official,
    }),
    reviews: buildReviews({
      sku: bodies.sku,
      reviewsApi,
      reviewsRequest: bodies.reviewsRequest,
      reviewsApp: page?.reviewsApp,
      product: page?.product,
      pageTopics: page?.reviewTopics,
      official,
    }),
    specification_groups: buildSpecificationGroups(page?.specificationsApp, page?.product),
    specifications: buildSpecificationsSettings(page?.specificationsApp),
    name: productName(page?.product, official),
  };

  if (Object.values(record).every((v) => v === null)) throw allFailed('electronics', failures);

  const valueAt = (path: string): unknown =>
    path
      .split('.')
      .reduce<unknown>((v, k) => (v === null || v === undefined ? v : (v as Record<string, unknown>)[k]), record);
  const missing: string[] = [];
  for (const [part, sources] of Object.entries(PART_SOURCES)) {
    const parent = part.includes('.') ? part.slice(0, part.lastIndexOf('.')) : undefined;
    // Report only the outermost missing part: `reviews`, not also `reviews.reviews`.
    if (parent !== undefined && valueAt(parent) === null) continue;
    if (valueAt(part) === null && sources.some((s) => failures[s] !== undefined)) missing.push(part);
  }
  return { record, missing, failures };
}
