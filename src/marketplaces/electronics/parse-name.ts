/**
 * The product's name (beyond the spec's §2.8 fields: the price history and Retailed clients need one): the new page's
 * `productBySkuId.name` (`{short}` in 2025–26 captures; a plain string is read too), else the official Products API's
 * `name`. Pure.
 */
import { obj, str } from './pick.js';

/**
 * @example productName({ name: { short: 'Apple - MacBook Pro 14"' } }, undefined) // 'Apple - MacBook Pro 14"'
 */
export function productName(
  product: Record<string, unknown> | undefined,
  official: Record<string, unknown> | undefined,
): string | null {
  const fromPage = typeof product?.name === 'string' ? product.name : str(obj(product?.name)?.short);
  const name = fromPage ?? (typeof official?.name === 'string' ? official.name : null);
  return name !== null && name.trim() !== '' ? name : null;
}
