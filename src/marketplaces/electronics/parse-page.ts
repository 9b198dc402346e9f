/**
 * The product page, in every generation seen (upstream notes §2), → the raw component states we read:
 * - ≤ 2024-10: `<script id="<ns>-<component>-<uuid>-json" type="application/json">{…}</script>` per component;
 * - late 2024 → 2025-03: `initializer.initializeComponent({creatorNamespace, componentId, …}, "<el>", "<escaped JSON>", …)`;
 * - since 2025-06: Next.js/Apollo SSR pushes (`{"rehydrate":{…{"data":{"productBySkuId":…}}}}` in 2025,
 *   `{"events":[{"type":"next","value":{"data":{"productBySkuId":…}}}]}` in 2026). Every `"productBySkuId":` value
 *   is read wherever it sits, so the wrapper may change again without breaking us.
 */
import { obj } from './pick.js';
import { at } from '../../util/json-path.js';
import { parseJsonAt, readJsString, skipSpace } from './json-scan.js';

export type PageGeneration = 'component-json' | 'initializer' | 'apollo' | 'extracted';

/** What a product page carries, in Best Buy's own shapes (camelCase). */
export interface PageData {
  generation: PageGeneration;
  /** Old `pricing-price` component state: `app.data.skuPriceDomain`, `app.priceDomain`, view props. */
  pricingApp?: Record<string, unknown>;
  /** Old `user-generated-content-ratings-and-reviews` state: `app.stats`, `app.expert`, `app.reviews.topics` … */
  reviewsApp?: Record<string, unknown>;
  /** Old `shop-specifications` state: `specifications.categories` and display props. */
  specificationsApp?: Record<string, unknown>;
  /** `productBySkuId` of the new page (all SSR blocks for the product merged). */
  product?: Record<string, unknown>;
  /** Review topics saved beside an extracted page (scraper captures only). */
  reviewTopics?: unknown[];
}

type ComponentKind = 'pricingApp' | 'reviewsApp' | 'specificationsApp';

/** Which component a script id or `<namespace>-<componentId>` names, if it is one we read. */
function componentKind(name: string): ComponentKind | undefined {
  if (/pricing-price/.test(name)) return 'pricingApp';
  if (/ratings-and-reviews/.test(name)) return 'reviewsApp';
  if (/(?:^|-)specifications(?:-|$)/.test(name)) return 'specificationsApp';
  return undefined;
}

/**
 * Product page HTML → PageData, or undefined when no generation's data is in it (a format change or a block page).
 * `sku` picks the product's own `productBySkuId` among those of accessories and variants.
 * @example extractPageData(html, '6534615')?.product?.specificationGroups
 */
export function extractPageData(html: string, sku?: string): PageData | undefined {
  const scripts = componentScripts(html);
  const components = { ...initializerComponents(html), ...scripts };
  const product = productBySkuId(html, sku);
  if (Object.keys(components).length === 0 && product === undefined) return undefined;
  const generation: PageGeneration = product
    ? 'apollo'
    : Object.keys(scripts).length > 0
      ? 'component-json'
      : 'initializer';
  return { generation, ...components, ...(product ? { product } : {}) };
}

/** Generation 1: component JSON in `<script id="…-json">` elements. */
function componentScripts(html: string): Partial<Record<ComponentKind, Record<string, unknown>>> {
  const out: Partial<Record<ComponentKind, Record<string, unknown>>> = {};
  const tag = /<script\b[^>]*\bid=["']([^"']+-json)["'][^>]*>/gi;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    const kind = componentKind(m[1]!);
    if (!kind || out[kind]) continue;
    const start = m.index + m[0].length;
    const end = html.indexOf('</script>', start);
    if (end === -1) continue;
    try {
      const value = obj(JSON.parse(html.slice(start, end)));
      if (value) out[kind] = value;
    } catch {
      // A broken blob counts as absent; the record check reports what is missing.
    }
  }
  return out;
}

/** Generation 2: `initializeComponent({config}, "<elementId>", "<escaped JSON>", "en-US")`. */
function initializerComponents(html: string): Partial<Record<ComponentKind, Record<string, unknown>>> {
  const out: Partial<Record<ComponentKind, Record<string, unknown>>> = {};
  const needle = 'initializeComponent(';
  for (let at = html.indexOf(needle); at !== -1; at = html.indexOf(needle, at + needle.length)) {
    let i = skipSpace(html, at + needle.length);
    const config = parseJsonAt(html, i);
    const cfg = obj(config?.value);
    if (!config || !cfg) continue;
    const kind = componentKind(`${cfg.creatorNamespace ?? ''}-${cfg.componentId ?? ''}`);
    if (!kind || out[kind]) continue;
    i = skipSpace(html, config.end);
    if (html[i] !== ',') continue;
    const elementId = readJsString(html, skipSpace(html, i + 1));
    if (!elementId) continue;
    i = skipSpace(html, elementId.end);
    if (html[i] !== ',') continue;
    i = skipSpace(html, i + 1);
    // The state is usually an escaped string; accept a literal object too.
    let state: unknown;
    if (html[i] === '{') state = parseJsonAt(html, i)?.value;
    else {
      const text = readJsString(html, i);
      try {
        state = text ? JSON.parse(text.value) : undefined;
      } catch {
        state = undefined;
      }
    }
    const value = obj(state);
    if (value) out[kind] = value;
  }
  return out;
}

/** Generation 3: every `"productBySkuId": {…}` in the page, merged for the product's SKU. */
function productBySkuId(html: string, sku?: string): Record<string, unknown> | undefined {
  const found: Record<string, unknown>[] = [];
  const needle = '"productBySkuId":';
  for (let at = html.indexOf(needle); at !== -1; at = html.indexOf(needle, at + needle.length)) {
    const start = skipSpace(html, at + needle.length);
    const value = obj(parseJsonAt(html, start)?.value);
    if (value) found.push(value);
  }
  if (found.length === 0) return undefined;
  const target = sku ?? found.find((p) => typeof p.skuId === 'string')?.skuId;
  const mine = found.filter((p) => p.skuId === undefined || target === undefined || String(p.skuId) === target);
  if (mine.length === 0) return undefined;
  return mine.reduce((acc, p) => deepMerge(acc, p), {} as Record<string, unknown>);
}

/** Merges SSR blocks of one product: objects recursively, first non-null value wins. */
function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    if (cur === undefined || cur === null) out[k] = v;
    else {
      const curObj = obj(cur);
      const vObj = obj(v);
      if (curObj && vObj) out[k] = deepMerge(curObj, vObj);
    }
  }
  return out;
}

/**
 * The SKU a page is about, for canonical URLs that carry none: `productBySkuId.skuId`, `data-sku-id`, or the
 * old price state.
 * @example skuFromPage('<div data-sku-id="6576719">') // '6576719'
 */
export function skuFromPage(html: string): string | undefined {
  const product = productBySkuId(html);
  if (product && /^\d+$/.test(String(product.skuId ?? ''))) return String(product.skuId);
  const attr = /\bdata-sku-id=["'](\d+)["']/.exec(html)?.[1];
  if (attr) return attr;
  const pricing = extractPageData(html)?.pricingApp;
  const fromPricing = at(pricing, 'app', 'data', 'skuPriceDomain', 'skuId') ?? at(pricing, 'app', 'skuId');
  return fromPricing === undefined ? undefined : String(fromPricing);
}
