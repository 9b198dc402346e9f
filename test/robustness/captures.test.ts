/**
 * Parser robustness on the real upstream captures of ../shared (the property and engine of test/robustness.test.ts):
 * every capture each operation's own tests parse, mutated (truncated, keys removed, types changed, arrays emptied,
 * scripts removed/duplicated, embedded JSON corrupted) → a correct partial record or upstream_changed/not_found,
 * never another exception, never a made-up value, never a slow parse.
 */
import { describe, expect, it } from 'vitest';
import { DERIVED, REPORTED, captureCases } from '../support/robustness-cases.js';
import { PARSE_BUDGET_MS, checkCase, type Limits } from '../support/robustness.js';
import { sharedAvailable } from '../support/shared.js';

// Captures are up to 600 KB: a smaller budget per document than the fixtures get keeps the suite within its time.
const LIMITS: Limits = { removals: 100, retypes: 20, cuts: 6, scripts: 4, classes: 16 };

describe.skipIf(!sharedAvailable)('parser robustness on real captures: enumerated mutations', () => {
  const cases = sharedAvailable ? captureCases() : [];

  it('covers every marketplace whose captures the parsers read', () => {
    expect(new Set(cases.map((c) => c.op.name))).toEqual(
      new Set([
        'watchmarket.search',
        'resale-a.search',
        'resale-a.product',
        'resale-b.prices',
        'resale-b.product',
        'resale-b.search',
        'sportswear.product',
        'electronics.product',
      ]),
    );
  });

  it.each(cases.map((c) => [`${c.op.name} ← ${c.label}`, c] as const))('%s', (_name, c) => {
    const report = checkCase(c, DERIVED[c.op.name], REPORTED[c.op.name], LIMITS);
    expect(report.findings).toEqual([]);
    expect(report.variants).toBeGreaterThan(20);
    expect(report.slowestMs).toBeLessThan(PARSE_BUDGET_MS);
  });
});
