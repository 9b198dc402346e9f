/** Locale-aware reading of the price and count texts Chrono24 prints ("$18,725", "18.725 €", "CHF 18'725"). */

/**
 * A number printed with locale grouping: `,` `.` `'` and (narrow) spaces group thousands; a last separator followed
 * by one or two digits is the decimal mark. Returns null when the text holds no number.
 * @example parseLocaleNumber('9,140') // 9140
 * @example parseLocaleNumber('1.234,50') // 1234.5
 */
export function parseLocaleNumber(text: string): number | null {
  const m = text.match(/\d[\d.,'’\s\u00a0\u202f]*/);
  if (!m) return null;
  const raw = m[0].replace(/[\s\u00a0\u202f]+$/, '');
  const decimal = raw.match(/^(.*)[.,](\d{1,2})$/);
  const intPart = decimal ? decimal[1]! : raw;
  const digits = intPart.replace(/[^\d]/g, '');
  if (digits === '') return null;
  const value = Number(decimal ? `${digits}.${decimal[2]}` : digits);
  return Number.isFinite(value) ? value : null;
}

/**
 * A card's price text → amount and the currency as printed (symbol or code, before or after the number).
 * "Price on request" and other texts without digits give nulls.
 * @example parsePriceText('$18,725') // { amount: 18725, currency: '$' }
 */
export function parsePriceText(text: string): { amount: number | null; currency: string | null } {
  const clean = text.replace(/\s+/g, ' ').trim();
  const amount = parseLocaleNumber(clean);
  if (amount === null) return { amount: null, currency: null };
  const currency = clean
    .replace(/\d[\d.,'’\s\u00a0\u202f]*/, ' ')
    .replace(/[\s\u00a0\u202f]+/g, ' ')
    .trim();
  return { amount, currency: currency === '' ? null : currency };
}
