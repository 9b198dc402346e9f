/** Zod schemas for resale-b (GOAT): the spec §2.3 price entry, and the parts of GOAT payloads we read. */
import { z } from 'zod';

/** A money object; GOAT omits `amount` (and `amountUsdCents`) when there is no price. */
const money = z.object({
  currency: z.string().describe('3-letter currency code'),
  amount: z.number().int().optional().describe('Integer cents in `currency`; omitted when there is no price'),
  amountUsdCents: z.number().int().optional().describe('The same amount in US cents; omitted when there is no price'),
});

/** Spec §2.3: one entry per size and condition, camelCase exactly as GOAT sends it. */
export const priceEntrySchema = z
  .object({
    sizeOption: z.object({ value: z.number(), presentation: z.string() }),
    stockStatus: z.string().describe('not_in_stock, single_in_stock, multiple_in_stock'),
    boxCondition: z.string().describe('good_condition, badly_damaged, no_original_box, missing_lid'),
    shoeCondition: z.string().describe('new_no_defects, new_with_defects, used'),
    lowestPriceCents: money,
    lastSoldPriceCents: money,
    instantShipLowestPriceCents: money,
  })
  .meta({ id: 'ResaleBPriceEntry' });

export const pricesRecordSchema = z.array(priceEntrySchema);
export type PriceEntry = z.output<typeof priceEntrySchema>;

/** Marketplace country codes and currencies for the spec's countries (CONTRACT §7: UK is GOAT's GB). */
export const RESALE_B_COUNTRIES = {
  US: { countryCode: 'US', currency: 'USD' },
  UK: { countryCode: 'GB', currency: 'GBP' },
  FR: { countryCode: 'FR', currency: 'EUR' },
} as const;
export type ResaleBCountry = keyof typeof RESALE_B_COUNTRIES;
