/**
 * Parser robustness (issue 10): every operation's parser, fed hostile variants of every repo fixture it parses
 * (truncated at byte fractions and at JSON/HTML structure boundaries, every key path removed, the type of every key
 * the parser reads changed, arrays emptied, scripts removed/duplicated, embedded JSON corrupted), either
 *   - returns a record that passes `op.record` and holds no value the unmutated record lacks at that place (a removed
 *     price is null or absent, never 0 and never another field's value), or
 *   - throws a MarketlensError `upstream_changed` (or `not_found` where the mutation makes it a not-found answer),
 * never another exception, and each parse stays under PARSE_BUDGET_MS. The real captures of ../shared get the same
 * treatment in test/robustness/captures.test.ts. Engine: test/support/robustness.ts; inputs:
 * test/support/robustness-cases.ts (REPORTED lists the invented values this suite found, pending their fix).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MarketlensError } from '../src/errors.js';
import { OPERATIONS } from '../src/operations/registry.js';
import type { ElectronicsProduct } from '../src/marketplaces/electronics/schema.js';
import type { Product as StockxProduct, SearchHit } from '../src/marketplaces/resale-a/schema.js';
import type { PriceEntry, ResaleBProduct } from '../src/marketplaces/resale-b/schema.js';
import type { SportswearProduct } from '../src/marketplaces/sportswear/schema.js';
import type { SearchResult } from '../src/marketplaces/watchmarket/schema.js';
import { asRecord } from '../src/util/json-path.js';
import { extractNextData, wrapAsNextDataPage } from '../src/util/next-data.js';
import { RETYPES, applyEdit, valueAt, withValueAt, type Json, type JsonEdit, type Path } from './support/mutators.js';
import { DERIVED, REPORTED, fixtureCases, type RobustnessCase } from './support/robustness-cases.js';
import { checkCase, concretePaths, judgeFor, jsonDocsOf, problemsOf, run, type Outcome } from './support/robustness.js';

const cases = fixtureCases();

describe('every operation has robustness inputs', () => {
  it('covers all 8 operations with repo fixtures', () => {
    expect(new Set(cases.map((c) => c.op.name))).toEqual(new Set(Object.keys(OPERATIONS)));
  });
});

describe('parser robustness on repo fixtures: enumerated mutations', () => {
  it.each(cases.map((c) => [`${c.op.name} ← ${c.label}`, c] as const))('%s', (_name, c) => {
    const report = checkCase(c, DERIVED[c.op.name], REPORTED[c.op.name]);
    expect(report.findings).toEqual([]);
    // The enumeration really ran, and mutations reached both outcomes somewhere (not one that can never fail).
    expect(report.variants).toBeGreaterThan(20);
    expect(report.ok + Object.values(report.errors).reduce<number>((sum, n) => sum + (n ?? 0), 0)).toBe(
      report.variants,
    );
  });
});

/** A few random edits (remove / change type / empty) anywhere in the bodies' JSON documents, applied in turn. */
function randomlyEdited(
  c: RobustnessCase,
  picks: Array<[number, number, number]>,
): { bodies: unknown; label: string[]; subtractive: boolean; shifts: boolean } {
  let bodies = c.bodies();
  const label: string[] = [];
  let subtractive = true;
  let shifts = false;
  for (const [d, p, k] of picks) {
    const docs = jsonDocsOf(bodies);
    if (docs.length === 0) break;
    const doc = docs[d % docs.length]!;
    const paths = concretePaths(doc.root);
    if (paths.length === 0) continue;
    const path = paths[p % paths.length]!;
    const op = k % (RETYPES.length + 2);
    const edit: JsonEdit =
      op === 0
        ? { label: 'remove', subtractive: true, path, value: undefined }
        : op === 1
          ? { label: 'empty', subtractive: true, path, value: [] }
          : {
              label: `→${RETYPES[op - 2]!.name}`,
              subtractive: RETYPES[op - 2]!.value === null,
              path,
              value: RETYPES[op - 2]!.value,
            };
    subtractive &&= edit.subtractive;
    shifts ||= typeof path.at(-1) === 'number';
    label.push(`${doc.label}: ${edit.label} ${path.join('.')}`);
    bodies = doc.put(applyEdit(doc.root, edit));
  }
  return { bodies, label, subtractive, shifts };
}

describe('parser robustness on repo fixtures: random edit sequences (fast-check, seeded)', () => {
  it.each(cases.map((c) => [`${c.op.name} ← ${c.label}`, c] as const))('%s', (_name, c) => {
    const j = judgeFor(c, DERIVED[c.op.name], REPORTED[c.op.name]);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 4 }), (picks) => {
        const v = randomlyEdited(c, picks);
        const problems = problemsOf(j, v, run(c.op, v.bodies, c.params));
        if (problems.length > 0) throw new Error(`${v.label.join(' | ')}: ${problems.join('; ')}`);
      }),
      { seed: 20261121, numRuns: 25 },
    );
  });
});

// -----------------------------------------------------------------------------------------------------------------
// Never a wrong value: targeted checks per marketplace
// -----------------------------------------------------------------------------------------------------------------

const fixtureCase = (pred: (c: RobustnessCase) => boolean): RobustnessCase => cases.find(pred)!;
/** The record of a parse that succeeded, as `T`: the operation's record type (run checked it against op.record). */
function ok<T>(o: Outcome): T {
  if (!o.ok) throw new Error(`expected a record, got ${String(o.error)}`);
  return o.record as T;
}
function codeOf(o: Outcome): string {
  if (o.ok) return 'record';
  return o.error instanceof MarketlensError ? o.error.code : `not a MarketlensError: ${String(o.error)}`;
}

describe('never a wrong value: resale-b (GOAT)', () => {
  const prices = fixtureCase((c) => c.op.name === 'resale-b.prices');
  const raw = (): Json => JSON.parse(prices.bodies() as string) as Json;
  const parse = (entries: unknown) => run(prices.op, JSON.stringify(entries), prices.params);

  it('a price entry with its amount removed stays without amount (not 0, not null), the rest untouched', () => {
    const entries = withValueAt(raw(), [0, 'lowestPriceCents', 'amount'], undefined);
    const r = ok<PriceEntry[]>(parse(entries));
    expect(r[0]!.lowestPriceCents).toStrictEqual({ currency: 'USD', amountUsdCents: 12500 });
    expect('amount' in r[0]!.lowestPriceCents).toBe(false);
    expect(r[0]!.lastSoldPriceCents).toStrictEqual(valueAt(raw(), [0, 'lastSoldPriceCents']));
  });

  it('an amount that is null, a string or an object is upstream_changed, never coerced', () => {
    const bads: Json[] = [null, '12500', { cents: 12500 }, true];
    for (const bad of bads) {
      const entries = withValueAt(raw(), [0, 'lowestPriceCents', 'amount'], bad);
      expect(codeOf(parse(entries))).toBe('upstream_changed');
    }
  });

  it('a money object removed is upstream_changed (not an empty price)', () => {
    const entries = withValueAt(raw(), [0, 'lastSoldPriceCents'], undefined);
    expect(codeOf(parse(entries))).toBe('upstream_changed');
  });

  it('product: a template field removed is null, never a default', () => {
    const product = fixtureCase((c) => c.label.includes('product-template.json (bare JSON)'));
    const t = JSON.parse(product.bodies() as string) as Record<string, unknown>;
    for (const k of ['releaseDate', 'color', 'userOwn']) delete t[k];
    t.localizedSpecialDisplayPriceCents = { currency: 'USD' };
    const r = ok<ResaleBProduct>(run(product.op, JSON.stringify(t), product.params));
    expect(r).toMatchObject({ release_date: null, color: null, user_own: null });
    expect(r.localized_special_display_price_cents).toEqual({ amount: null, currency: 'USD', amount_usd_cents: null });
  });

  it.each(['sizeRange', 'localizedSpecialDisplayPriceCents'])(
    'product: required %s removed is upstream_changed, not a default',
    (key) => {
      const product = fixtureCase((c) => c.label.includes('product-template.json (bare JSON)'));
      const t = JSON.parse(product.bodies() as string) as Record<string, unknown>;
      delete t[key];
      expect(codeOf(run(product.op, JSON.stringify(t), product.params))).toBe('upstream_changed');
    },
  );
});

describe('never a wrong value: resale-a (StockX)', () => {
  const product = fixtureCase((c) => c.label === 'fixture: resale-a/product-page.html + market-data.json');
  /** The product with the market answer edited: each edit sets (or, with undefined, removes) the value at a path. */
  const withMarket = (...edits: Array<[Path, Json | undefined]>): Outcome => {
    const b = product.bodies() as { market: string };
    let m = JSON.parse(b.market) as Json;
    for (const [path, value] of edits) m = withValueAt(m, path, value);
    return run(product.op, { ...b, market: JSON.stringify(m) }, product.params);
  };
  const MARKET: Path = ['data', 'product', 'market'];

  it('the lowest ask removed is null (not 0); the other figures stay', () => {
    const r = ok<StockxProduct>(
      withMarket(
        [[...MARKET, 'state', 'lowestAsk'], undefined],
        [['data', 'product', 'variants', 0, 'market', 'state', 'lowestAsk', 'amount'], undefined],
      ),
    );
    expect(r.market!.bids).toEqual({ lowest_ask: null, highest_bid: 118, number_asks: 37, number_bids: 12 });
    expect(r.variants[0]!.market!.bids.lowest_ask).toBeNull();
    expect(r.variants[0]!.market!.bids.highest_bid).toBe(118);
  });

  it('a lowest ask that is not a number is upstream_changed, never parsed out of text', () => {
    const bads: Json[] = ['131', '$131', { value: 131 }];
    for (const bad of bads) {
      expect(codeOf(withMarket([[...MARKET, 'state', 'lowestAsk'], { amount: bad }]))).toBe('upstream_changed');
    }
  });

  it('the market block removed is market null, not zeros', () => {
    expect(ok<StockxProduct>(withMarket([MARKET, undefined])).market).toBeNull();
  });

  it('search: a hit whose brand and category are removed keeps them null, not a neighbour’s', () => {
    const search = fixtureCase((c) => c.op.name === 'resale-a.search');
    const node: Path = ['data', 'browse', 'results', 'edges', 0, 'node', 'product'];
    let body = JSON.parse(search.bodies() as string) as Json;
    for (const k of ['brand', 'productCategory']) body = withValueAt(body, [...node, k], undefined);
    const hits = ok<SearchHit[]>(run(search.op, JSON.stringify(body), search.params));
    expect(hits[0]).toMatchObject({ slug: 'marketlens-court-1-chalk', brand: null, category: null });
  });
});

describe('never a wrong value: watchmarket (Chrono24)', () => {
  const page1 = fixtureCase((c) => c.label.includes('search-2026-page1'));
  const withPrice = (text: string): SearchResult => {
    const b = page1.bodies() as { url: string; pages: string[] };
    expect(b.pages[0]).toContain('€6,450');
    return ok<SearchResult>(run(page1.op, { ...b, pages: [b.pages[0]!.replace('€6,450', text)] }, page1.params));
  };

  it('the unmutated first card reads €6,450', () => {
    expect(withPrice('€6,450').results[0]!.price).toEqual({ amount: 6450, currency: '€' });
  });

  it.each(['Price on request', '€--', '€', '', '€6,4x50', '€6‚450', '€6,45O', '€6.450.00.1', '€ 6 450 4', '€6,450 1'])(
    'price text %j → amount null, left out of price_stats',
    (text) => {
      const priced = (r: SearchResult) => r.results.filter((l) => l.price.amount !== null).length;
      const base = withPrice('€6,450');
      const r = withPrice(text);
      expect(r.results[0]).toMatchObject({ id: '51000001', price: { amount: null, currency: null } });
      expect(r.results[0]!.title).toBe(base.results[0]!.title);
      expect(priced(r)).toBe(priced(base) - 1);
      expect(r.stats.price_stats.lowest_price).not.toBe(0);
      expect(r.stats.price_stats.highest_price).toBe(base.stats.price_stats.highest_price);
    },
  );

  it('a card cut off mid-way never borrows the next card’s price', () => {
    const b = page1.bodies() as { url: string; pages: string[] };
    const html = b.pages[0]!;
    const r = ok<SearchResult>(run(page1.op, { ...b, pages: [html.slice(0, html.indexOf('€6,450'))] }, page1.params));
    expect(r.results.every((l) => l.price.amount === null || l.price.amount !== 2300)).toBe(true);
  });
});

describe('never a wrong value: electronics (Best Buy)', () => {
  const op = OPERATIONS['electronics.product'];
  const pricingCase = fixtureCase((c) => c.label.includes('page-apollo-rehydrate'));
  const pricing = (): Record<string, unknown> =>
    JSON.parse((pricingCase.bodies() as { pricing: string }).pricing) as Record<string, unknown>;
  const onlyPricing = (p: unknown) => run(op, { sku: '6500001', pricing: JSON.stringify(p), errors: {} }, {});

  it('pricing fields removed are null in the record (not 0, not another price)', () => {
    const full = ok<ElectronicsProduct>(onlyPricing(pricing()));
    expect(full.pricing?.customer_price).toBe(1099.99);
    const p = pricing();
    delete p.customerPrice;
    delete p.regularPrice;
    delete p.totalSavings;
    const r = ok<ElectronicsProduct>(onlyPricing(p));
    expect(r.pricing?.customer_price).toBeNull();
    expect(r.pricing?.sku_price_domain?.customer_price).toBeNull();
    expect(r.pricing?.sku_price_domain?.regular_price).toBeNull();
    expect(r.pricing?.sku_price_domain?.total_savings).toBeNull();
    expect(r.pricing?.sku_price_domain?.current_price).toBe(1099.99);
  });

  it('a price sent as text is null, never parsed into a number', () => {
    const p = pricing();
    p.customerPrice = '1,099.99';
    p.regularPrice = { amount: 1299.99 };
    const r = ok<ElectronicsProduct>(onlyPricing(p));
    expect(r.pricing?.customer_price).toBeNull();
    expect(r.pricing?.sku_price_domain?.regular_price).toBeNull();
  });
});

describe('never a wrong value: sportswear (Nike)', () => {
  const us = fixtureCase((c) => c.label.includes('product-page-us'));
  const withPrices = (edit: (prices: Record<string, unknown>) => void): Outcome => {
    const b = us.bodies() as { html: string; url: null };
    const next = extractNextData(b.html);
    const walk = (v: unknown): void => {
      if (v && typeof v === 'object') {
        const prices = asRecord((v as { prices?: unknown }).prices);
        if (prices && 'currentPrice' in prices) edit(prices);
        Object.values(v).forEach(walk);
      }
    };
    walk(next);
    return run(us.op, { ...b, html: wrapAsNextDataPage(next) }, us.params);
  };

  it('employee price and discount percentages removed are null (not 0)', () => {
    const base = ok<SportswearProduct>(withPrices(() => {})).prices;
    expect(base?.employee_price).toBe(69);
    const r = ok<SportswearProduct>(
      withPrices((p) => {
        delete p.employeePrice;
        delete p.employeeDiscountPercentage;
        delete p.discountPercentage;
      }),
    );
    expect(r.prices).toMatchObject({
      employee_price: null,
      employee_discount_percentage: null,
      discount_percentage: null,
      current_price: 115,
    });
  });

  it('a current price that is text is upstream_changed, never coerced', () => {
    expect(codeOf(withPrices((p) => (p.currentPrice = '115')))).toBe('upstream_changed');
  });
});
