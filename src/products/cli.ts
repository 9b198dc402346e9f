/**
 * `marketlens product <sku> [--size 10] [--country US] [--currency USD] [--json]`: the product answer from the
 * command line — live, through the service's core (src/core: the same lookups, recorded in the price history; no
 * cache between runs) — as a size table, or the answer as JSON.
 */
import type { Config } from '../config.js';
import { MarketlensError } from '../errors.js';
import { UsageError } from '../usage-error.js';
import type { ProductAnswer, ProductOffer, ProductSize } from './types.js';

export const PRODUCT_USAGE = 'Usage: marketlens product <sku> [--size 10] [--country US] [--currency USD] [--json]';

interface ProductArgs {
  sku: string;
  size?: string;
  country?: string;
  currency?: string;
  json: boolean;
}

function parseArgs(args: string[]): ProductArgs {
  const out: Partial<ProductArgs> & { json: boolean } = { json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--json') out.json = true;
    else if (a === '--size' || a === '--country' || a === '--currency') {
      const value = args[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${a} needs a value\n${PRODUCT_USAGE}`);
      out[a.slice(2) as 'size' | 'country' | 'currency'] = value;
    } else if (a.startsWith('--')) throw new UsageError(`Unknown option ${a}\n${PRODUCT_USAGE}`);
    else if (out.sku === undefined) out.sku = a;
    else throw new UsageError(`One SKU at a time (got "${out.sku}" and "${a}")\n${PRODUCT_USAGE}`);
  }
  if (out.sku === undefined) throw new UsageError(PRODUCT_USAGE);
  return { ...out, sku: out.sku };
}

export async function productCommand(config: Config, args: string[]): Promise<number> {
  const options = parseArgs(args);
  const { withCommandCore } = await import('../core/command-core.js');
  // The core's product service: its answer is recorded (history, product links, alert detection) as the route's is.
  return withCommandCore(config, async (core) => {
    const result = await core.products
      // Live, as before the core: no answer cached by a server sharing Redis.
      .answer(options.sku, { country: options.country, currency: options.currency }, { maxAgeSeconds: 0 })
      .catch((e: unknown) => {
        // A bad SKU, country or currency is the caller's typing: a usage error (exit 2), like `lookup`'s parameters.
        if (e instanceof MarketlensError && e.code === 'invalid_parameter') throw new UsageError(e.message);
        throw e;
      });
    const answer = options.size === undefined ? result.answer : onlySize(result.answer, options.size);
    console.log(options.json ? JSON.stringify(answer, null, 2) : renderProduct(answer));
    if (result.missingParts.length > 0) console.error(`Missing parts: ${result.missingParts.join(', ')}`);
    return 0;
  });
}

/** The answer with only the rows of that size (`10`, `7Y`), in whichever system states it. */
function onlySize(answer: ProductAnswer, size: string): ProductAnswer {
  const wanted = size.trim().toUpperCase();
  return { ...answer, sizes: answer.sizes.filter((s) => s.size.toUpperCase() === wanted) };
}

const SITE: Record<ProductOffer['marketplace'], string> = {
  'resale-a': 'StockX',
  'resale-b': 'GOAT',
  sportswear: 'Nike',
};
const SYSTEM: Record<ProductSize['size_system'], string> = {
  us_men: 'US M',
  us_women: 'US W',
  us_kids: 'US',
  other: '',
};
const KIND: Record<ProductOffer['kind'], string> = {
  lowest_ask: 'ask',
  highest_bid: 'bid',
  last_sale: 'last',
  lowest_price: 'low',
  instant_ship_lowest_price: 'instant',
  retail: 'retail',
};

const money = (o: ProductOffer) => `${o.amount} ${o.currency}`;
const offerText = (o: ProductOffer | null) => (o ? `${money(o)} ${SITE[o.marketplace]} ${KIND[o.kind]}` : '-');

/** The answer as text: the product, each marketplace, then one line per size (best buy, best sell, every offer). */
export function renderProduct(a: ProductAnswer): string {
  const p = a.product;
  const facts = [
    p.brand,
    p.retail_price ? `retail ${p.retail_price.amount} ${p.retail_price.currency}` : null,
    p.release_date ? `released ${p.release_date}` : null,
  ].filter((f): f is string => f !== null);
  const lines = [`${a.sku}  ${p.name ?? '(no name)'}${facts.length ? `  (${facts.join(', ')})` : ''}`, ''];
  for (const m of a.marketplaces) {
    const detail = m.status === 'error' ? `${m.error?.code}: ${m.error?.message}` : (m.url ?? '');
    lines.push(`  ${SITE[m.marketplace].padEnd(7)} ${m.status.padEnd(9)} ${(m.currency ?? '').padEnd(4)} ${detail}`);
  }
  lines.push('');
  const rows = a.sizes.map((s) => [
    `${SYSTEM[s.size_system]} ${s.size}`.trim(),
    s.matched_by ?? '',
    offerText(s.best_buy),
    offerText(s.best_sell),
    s.offers
      .map(
        (o) =>
          `${SITE[o.marketplace]} ${KIND[o.kind]} ${money(o)}${o.condition && o.condition !== 'new' ? ` (${o.condition})` : ''}`,
      )
      .join(' · '),
  ]);
  const header = ['SIZE', 'MATCH', `BEST BUY (${a.currency})`, `BEST SELL (${a.currency})`, 'OFFERS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const r of [header, ...rows])
    lines.push(r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  if (rows.length === 0) lines.push('(no sizes)');
  return lines.join('\n');
}
