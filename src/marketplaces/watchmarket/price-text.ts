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

/** One printed price: digits with one kind of thousands separator, and an optional 1–2 digit decimal part. */
const PRICE_NUMBER = /^(?:\d{1,3}(?:([.,'’ \u00a0\u202f])\d{3}(?:\1\d{3})*)?|\d+)(?:[.,]\d{1,2})?$/;

/**
 * A card's price text → amount and the currency as printed (symbol or code, before or after the number).
 * "Price on request" and other texts without digits give nulls.
 * @example parsePriceText('$18,725') // { amount: 18725, currency: '$' }
 */
export function parsePriceText(text: string): { amount: number | null; currency: string | null } {
  const clean = text.replace(/\s+/g, ' ').trim();
  const token = clean.match(/\d[\d.,'’\s\u00a0\u202f]*/)?.[0].replace(/[\s\u00a0\u202f]+$/, '');
  if (token === undefined || !PRICE_NUMBER.test(token)) return { amount: null, currency: null };
  const currency = clean
    .replace(token, ' ')
    .replace(/[\s\u00a0\u202f]+/g, ' ')
    .trim();
  // A garbled text ("€6,4x50", "€6,45O", a second number) is no price rather than a wrong one.
  if (/[\d\s]/.test(currency)) return { amount: null, currency: null };
  const amount = parseLocaleNumber(token);
  if (amount === null) return { amount: null, currency: null };
  return { amount, currency: currency === '' ? null : currency };
}
