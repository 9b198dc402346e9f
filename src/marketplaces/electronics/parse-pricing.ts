/**
 * The spec's `pricing` part from whichever price sources answered: the pricing API (`/pricing/v1/price/item`, the
 * `skuPriceDomain` shape), the price view (`/priceview/query/sku`: flat fields and display flags), the old page's
 * `pricing-price` state, the new page's GraphQL `price`, and the official Products API. Pure.
 */
import { snakeKey, snakeKeysDeep } from '../../util/snake-case.js';
import { arr, bool, first, num, obj, str } from './pick.js';
import { at } from '../../util/json-path.js';
import type { FinanceOption, OfferQualifier, Pricing, SkuPriceDomain } from './schema.js';

export interface PriceSources {
  sku?: string;
  /** `/pricing/v1/price/item` JSON (parsed). */
  pricingApi?: unknown;
  /** `/priceview/query/sku` JSON (parsed). */
  priceView?: unknown;
  /** Old page `pricing-price` state. */
  pricingApp?: Record<string, unknown>;
  /** New page `productBySkuId`. */
  product?: Record<string, unknown>;
  /** Official Products API product. */
  official?: Record<string, unknown>;
}

/** The skuPriceDomain object in a pricing API answer: the object itself, `{skuPriceDomain}`, or a per-SKU array. */
export function domainFromPricingApi(body: unknown, sku?: string): Record<string, unknown> | undefined {
  const list = arr(body);
  if (list) {
    const objs = list.map((x) => unwrapDomain(x)).filter((x): x is Record<string, unknown> => x !== undefined);
    return objs.find((x) => sku !== undefined && String(x.skuId) === sku) ?? objs[0];
  }
  return unwrapDomain(body);
}

/** Whether a pricing API answer has the known shape: a price domain (alone, wrapped, or in a list). */
export function isPricingAnswer(body: unknown): boolean {
  return domainFromPricingApi(body) !== undefined;
}

/** Whether a price view answer has the known shape: an object with its `price` component or a price field. */
export function isPriceViewAnswer(body: unknown): boolean {
  const o = obj(body);
  return o !== undefined && (obj(o.price) !== undefined || 'customerPrice' in o || 'currentPrice' in o);
}

function unwrapDomain(v: unknown): Record<string, unknown> | undefined {
  const o = obj(v);
  if (!o) return undefined;
  const inner = obj(o.skuPriceDomain) ?? obj(at(o, 'data', 'skuPriceDomain'));
  if (inner) return inner;
  return 'customerPrice' in o || 'currentPrice' in o || 'regularPrice' in o ? o : undefined;
}

/**
 * A skuPriceDomain-shaped object (camelCase) → spec `sku_price_domain` (snake_case, spec fields only).
 * @example toSkuPriceDomain({ skuId: '1', isMAP: false }).is_m_a_p // false
 */
export function toSkuPriceDomain(d: Record<string, unknown>): SkuPriceDomain {
  const financeOptions = arr(d.financeOptions);
  const onlyFinanceOption = obj(d.financeOption);
  const gifts = arr(d.giftSkus);
  const qualifiers = arr(d.offerQualifiers);
  return {
    sku_id: str(d.skuId),
    sku_type: str(d.skuType),
    is_m_a_p: bool(d.isMAP),
    gift_skus: gifts
      ? gifts
          .map((x) => obj(x) ?? {})
          .map((g) => ({
            sku_id: str(g.skuId),
            savings: num(g.savings),
            offer_id: str(g.offerId),
            quantity: num(g.quantity),
            is_required_with_offer: bool(g.isRequiredWithOffer),
          }))
      : null,
    category_id: str(d.categoryId),
    location_id: str(d.locationId),
    current_price: num(d.currentPrice),
    regular_price: first(num(d.regularPrice), num(d.displayableRegularPrice)),
    total_savings: num(d.totalSavings),
    what_if_price: whatIfPrice(obj(d.whatIfPrice)),
    customer_price: first(num(d.customerPrice), num(d.displayableCustomerPrice)),
    finance_option: onlyFinanceOption ? financeOption(onlyFinanceOption) : null,
    finance_options: financeOptions ? financeOptions.map((f) => financeOption(obj(f) ?? {})) : null,
    gsp_unit_price: num(d.gspUnitPrice),
    connection_type: str(d.connectionType),
    offer_qualifiers: qualifiers ? qualifiers.map((q) => offerQualifier(obj(q) ?? {})) : null,
    price_event_type: str(d.priceEventType),
    preferred_badging: str(d.preferredBadging),
    current_as_of_date: str(d.currentAsOfDate),
    show_total_savings: bool(d.showTotalSavings),
    total_gift_savings: num(d.totalGiftSavings),
    total_savings_percent: num(d.totalSavingsPercent),
    dot_com_display_status: str(d.dotComDisplayStatus),
    is_price_match_guarantee: bool(d.isPriceMatchGuarantee),
    total_paid_member_savings: num(d.totalPaidMemberSavings),
    total_non_paid_member_savings: num(d.totalNonPaidMemberSavings),
  };
}

function whatIfPrice(w: Record<string, unknown> | undefined): SkuPriceDomain['what_if_price'] {
  if (!w) return null;
  const tier = (t: Record<string, unknown> | undefined) =>
    t ? { price: num(t.price), savings: num(t.savings), savings_percent: num(t.savingsPercent) } : null;
  const m2 = obj(w.planPaidMember2);
  const m3 = obj(w.planPaidMember3);
  const warranty = obj(m3?.warranty);
  return {
    plan_paid_member2: tier(m2),
    plan_paid_member3: m3
      ? {
          ...tier(m3)!,
          warranty: warranty ? { sku_id: str(warranty.skuId), full_term_savings: num(warranty.fullTermSavings) } : null,
        }
      : null,
  };
}

function financeOption(f: Record<string, unknown>): FinanceOption {
  return {
    rank: num(f.rank),
    rate: num(f.rate),
    offer_id: str(f.offerId),
    priority: num(f.priority),
    plan_type: str(f.planType),
    total_cost: num(f.totalCost),
    default_plan: bool(f.defaultPlan),
    finance_code: num(f.financeCode),
    finance_term: num(f.financeTerm),
    monthly_payment: num(f.monthlyPayment),
    finance_code_name: str(f.financeCodeName),
    terms_and_conditions: str(f.termsAndConditions),
    finance_code_desc_long: str(f.financeCodeDescLong),
    total_cost_including_tax: num(f.totalCostIncludingTax),
    monthly_payment_including_tax: num(f.monthlyPaymentIncludingTax),
  };
}

function offerQualifier(q: Record<string, unknown>): OfferQualifier {
  return {
    id: num(q.id),
    offer_id: str(q.offerId),
    offer_name: str(q.offerName),
    instance_id: num(q.instanceId),
    member_picks: bool(q.memberPicks),
    com_rule_type: str(q.comRuleType),
    offer_version: num(q.offerVersion),
    vendor_funded: bool(q.vendorFunded),
    com_offer_type: str(q.comOfferType),
    offer_discount_type: str(q.offerDiscountType),
    source_offer_version: num(q.sourceOfferVersion),
    offer_revocable_on_returns: bool(q.offerRevocableOnReturns),
    exclude_from_bundle_breakage: bool(q.excludeFromBundleBreakage),
  };
}

/** Official Products API product → the few skuPriceDomain fields it really carries. */
function domainFromOfficial(p: Record<string, unknown>): Record<string, unknown> {
  const restriction = str(p.priceRestriction);
  return {
    skuId: p.sku,
    regularPrice: p.regularPrice,
    currentPrice: p.salePrice,
    customerPrice: p.salePrice,
    totalSavings: p.dollarSavings,
    // The API names the price restriction: MAP (minimum advertised price), ICR, or none.
    isMAP: restriction === null ? null : restriction === 'MAP',
  };
}

/** Field by field, the first source that has a value wins; nested objects are taken whole. */
function mergeDomains(domains: SkuPriceDomain[]): SkuPriceDomain | null {
  if (domains.length === 0) return null;
  const out = { ...domains[0]! } as Record<string, unknown>;
  for (const d of domains.slice(1)) {
    for (const [k, v] of Object.entries(d)) if (out[k] === null && v !== null) out[k] = v;
  }
  return Object.values(out).every((v) => v === null) ? null : (out as SkuPriceDomain);
}

/** `membershipByType` of the old price component (My Best Buy Plus / Total), when a source still carries it. */
function membershipByType(m: Record<string, unknown> | undefined): Pricing['membership_by_type'] {
  if (!m) return null;
  const amount = (v: unknown) => (typeof v === 'string' ? v : num(v));
  const tier = (t: Record<string, unknown> | undefined) => {
    if (!t) return null;
    const img = obj(t.productImagePath);
    return {
      price: amount(t.price),
      savings: amount(t.savings),
      full_term_savings: amount(t.fullTermSavings),
      product_image_path: img
        ? {
            rel: str(img.rel),
            href: str(img.href),
            width: num(img.width),
            height: num(img.height),
            alt_text: str(img.altText),
            media_type: str(img.mediaType),
            pisces_href: str(img.piscesHref),
            unit_of_measure: str(img.unitOfMeasure),
          }
        : null,
      product_service_name_path: str(t.productServiceNamePath),
    };
  };
  return { plus: tier(obj(m.plus)), total: tier(obj(m.total)) };
}

const FLAG = /^(show|disable|is|has|enable)[A-Z]/;

/** Boolean display flags of a price view / price component, snake_cased. */
function displayFlags(...views: (Record<string, unknown> | undefined)[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const v of views) {
    if (!v) continue;
    for (const [k, val] of Object.entries(v)) {
      const key = snakeKey(k);
      if (FLAG.test(k) && typeof val === 'boolean' && !(key in out)) out[key] = val;
    }
  }
  return out;
}

/** A numeric field or its number-as-string ("124.92"), as a string (the spec's `monthly_payment` in pricing). */
function moneyText(v: unknown): string | null {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : str(v);
}

/** The current price a page price object states, else the price it shows the customer. */
function shownPrice(price: Record<string, unknown>): unknown {
  return (
    num(price.currentPrice) ?? num(price.customerPrice) ?? num(price.displayableCustomerPrice) ?? price.currentPrice
  );
}

/** One offer, keys snake_cased, without GraphQL's `__typename`; not an object → none. */
function offerRecord(o: unknown): Record<string, unknown>[] {
  const offer = obj(o);
  if (!offer) return [];
  const { __typename: _type, ...fields } = offer;
  return [snakeKeysDeep(fields) as Record<string, unknown>];
}

/**
 * Every price source → spec `pricing`, or null when none of them carried anything.
 * @example buildPricing({ sku: '6534615', pricingApi: JSON.parse(body) })?.sku_price_domain?.customer_price
 */
export function buildPricing(src: PriceSources): Pricing | null {
  const app = obj(src.pricingApp?.app) ?? src.pricingApp;
  const view = obj(src.priceView);
  const viewPrice = obj(view?.price);
  const gqlPrice = obj(src.product?.price);

  const domains: SkuPriceDomain[] = [];
  const apiDomain = domainFromPricingApi(src.pricingApi, src.sku);
  if (apiDomain) domains.push(toSkuPriceDomain(apiDomain));
  const appDomain = obj(at(app, 'data', 'skuPriceDomain')) ?? obj(app?.priceDomain);
  if (appDomain) domains.push(toSkuPriceDomain(appDomain));
  // The page's price is the one it shows now: a current price it does not state is its customer price (2025 pages
  // carry `customerPrice` alone).
  if (gqlPrice) domains.push(toSkuPriceDomain({ ...gqlPrice, currentPrice: shownPrice(gqlPrice) }));
  if (src.official) domains.push(toSkuPriceDomain(domainFromOfficial(src.official)));
  const domain = mergeDomains(domains);
  const rawDomain = apiDomain ?? appDomain ?? gqlPrice;
  const finance = obj(rawDomain?.financeOption);

  // Flat fields: the price view first, then the old component, then what the domain and the page say.
  const flat = [viewPrice, view, obj(app?.priceDomain), app].filter(
    (x): x is Record<string, unknown> => x !== undefined,
  );
  const pick = (key: string): unknown => flat.map((f) => f[key]).find((v) => v !== undefined && v !== null);
  const newBuyingOption = arr(src.product?.buyingOptions)
    ?.map((b) => obj(b))
    .find((b) => b?.type === 'New');
  const analytics = obj(pick('skuDataAnalytics'));
  const memberSavings = obj(pick('memberSavings'));
  // The price view's offers, else the page's `offers.offers[]` (2025 pages: {hotOffer, offerId, offerType, …}).
  const offers = arr(pick('offers')) ?? arr(obj(src.product?.offers)?.offers);
  const queryParams = arr(pick('queryParamsToBeRemoved'));

  const pricing: Record<string, unknown> = {
    rate: first(num(pick('rate')), num(finance?.rate)),
    layout: str(pick('layout')),
    offers: offers ? offers.flatMap((o) => offerRecord(o)) : null,
    sku_id: first(str(pick('skuId')), domain?.sku_id, src.sku),
    offer_id: first(str(pick('offerId')), str(finance?.offerId)),
    plan_type: first(str(pick('planType')), str(finance?.planType)),
    pdp_url: first(
      str(pick('pdpUrl')),
      str(at(src.product, 'url', 'pdp')),
      str(at(src.product, 'url', 'skuSpecificUrl')),
      str(newBuyingOption?.pdpUrl),
      str(at(newBuyingOption, 'product', 'url', 'pdp')),
    ),
    finance_term: first(num(pick('financeTerm')), num(finance?.financeTerm)),
    customer_price: first(
      num(pick('customerPrice')),
      domain?.customer_price,
      num(at(newBuyingOption, 'product', 'price', 'customerPrice')),
    ),
    gsp_unit_price: first(num(pick('gspUnitPrice')), domain?.gsp_unit_price),
    monthly_payment: first(moneyText(pick('monthlyPayment')), moneyText(finance?.monthlyPayment)),
    finance_monthly_payment: first(num(pick('financeMonthlyPayment')), num(finance?.monthlyPayment)),
    total_cost_including_tax: first(
      moneyText(pick('totalCostIncludingTax')),
      moneyText(finance?.totalCostIncludingTax),
    ),
    finance_code_name: first(str(pick('financeCodeName')), str(finance?.financeCodeName)),
    preferred_badging: first(str(pick('preferredBadging')), domain?.preferred_badging),
    preferred_badging_str: str(pick('preferredBadgingStr')),
    sku_price_domain: domain,
    membership_by_type: membershipByType(obj(pick('membershipByType'))),
    sku_data_analytics: analytics
      ? {
          sku_id: str(analytics.skuId),
          pricing_type: str(analytics.pricingType),
          customer_price: num(analytics.customerPrice),
        }
      : null,
    member_savings: memberSavings ? { show_paid_member_savings: bool(memberSavings.showPaidMemberSavings) } : null,
    query_params_to_be_removed: queryParams ? queryParams.filter((q): q is string => typeof q === 'string') : null,
    count_down_threshold: num(pick('countDownThreshold')),
    expiration_date_threshold: num(pick('expirationDateThreshold')),
    price_change_total_savings_amount: num(pick('priceChangeTotalSavingsAmount')),
    price_change_total_savings_percent: num(pick('priceChangeTotalSavingsPercent')),
  };
  const flags = displayFlags(viewPrice, view, app);
  // The SKU (known from the request) and the page URL are not prices: with nothing else the part is null.
  const carried =
    Object.entries(pricing).some(([k, v]) => k !== 'sku_id' && k !== 'pdp_url' && v !== null) ||
    Object.keys(flags).length > 0;
  if (!carried) return null;
  return { ...flags, ...pricing } as Pricing;
}
