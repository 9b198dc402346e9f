/**
 * Names that reach an object's prototype when request text becomes an object key (`obj['__proto__']` is
 * Object.prototype). Request input never needs them, so every parser of request keys refuses them (issue 27).
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Whether a key, or one of its bracket or dot segments (`a[b]`, `a.b`), is `__proto__`, `constructor` or
 * `prototype`.
 * @example hasPrototypeSegment('where[__proto__][equals]') // true
 */
export function hasPrototypeSegment(key: string): boolean {
  if (PROTOTYPE_KEYS.has(key)) return true;
  // A plain key (every lookup parameter) has no segments: nothing to split on the cached-hit path.
  if (!key.includes('[') && !key.includes('.')) return false;
  return key.split(/[[\].]/).some((segment) => PROTOTYPE_KEYS.has(segment));
}
