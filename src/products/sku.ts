/**
 * The SKU (style code) as the product route takes it. Marketplaces print one SKU several ways — StockX and Nike
 * `DD1391-100`, GOAT `DD1391 100` — so SKUs are compared by their letters and digits alone.
 */
import { z } from 'zod';

/** Letters, digits and the separators SKUs are printed with (space, hyphen, slash, dot). */
const SKU_TEXT = /^[A-Za-z0-9](?:[A-Za-z0-9 ./-]{0,38}[A-Za-z0-9])?$/;

/**
 * The SKU as answered: upper case, each run of spaces and hyphens one hyphen (how StockX and Nike print it).
 * @example normaliseSku(' dd1391 100 ') // 'DD1391-100'
 */
export function normaliseSku(sku: string): string {
  return sku
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '-');
}

/**
 * What two printings of one SKU share: its letters and digits.
 * @example skuKey('DD1391 100') === skuKey('dd1391-100') // true
 */
export function skuKey(sku: string): string {
  return sku.toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** True when a marketplace's SKU (possibly several, `A / B`) names `wanted`. */
export function sameSku(stated: string | null | undefined, wanted: string): boolean {
  if (!stated) return false;
  const key = skuKey(wanted);
  return stated.split(/\s*\/\s*|,\s*/).some((part) => skuKey(part) === key);
}

export const skuParam = z
  .string()
  .trim()
  .regex(
    SKU_TEXT,
    'must be a style code of 1 to 40 letters and digits (spaces, hyphens, dots and slashes between), e.g. DD1391-100',
  )
  .transform(normaliseSku)
  .describe('The SKU (style code, URL-encoded), e.g. `DD1391-100`; `DD1391 100` and lower case are the same SKU');
