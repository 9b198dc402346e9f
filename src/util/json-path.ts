/**
 * Reading untrusted JSON without `any`: a path of keys and indexes walked with narrowing at each step, so a missing
 * or differently shaped node is `undefined`, never a TypeError.
 */

/** A plain object (not an array, not null), or undefined. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * The value at a path of object keys and array indexes, or undefined where the path leaves the JSON.
 * @example at({ a: [{ b: 1 }] }, 'a', 0, 'b') // 1
 */
export function at(v: unknown, ...path: (string | number)[]): unknown {
  let here = v;
  for (const step of path) {
    if (typeof step === 'number') here = Array.isArray(here) ? (here as unknown[])[step] : undefined;
    else here = asRecord(here)?.[step];
    if (here === undefined) return undefined;
  }
  return here;
}
