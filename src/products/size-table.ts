/**
 * Joins the marketplaces' size entries into one row per size. A GTIN two sides share is the surest join (the same
 * barcode is the same physical size); otherwise the same size label in the same size system. Rows of different
 * systems never join by label: a women's 11.5 stays off the men's 10 row even where it is the same shoe.
 */
import type { SizeEntry } from './source.js';
import { BUY_KINDS, SELL_KINDS, SIZE_SYSTEMS, type ProductOffer, type ProductSize, type SizeSystem } from './types.js';

interface Row {
  size: string;
  system: SizeSystem;
  gtins: Set<string>;
  offers: ProductOffer[];
  marketplaces: Set<string>;
  matchedBy: ProductSize['matched_by'];
}

/**
 * A GTIN joins rows of the same system, or a row and an entry whose system its marketplace could not tell (`other`:
 * Nike's product feed sizes are bare numbers), which then takes the row's system.
 */
function gtinJoins(row: Row, entry: SizeEntry): boolean {
  return row.system === entry.system || row.system === 'other' || entry.system === 'other';
}

/** The size table of the answer, from each marketplace's entries (in answer order). */
export function sizeTable(
  answers: readonly { marketplace: string; entries: readonly SizeEntry[] }[],
  currency: string,
): ProductSize[] {
  const rows: Row[] = [];
  const byLabel = new Map<string, Row>();
  const byGtin = new Map<string, Row>();
  const labelKey = (system: SizeSystem, size: string) => `${system}\u0000${size}`;
  for (const { marketplace, entries } of answers) {
    for (const entry of entries) {
      const viaGtin = entry.gtins.map((g) => byGtin.get(g)).find((r) => r !== undefined && gtinJoins(r, entry));
      const viaLabel = viaGtin ? undefined : byLabel.get(labelKey(entry.system, entry.size));
      let row = viaGtin ?? viaLabel;
      if (!row) {
        row = {
          size: entry.size,
          system: entry.system,
          gtins: new Set(),
          offers: [],
          marketplaces: new Set(),
          matchedBy: null,
        };
        rows.push(row);
      } else if (!row.marketplaces.has(marketplace)) {
        row.matchedBy = viaGtin ? 'gtin' : (row.matchedBy ?? 'size');
      }
      if (row.system === 'other' && entry.system !== 'other') {
        row.system = entry.system;
        row.size = entry.size;
      }
      row.marketplaces.add(marketplace);
      for (const g of entry.gtins) {
        row.gtins.add(g);
        if (!byGtin.has(g)) byGtin.set(g, row);
      }
      row.offers.push(...entry.offers);
      const key = labelKey(row.system, row.size);
      if (!byLabel.has(key)) byLabel.set(key, row);
    }
  }
  return rows.sort(compareRows).map((row) => ({
    size: row.size,
    size_system: row.system,
    gtins: [...row.gtins].sort(),
    matched_by: row.matchedBy,
    offers: row.offers,
    best_buy: best(row.offers, currency, BUY_KINDS, (a, b) => a < b),
    best_sell: best(row.offers, currency, SELL_KINDS, (a, b) => a > b),
  }));
}

/** New (GOAT's `new_no_defects`, whatever its box): a used or defective pair is not the same thing to buy or sell. */
export function isNew(o: ProductOffer): boolean {
  return o.condition === null || /^new(?:_no_defects)?(?:\/|$)/.test(o.condition);
}

/**
 * The best offer of the kinds, in the requested currency only (prices are never converted, so another currency's
 * price cannot be compared); a buy offer said to be out of stock is not one, nor a used or defective pair.
 */
function best(
  offers: readonly ProductOffer[],
  currency: string,
  kinds: readonly string[],
  better: (a: number, b: number) => boolean,
): ProductOffer | null {
  let found: ProductOffer | null = null;
  for (const o of offers) {
    if (o.currency !== currency || !kinds.includes(o.kind) || o.in_stock === false || !isNew(o)) continue;
    if (!found || better(o.amount, found.amount)) found = o;
  }
  return found;
}

/** US men's, women's, kids', then other; within a system by size number (kids' C before Y), then by label. */
function compareRows(a: Row, b: Row): number {
  const bySystem = SIZE_SYSTEMS.indexOf(a.system) - SIZE_SYSTEMS.indexOf(b.system);
  if (bySystem !== 0) return bySystem;
  const kidsRank = (s: string) => (/C$/i.test(s) ? 0 : 1);
  if (a.system === 'us_kids' && kidsRank(a.size) !== kidsRank(b.size)) return kidsRank(a.size) - kidsRank(b.size);
  const na = Number.parseFloat(a.size);
  const nb = Number.parseFloat(b.size);
  if (Number.isFinite(na) && Number.isFinite(nb) && na !== nb) return na - nb;
  return a.size.localeCompare(b.size);
}
