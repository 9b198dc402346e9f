/**
 * Which of a marketplace's recorded size labels (StockX `10`, GOAT `10`, Nike `M 10 / W 11.5`) is which size of the
 * product answer (a label within one size system): by a shared GTIN first, as the product answer joins them, else by
 * the label's number among the sizes that marketplace priced in the last answer. A label matched to no size, or to
 * several, stays unmapped: its prices are shown under the marketplace's own label, never guessed onto a row.
 */
import type { StoredSizeRow } from './links.js';
import type { ProductMarketplace, SizeSystem } from './types.js';

export interface RecordedVariant {
  size: string;
  gtins: readonly string[];
}

/** Marketplaces that state one price for every size (Nike's storefront price): their size-less rows fit any size. */
export const PRICED_PER_PRODUCT: readonly ProductMarketplace[] = ['sportswear'];

export function mapRecordedSizes(
  marketplace: ProductMarketplace,
  variants: readonly RecordedVariant[],
  rows: readonly StoredSizeRow[],
): Map<string, StoredSizeRow> {
  const out = new Map<string, StoredSizeRow>();
  const priced = rows.filter((r) => r.marketplaces.includes(marketplace));
  for (const v of variants) {
    const byGtin = rows.filter((r) => r.gtins.some((g) => v.gtins.includes(g)));
    if (byGtin.length === 1) {
      out.set(v.size, byGtin[0]!);
      continue;
    }
    const label = sizeNumber(v.size);
    if (label === null) continue;
    let candidates = priced.filter((r) => r.size.toUpperCase() === label);
    const hint = systemHint(v.size);
    if (candidates.length > 1 && hint) candidates = candidates.filter((r) => r.size_system === hint);
    if (candidates.length === 1) out.set(v.size, candidates[0]!);
  }
  return out;
}

/** The first size of a label, without its system words: `US M 10` → `10`, `7Y` → `7Y`, `M 10 / W 11.5` → `10`. */
export function sizeNumber(label: string): string | null {
  const first = label.toUpperCase().split('/')[0]!;
  const m = first.match(/(\d+(?:\.\d+)?)\s*([YC])?(?![\d.])/);
  if (m) return `${m[1]}${m[2] ?? ''}`;
  const word = first.replace(/\b(US|UK|EU)\b/g, '').trim();
  return word === '' ? null : word;
}

function systemHint(label: string): SizeSystem | null {
  const l = label.toUpperCase();
  if (/\d\s*[YC]\b|\bGS\b|\bPS\b|\bTD\b|KIDS/.test(l)) return 'us_kids';
  if (/^\s*(US\s*)?W\b|WOMEN|\d\s*W\b/.test(l)) return 'us_women';
  if (/^\s*(US\s*)?M\b|\bMEN/.test(l)) return 'us_men';
  return null;
}
