/**
 * StockX market objects of both generations → the spec's Market object (§2.6). Null stays null, never 0.
 */
import { isMarketlensError, upstreamChanged } from '../../errors.js';
import { graphqlData } from './graphql-response.js';
import { MARKET_OPERATION } from './graphql-documents.js';
import {
  upstreamMarketProductSchema,
  upstreamMarketSchema,
  type Market,
  type UpstreamMarket,
  type UpstreamMarketProduct,
} from './schema.js';

/**
 * One upstream `market` → Market. `bidAskData{lowestAsk:int}` before 2023, `state{lowestAsk{amount}}` after.
 * @example toMarket({ state: { lowestAsk: null, highestBid: { amount: 26 }, numberOfAsks: 0, numberOfBids: 2 } })
 *   // { bids: { lowest_ask: null, highest_bid: 26, number_asks: 0, number_bids: 2 }, sales: { … } }
 */
export function toMarket(raw: unknown): Market | null {
  if (raw == null) return null;
  const parsed = upstreamMarketSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw upstreamChanged('resale-a', `market: ${issue?.path.join('.')} ${issue?.message}`, JSON.stringify(raw));
  }
  const m: UpstreamMarket = parsed.data;
  const old = m.bidAskData;
  const state = m.state;
  return {
    bids: {
      lowest_ask: num(state ? state.lowestAsk?.amount : old?.lowestAsk),
      highest_bid: num(state ? state.highestBid?.amount : old?.highestBid),
      number_asks: num(state ? state.numberOfAsks : old?.numberOfAsks),
      number_bids: num(state ? state.numberOfBids : old?.numberOfBids),
    },
    sales: {
      last_sale: num(m.salesInformation?.lastSale ?? m.statistics?.lastSale?.amount),
      sales_last_72h: num(m.salesInformation?.salesLast72Hours),
    },
  };
}

function num(v: number | null | undefined): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Market data of one product: its own market and each variant's, by variant id. */
export interface MarketData {
  /** Product id and slug when the answer carries them (captured XHRs may not). */
  ids: string[];
  product: Market | null;
  variants: Map<string, Market | null>;
}

/**
 * A GetMarketData answer (either market generation) → MarketData.
 * @example parseMarketData(body).variants.get('59411cb9-…')?.bids.lowest_ask
 */
export function parseMarketData(body: string): MarketData {
  const data = graphqlData(body, 'product', MARKET_OPERATION);
  const parsed = upstreamMarketProductSchema.safeParse(data.product);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw upstreamChanged('resale-a', `${MARKET_OPERATION} product: ${issue?.path.join('.')} ${issue?.message}`, body);
  }
  return fromMarketProduct(parsed.data);
}

/**
 * Whether a GetMarketData answer has a shape this parser reads. False only for foreign data (not a GraphQL answer,
 * or an unknown product shape). A not-found, a block, or GraphQL errors (our query no longer matches StockX's
 * schema, which fails the lookup loudly) are not shape questions and are left to the parse.
 */
export function hasMarketShape(body: string): boolean {
  try {
    const json: unknown = JSON.parse(body);
    if (json !== null && typeof json === 'object' && Array.isArray((json as { errors?: unknown }).errors)) return true;
  } catch {
    return false;
  }
  try {
    parseMarketData(body);
    return true;
  } catch (e) {
    return !(isMarketlensError(e) && e.code === 'upstream_changed');
  }
}

/** The market parts of a product node (GetMarketData's or a 2023 page node's). */
export function fromMarketProduct(p: UpstreamMarketProduct): MarketData {
  const ids = [p.id, p.uuid, p.urlKey].filter((v): v is string => typeof v === 'string' && v !== '');
  const variants = new Map<string, Market | null>();
  for (const v of p.variants ?? []) variants.set(v.id, toMarket(v.market));
  return { ids, product: toMarket(p.market), variants };
}
