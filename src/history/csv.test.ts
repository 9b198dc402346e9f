/**
 * CSV export against formula injection (issue 27, item 7): every text cell a spreadsheet would run as a formula is
 * quote-prefixed, `-` included; numbers — negative price changes among them — stay numbers.
 */
import { describe, expect, it } from 'vitest';
import { toCsv } from './csv.js';

/** The one data cell of a single-column export. */
const cellOf = (v: unknown): string => toCsv([{ v }], ['v']).split('\r\n')[1]!;

describe('CSV formula injection', () => {
  it.each(['-2+3+cmd|x', '-cmd|x', '-A1', '- 1', '-1+1', '-1e3+cmd', '=1+1', '+1', '@SUM(A1)', '\tx', '\rx'])(
    'text %j is quote-prefixed',
    (text) => {
      const out = cellOf(text);
      // Quoted only when the text holds a quote, comma or line break; either way the value starts with the apostrophe.
      expect(out.replace(/^"/, '')).toMatch(/^'/);
      expect(out.replace(/^"/, '').slice(1).replace(/"$/, '')).toBe(text);
    },
  );

  it.each([
    [-3.5, '-3.5'],
    [-12, '-12'],
    [0, '0'],
    [-0.001, '-0.001'],
    [1e21, '1e+21'],
  ])('number %s exports as the number %s', (n, text) => {
    expect(cellOf(n)).toBe(text);
  });

  it('a numeric column as the database may hand it (a decimal string) stays a number', () => {
    // PostgreSQL NUMERIC arrives as text: "-12.50" is a number to a spreadsheet, not a formula.
    expect(cellOf('-12.50')).toBe('-12.50');
    expect(cellOf('-7')).toBe('-7');
    expect(cellOf('-1.5e2')).toBe('-1.5e2');
  });

  it('a price-change export keeps its negative numbers and prefixes the hostile name', () => {
    const csv = toCsv([{ name: '-2+3+cmd|x', old: 300, new: 270, change: -30, change_pct: -10 }]);
    expect(csv).toBe("name,old,new,change,change_pct\r\n'-2+3+cmd|x,300,270,-30,-10\r\n");
  });
});
