/** Recorded size labels onto the product answer's sizes: GTIN first, else the label's number, never a guess. */
import { describe, expect, it } from 'vitest';
import { lowWithin, withLow } from '../alerts/detect-product.js';
import type { StoredSizeRow } from './links.js';
import { mapRecordedSizes, sizeNumber } from './size-map.js';

const row = (
  size: string,
  size_system: StoredSizeRow['size_system'],
  marketplaces: StoredSizeRow['marketplaces'],
  gtins: string[] = [],
): StoredSizeRow => ({
  size,
  size_system,
  gtins,
  marketplaces,
});

describe('mapRecordedSizes', () => {
  const rows = [
    row('10', 'us_men', ['resale-a', 'resale-b'], ['00195870247536']),
    row('11.5', 'us_women', ['resale-b']),
    row('11.5', 'us_men', ['resale-b']),
    row('7Y', 'us_kids', ['resale-b']),
  ];

  it('joins by a shared GTIN whatever the label says', () => {
    const m = mapRecordedSizes('sportswear', [{ size: 'M 10 / W 11.5', gtins: ['00195870247536'] }], rows);
    expect(m.get('M 10 / W 11.5')).toBe(rows[0]);
  });

  it("joins by the label's number among the sizes that marketplace priced; system words pick between two", () => {
    const m = mapRecordedSizes(
      'resale-b',
      [
        { size: '10', gtins: [] },
        { size: '11.5W', gtins: [] },
        { size: '7Y', gtins: [] },
        { size: '11.5', gtins: [] },
        { size: '13', gtins: [] },
      ],
      rows,
    );
    expect(m.get('10')).toBe(rows[0]);
    expect(m.get('11.5W')).toBe(rows[1]);
    expect(m.get('7Y')).toBe(rows[3]);
    // Two 11.5 rows and no hint: left unmapped rather than guessed; 13 is no size of the answer.
    expect(m.has('11.5')).toBe(false);
    expect(m.has('13')).toBe(false);
  });

  it('a marketplace that priced no such size is not joined by label', () => {
    expect(mapRecordedSizes('resale-a', [{ size: '7Y', gtins: [] }], rows).size).toBe(0);
  });

  it('sizeNumber', () => {
    expect(sizeNumber('US M 10')).toBe('10');
    expect(sizeNumber('M 10 / W 11.5')).toBe('10');
    expect(sizeNumber('7Y')).toBe('7Y');
    expect(sizeNumber('XL')).toBe('XL');
  });
});

describe('daily lows (price.new_low)', () => {
  const DAY = 86_400_000;
  const t = Date.UTC(2026, 10, 24, 12);

  it("keeps each UTC day's lowest, drops days past a year, and answers the low of the last N days", () => {
    let lows = withLow([], t - 400 * DAY, 50);
    lows = withLow(lows, t - 10 * DAY, 120);
    lows = withLow(lows, t - 2 * DAY, 110);
    lows = withLow(lows, t - 2 * DAY + 3_600_000, 105);
    expect(lows.map(([, v]) => v)).toEqual([120, 105]);
    expect(lowWithin(lows, t, 30)).toBe(105);
    expect(lowWithin(lows, t, 3)).toBe(105);
    expect(lowWithin(lows, t, 2)).toBeNull();
  });
});
