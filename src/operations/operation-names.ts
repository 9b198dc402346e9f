/**
 * The built-in operations' names: `satisfies Record<OperationName, Operation>` in registry.ts makes a missing one a
 * compile error. Apart from types.ts so that what observes lookups (live-results.ts, the history's observations) can
 * name an operation while an operation names what it records (no import cycle).
 */
export const OPERATION_NAMES = [
  'watchmarket.finder',
  'watchmarket.search',
  'resale-a.search',
  'resale-a.product',
  'resale-b.prices',
  'resale-b.product',
  'sportswear.product',
  'electronics.product',
  // Beyond the spec (CONTRACT §8).
  'resale-a.trends',
  'resale-b.search',
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];
