/**
 * The short text beside each tool's structuredContent: what an assistant can quote (product, sizes, prices with their
 * currency), never a JSON dump. Records differ by marketplace, so the lookup summary reads them by common field
 * names; the currency comes from the operation's own `identify` (the one history and alerts use) when it knows it.
 */
import type { AnyOperation } from '../operations/types.js';
import type { ProductAnswer, ProductOffer } from '../products/types.js';
import { LINE_COLOURS } from './chart-png.js';

export type Summarize = (content: Record<string, unknown>, args: Record<string, unknown>) => string;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined;

/** At most this many sizes or results are named; the rest are counted. */
const MAX_ROWS = 12;
const MAX_RESULTS = 5;

/** Price fields by preference, with how to say them. */
const PRICE_FIELDS: [string, string][] = [
  ['lowest_ask', 'lowest ask'],
  ['highest_bid', 'highest bid'],
  ['last_sale', 'last sale'],
  ['current_price', 'price'],
  ['customer_price', 'price'],
  ['regular_price', 'regular price'],
  ['initial_price', 'full price'],
  ['lowestPriceCents', 'lowest price'],
  ['lastSoldPriceCents', 'last sold'],
  ['lowest_price', 'lowest'],
  ['median_price', 'median'],
  ['highest_price', 'highest'],
  ['price', 'price'],
];

/** A price value: a number, `{ amount }`, or GOAT's cents (`…Cents: { amount }`). */
function priceValue(field: string, v: unknown): { amount: number; currency?: string } | undefined {
  const cents = /cents$/i.test(field);
  if (typeof v === 'number') return { amount: cents ? v / 100 : v };
  if (isObj(v) && typeof v.amount === 'number') {
    return { amount: cents ? v.amount / 100 : v.amount, currency: text(v.currency) };
  }
  return undefined;
}

/** The price fields of `o` (searched a few levels deep), in preference order, each said once. */
function pricesOf(o: Obj, depth = 3): { label: string; amount: number; currency?: string }[] {
  const found = new Map<string, { label: string; amount: number; currency?: string }>();
  const visit = (node: Obj, d: number) => {
    for (const [field, label] of PRICE_FIELDS) {
      const p = priceValue(field, node[field]);
      if (p && !found.has(label)) found.set(label, { label, ...p });
    }
    if (d > 0) for (const v of Object.values(node)) if (isObj(v)) visit(v, d - 1);
  };
  visit(o, depth);
  const order = PRICE_FIELDS.map(([, l]) => l);
  return [...found.values()].sort((a, b) => order.indexOf(a.label) - order.indexOf(b.label));
}

/** The first currency named anywhere in the record (a few levels deep). */
function currencyIn(v: unknown, depth = 4): string | undefined {
  if (Array.isArray(v)) return v.length > 0 ? currencyIn(v[0], depth) : undefined;
  if (!isObj(v) || depth < 0) return undefined;
  const own = text(v.currency);
  if (own) return own;
  for (const x of Object.values(v)) {
    const c = currencyIn(x, depth - 1);
    if (c) return c;
  }
  return undefined;
}

const money = (amount: number, currency: string | undefined) =>
  `${Number.isInteger(amount) ? amount : amount.toFixed(2)}${currency ? ` ${currency}` : ''}`;

/** A size's label: `size`, GOAT's `sizeOption.presentation`, StockX's `traits.size`, Nike's `label`. */
function sizeOf(o: Obj): string | undefined {
  if (isObj(o.sizeOption)) return text(o.sizeOption.presentation) ?? text(o.sizeOption.value);
  if (isObj(o.traits) && text(o.traits.size)) return text(o.traits.size);
  return text(o.size) ?? text(o.label);
}

function titleOf(o: Obj): string | undefined {
  const info = isObj(o.product_info) ? o.product_info : {};
  return text(o.name) ?? text(o.title) ?? text(info.full_title) ?? text(info.title) ?? text(o.model) ?? text(o.label);
}

/** "Size 8: lowest ask 131 USD, last sale 127 USD" for each size row that has one. */
function sizeRows(rows: Obj[], currency: string | undefined): string[] {
  const out: string[] = [];
  for (const row of rows) {
    const size = sizeOf(row);
    if (size === undefined) continue;
    const prices = pricesOf(row)
      .slice(0, 2)
      .map((p) => `${p.label} ${money(p.amount, p.currency ?? currency)}`);
    const status = text(row.status) ?? text(row.stockStatus);
    out.push(`${size}: ${prices.length > 0 ? prices.join(', ') : (status ?? 'no price')}`);
  }
  return out;
}

/** The array of size entries in a record: `variants`, `sizes`, or the record itself (GOAT's prices). */
function sizeArray(v: unknown): Obj[] | undefined {
  // Entries with a size and a price or a stock status (a finder's filter groups have labels too, and neither).
  const isSized = (a: unknown): a is Obj[] =>
    Array.isArray(a) &&
    a.length > 0 &&
    isObj(a[0]) &&
    !!sizeOf(a[0]) &&
    (pricesOf(a[0]).length > 0 || !!text(a[0].status) || !!text(a[0].stockStatus));
  if (isSized(v)) return v;
  if (!isObj(v)) return undefined;
  for (const key of ['variants', 'sizes', 'size_options']) if (isSized(v[key])) return v[key];
  return undefined;
}

function list(lines: string[], max: number): string {
  const shown = lines.slice(0, max).join('; ');
  return lines.length > max ? `${shown}; and ${lines.length - max} more` : shown;
}

/** A lookup's answer: the product (or the results) with its prices and sizes. */
export function summarizeRecord(site: string, op: AnyOperation): Summarize {
  return (content, args) => {
    const record: unknown = 'results' in content && Object.keys(content).length === 1 ? content.results : content;
    const currency = identifiedCurrency(op, record, args) ?? currencyIn(record);
    const sized = sizeArray(record);
    if (Array.isArray(record) && !sized) {
      // Search hits and trends: a few titles with their price.
      const hits = record.filter(isObj).map((hit) => {
        const price = pricesOf(hit)[0];
        const id = text(hit.sku) ?? text(hit.slug);
        return `${titleOf(hit) ?? id ?? 'untitled'}${id && titleOf(hit) ? ` (${id})` : ''}${price ? `, ${money(price.amount, price.currency ?? currency)}` : ''}`;
      });
      return `${site}: ${record.length} result${record.length === 1 ? '' : 's'}${hits.length ? `: ${list(hits, MAX_RESULTS)}` : ''}.`;
    }
    const parts: string[] = [];
    // GOAT's prices are the size list itself.
    const obj: Obj = isObj(record) ? record : {};
    const title = titleOf(obj);
    const id = text(obj.sku) ?? text(obj.style_color) ?? text(args.query);
    if (title) parts.push(`${site}: ${title}${id && id !== title ? ` (${id})` : ''}.`);
    else if (Array.isArray(obj.results)) parts.push(`${site} search${id ? ` "${id}"` : ''}.`);
    else parts.push(`${site}: ${id ?? 'product'}.`);
    const headline = pricesOf(obj, 2).slice(0, 3);
    if (headline.length > 0) {
      parts.push(`${headline.map((p) => `${p.label} ${money(p.amount, p.currency ?? currency)}`).join(', ')}.`);
    }
    const results = Array.isArray(obj.results) ? obj.results.filter(isObj) : undefined;
    if (results) {
      parts.push(
        `${results.length} listings: ${list(
          results.map((r) => {
            const p = pricesOf(r)[0];
            return `${titleOf(r) ?? 'untitled'}${p ? `, ${money(p.amount, p.currency ?? currency)}` : ''}`;
          }),
          MAX_RESULTS,
        )}.`,
      );
    }
    if (sized) {
      const rows = sizeRows(sized, currency);
      if (rows.length > 0) parts.push(`Sizes — ${list(rows, MAX_ROWS)}.`);
    }
    if (!currency && headline.length > 0) parts.push('(currency not stated by the marketplace)');
    return parts.join(' ');
  };
}

/** The ISO currency the operation says the record's prices are in (its `identify`), when it knows it. */
function identifiedCurrency(op: AnyOperation, record: unknown, args: Record<string, unknown>): string | undefined {
  const params = op.params.safeParse(withoutMaxAge(args));
  if (!params.success) return undefined;
  try {
    return op.identify(record, params.data).currency ?? undefined;
  } catch {
    return undefined; // a record it cannot identify: the currency fields in the record say it instead
  }
}

function withoutMaxAge(args: Record<string, unknown>): Record<string, unknown> {
  const { max_age: _ignored, ...rest } = args;
  return rest;
}

interface HistorySeries {
  label: string;
  currency: string;
  points: { t: string; min: number; max: number; last: number }[];
}

export const summarizeHistory: Summarize = (c, args) => {
  const series = (c.series ?? []) as HistorySeries[];
  // The PNG chart has no text: each line is named by its colour here.
  const colours = new Map<HistorySeries, string>();
  if (args.chart === undefined || args.chart === 'png') {
    series
      .filter((s) => s.points.length > 0)
      .slice(0, LINE_COLOURS.length)
      .forEach((s, i) => colours.set(s, LINE_COLOURS[i]!.name));
  }
  const from = String(c.from).slice(0, 10);
  const to = String(c.to).slice(0, 10);
  if (series.length === 0) return `No prices recorded for ${String(c.operation)} from ${from} to ${to}.`;
  const lines = series.map((s) => {
    const first = s.points[0];
    const last = s.points.at(-1);
    if (!first || !last) return `${s.label}: no points`;
    const low = Math.min(...s.points.map((p) => p.min));
    const high = Math.max(...s.points.map((p) => p.max));
    const colour = colours.get(s);
    return `${colour ? `(${colour} line) ` : ''}${s.label}: ${money(first.last, s.currency)} → ${money(last.last, s.currency)} (low ${money(low, s.currency)}, high ${money(high, s.currency)}, ${s.points.length} points)`;
  });
  return `Price history of ${String(c.operation)} from ${from} to ${to}: ${list(lines, MAX_ROWS)}.`;
};

const trackedLine = (t: Obj) =>
  `${text(t.id)}: ${text(t.operation)} ${text((t.params as Obj | undefined)?.query) ?? ''} every ${Math.round(Number(t.interval) / 60)} min, ${t.paused === true ? 'paused' : `next ${text(t.nextRunAt)}`}${t.lastError ? `, last error: ${text(t.lastError)}` : ''}`;

export const summarizeTracked: Summarize = (c) => `${c.paused === true ? 'Paused' : 'Tracking'} ${trackedLine(c)}.`;

export const summarizeTrackedList: Summarize = (c) => {
  const data = Array.isArray(c.data) ? c.data.filter(isObj) : [];
  return data.length === 0
    ? 'No tracked products.'
    : `${data.length} tracked product${data.length === 1 ? '' : 's'}: ${list(data.map(trackedLine), MAX_ROWS)}.`;
};

const webhookLine = (w: Obj) =>
  `${text(w.id)}: ${Array.isArray(w.events) ? w.events.join(', ') : ''} → ${text(w.url)}${w.enabled === false ? ` (paused${w.disabled_reason ? `: ${text(w.disabled_reason)}` : ''})` : ''}`;

export const summarizeWebhook: Summarize = (c) =>
  `Subscribed ${webhookLine(c)}.${c.secret ? ' The signing secret is in the result; it is shown only this once.' : ''}`;

export const summarizeWebhookList: Summarize = (c) => {
  const data = Array.isArray(c.data) ? c.data.filter(isObj) : [];
  return data.length === 0
    ? 'No alert subscriptions.'
    : `${data.length} alert subscription${data.length === 1 ? '' : 's'}: ${list(data.map(webhookLine), MAX_ROWS)}.`;
};

const offerText = (o: ProductOffer, site: (m: string) => string) =>
  `${money(o.amount, o.currency)} (${site(o.marketplace)}${o.condition && o.condition !== 'new' ? `, ${o.condition}` : ''})`;

/** The product by SKU: the product, each marketplace's status, and per size the best buy and sell. */
export function summarizeProduct(siteOf: (marketplace: string) => string): Summarize {
  return (c) => {
    const a = c as unknown as ProductAnswer;
    const name = a.product.name ?? a.sku;
    const retail = a.product.retail_price
      ? `, retail ${money(a.product.retail_price.amount, a.product.retail_price.currency)}`
      : '';
    const sources = a.marketplaces
      .map(
        (m) =>
          `${siteOf(m.marketplace)} ${m.status === 'error' ? `error (${m.error?.code ?? 'unknown'})` : m.status.replace('_', ' ')}`,
      )
      .join(', ');
    const rows = a.sizes.map((s) => {
      const buy = s.best_buy ? `buy ${offerText(s.best_buy, siteOf)}` : undefined;
      const sell = s.best_sell ? `sell ${offerText(s.best_sell, siteOf)}` : undefined;
      const best = [buy, sell].filter(Boolean).join(', ');
      return `${s.size_system.replace('_', ' ')} ${s.size}: ${best || `${s.offers.length} offers, none in ${a.currency}`}`;
    });
    return `${name} (${a.sku})${retail}. ${sources}.${rows.length ? ` Sizes — ${list(rows, MAX_ROWS)}.` : ' No sizes offered.'}`;
  };
}
