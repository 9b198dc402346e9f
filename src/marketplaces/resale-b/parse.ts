/** Pure parsers for resale-b (GOAT) upstream bodies. */
import { upstreamChanged } from '../../errors.js';
import { priceEntrySchema, type PriceEntry } from './schema.js';

const MONEY_KEYS = ['lowestPriceCents', 'lastSoldPriceCents', 'instantShipLowestPriceCents'] as const;

/**
 * `buy_bar_data` JSON → spec §2.3 entries. The upstream array already is the record: entries keep GOAT's camelCase
 * keys and omit `amount` exactly where GOAT omits it. Keys beyond the spec are dropped so the record stays documented.
 */
export function parseBuyBarData(body: string): PriceEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    throw upstreamChanged('resale-b', 'buy_bar_data is not JSON', body);
  }
  if (!Array.isArray(data)) throw upstreamChanged('resale-b', 'buy_bar_data is not an array', body);
  return data.map((raw, i) => {
    const parsed = priceEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw upstreamChanged(
        'resale-b',
        `buy_bar_data entry ${i}: ${issue?.path.join('.')} ${issue?.message}`,
        JSON.stringify(raw),
      );
    }
    const entry = parsed.data;
    // Zod keeps key order of the schema; rebuild the money objects so an absent amount stays absent (never undefined).
    for (const key of MONEY_KEYS) {
      const m = entry[key];
      entry[key] = {
        currency: m.currency,
        ...(m.amount === undefined ? {} : { amount: m.amount }),
        ...(m.amountUsdCents === undefined ? {} : { amountUsdCents: m.amountUsdCents }),
      };
    }
    return entry;
  });
}
