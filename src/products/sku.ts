/**
 * A SKU as the product answer states it: trimmed, upper case, inner spaces collapsed (`dd1391 100` and `DD1391 100`
 * are one product). Links, tracked products and product events are keyed by it.
 */
export function normaliseSku(raw: string): string {
  return raw.trim().replace(/\s+/g, ' ').toUpperCase();
}
