/**
 * `marketlens parse electronics.product FILE…`: saved upstream answers → bodies. Each file is recognised by its
 * content: a product page (HTML), a pricing API / price view / reviews API / Products API answer (JSON), a GraphQL
 * `productBySkuId` answer, a nock recording of the Products API, or a scraper's extracted page data (Scrapfly's
 * `products.json` of 2024–2025, whose `pricing`/`specifications` are the old components' untouched blobs and whose
 * `product-info` is the new page's `productBySkuId`).
 */
import { MarketlensError } from '../../errors.js';
import type { SavedFile } from '../../operations/types.js';
import type { ElectronicsBodies } from './bodies.js';
import { skuFromPage, type PageData } from './parse-page.js';
import { domainFromPricingApi } from './parse-pricing.js';
import { arr, obj } from './pick.js';
import { at } from '../../util/json-path.js';

function unrecognised(path: string, why: string): MarketlensError {
  return new MarketlensError('invalid_parameter', `${path}: not a Best Buy answer this parser knows (${why})`);
}

/** One Scrapfly product of the old page: `pricing` = skuPriceDomain, `specifications` = categories. */
function oldExtracted(p: Record<string, unknown>): PageData {
  return {
    generation: 'extracted',
    ...(obj(p.pricing) ? { pricingApp: { app: { data: { skuPriceDomain: p.pricing } } } } : {}),
    ...(arr(p.specifications) ? { specificationsApp: { specifications: { categories: p.specifications } } } : {}),
  };
}

/** One Scrapfly product of the 2025 page: `product-info` = productBySkuId, plus buying options and review topics. */
function newExtracted(p: Record<string, unknown>): PageData {
  const product = { ...(obj(p['product-info']) ?? {}) };
  if (arr(p['buying-options']) && product.buyingOptions === undefined) product.buyingOptions = p['buying-options'];
  return {
    generation: 'extracted',
    product,
    ...(arr(p.product_reviews) ? { reviewTopics: arr(p.product_reviews) } : {}),
  };
}

/**
 * @example bodiesFromSavedFiles([{ path: 'page.html', text }, { path: 'reviews.json', text: json }], '6534615')
 */
export function bodiesFromSavedFiles(files: SavedFile[], sku: string | undefined): ElectronicsBodies {
  const bodies: ElectronicsBodies = { errors: {}, ...(sku ? { sku } : {}) };
  const skuOf = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  for (const { path, text } of files) {
    if (/^\s*</.test(text)) {
      bodies.page = text;
      continue;
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw unrecognised(path, 'neither HTML nor JSON');
    }
    const list = arr(data);
    if (list) {
      const items = list.map((x) => obj(x)).filter((x): x is Record<string, unknown> => x !== undefined);
      const nock = items.find(
        (x) => typeof x.scope === 'string' && obj(x.response) && /\/v1\/products\//.test(String(x.path)),
      );
      if (nock) {
        bodies.official = JSON.stringify(nock.response);
        bodies.sku ??= skuOf(at(nock.response, 'sku'));
      } else if (items.length === 0 || items.every((x) => 'topicType' in x)) {
        bodies.reviews = text;
      } else if (items.some((x) => obj(x['product-info']))) {
        const chosen = items.find((x) => skuOf(at(x, 'product-info', 'skuId')) === bodies.sku) ?? items[0]!;
        bodies.pageData = newExtracted(chosen);
        bodies.sku ??= skuOf(at(chosen, 'product-info', 'skuId'));
      } else if (items.some((x) => obj(x.pricing) || arr(x.specifications))) {
        const chosen = items.find((x) => skuOf(at(x, 'pricing', 'skuId')) === bodies.sku) ?? items[0]!;
        bodies.pageData = oldExtracted(chosen);
        bodies.sku ??= skuOf(at(chosen, 'pricing', 'skuId'));
      } else if (domainFromPricingApi(list, bodies.sku)) {
        bodies.pricing = text;
      } else {
        throw unrecognised(path, 'unknown JSON array');
      }
      continue;
    }
    const o = obj(data);
    if (!o) throw unrecognised(path, 'unknown JSON value');
    if (arr(o.topics)) bodies.reviews = text;
    else if (obj(at(o, 'data', 'productBySkuId'))) {
      const product = obj(at(o, 'data', 'productBySkuId'));
      bodies.pageData = { generation: 'apollo', product };
      bodies.sku ??= skuOf(product?.skuId);
    } else if ('customerReviewAverage' in o || ('sku' in o && 'salePrice' in o)) {
      bodies.official = text;
      bodies.sku ??= skuOf(o.sku);
    } else if ('layout' in o && 'skuId' in o) bodies.priceView = text;
    else if (domainFromPricingApi(o)) {
      bodies.pricing = text;
      bodies.sku ??= skuOf(domainFromPricingApi(o)?.skuId);
    } else throw unrecognised(path, 'unknown JSON object');
  }
  if (bodies.sku === undefined && bodies.page !== undefined) {
    const fromPage = skuFromPage(bodies.page);
    if (fromPage !== undefined) bodies.sku = fromPage;
  }
  return bodies;
}
