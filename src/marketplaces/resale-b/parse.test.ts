/** resale-b.prices parser: GOAT's buy_bar_data array is the spec §2.3 record, key for key. */
import { describe, expect, it } from 'vitest';
import { readCapture, sharedAvailable } from '../../../test/support/shared.js';
import { parseBuyBarData } from './parse.js';
import { pricesRecordSchema } from './schema.js';
import { readFixture } from '../../../test/support/fixtures.js';

const fixtureText = readFixture('resale-b/buy-bar-data.json');
const SPEC_2_3_KEYS = [
  'sizeOption',
  'stockStatus',
  'boxCondition',
  'shoeCondition',
  'lowestPriceCents',
  'lastSoldPriceCents',
  'instantShipLowestPriceCents',
];

/** A §2.3 entry (ours or upstream's, which have the same keys), as far as these checks read it. */
type PriceEntry = Record<string, unknown> & { sizeOption: { value: number; presentation: string } };

function expectSpecEntries(entries: unknown[], rawEntries: PriceEntry[]): void {
  expect(entries).toHaveLength(rawEntries.length);
  pricesRecordSchema.parse(entries);
  entries.forEach((e, i) => {
    const entry = e as PriceEntry;
    const raw = rawEntries[i]!;
    expect(Object.keys(entry).sort()).toEqual([...SPEC_2_3_KEYS].sort());
    expect(entry.sizeOption).toEqual({ value: raw.sizeOption.value, presentation: raw.sizeOption.presentation });
    for (const k of ['lowestPriceCents', 'lastSoldPriceCents', 'instantShipLowestPriceCents']) {
      // Exactly upstream's money object: `amount` absent stays absent (not undefined, not null).
      expect(entry[k]).toStrictEqual(raw[k]);
      expect('amount' in (entry[k] as object)).toBe('amount' in (raw[k] as object));
    }
    expect(entry.stockStatus).toBe(raw.stockStatus);
    expect(entry.boxCondition).toBe(raw.boxCondition);
    expect(entry.shoeCondition).toBe(raw.shoeCondition);
  });
}

describe('parseBuyBarData', () => {
  it('keeps our fixture entries as they are, amount omitted where absent', () => {
    const entries = parseBuyBarData(fixtureText);
    expectSpecEntries(entries, JSON.parse(fixtureText));
    expect(JSON.stringify(entries[1]!.lowestPriceCents)).toBe('{"currency":"USD"}');
    expect(entries[1]!.lastSoldPriceCents.amount).toBe(0);
  });

  it('drops keys beyond the spec', () => {
    const raw = JSON.parse(fixtureText);
    raw[0].extraUpstreamKey = 1;
    expect(parseBuyBarData(JSON.stringify(raw))[0]).not.toHaveProperty('extraUpstreamKey');
  });

  it.each([
    ['not JSON', '<html>'],
    ['not an array', '{"entries":[]}'],
    ['an entry without sizeOption', '[{"stockStatus":"not_in_stock"}]'],
  ])('throws upstream_changed for %s', (_what, body) => {
    expect(() => parseBuyBarData(body)).toThrowError(expect.objectContaining({ code: 'upstream_changed' }));
  });
});

describe.skipIf(!sharedAvailable)('parseBuyBarData on the real capture', () => {
  it('dewuapiparser_goat_1341930_buy_bar_data.json → 9 spec entries', () => {
    const text = readCapture('goat/dewuapiparser_goat_1341930_buy_bar_data.json');
    const raw = JSON.parse(text);
    const entries = parseBuyBarData(text);
    expect(entries).toHaveLength(9);
    expectSpecEntries(entries, raw);
    expect(entries.some((e) => !('amount' in e.lowestPriceCents))).toBe(true);
  });
});
