/**
 * Typed readers for untrusted upstream JSON: each returns the value in the spec's type, or null when upstream lacks
 * it. Numbers become strings only where the spec wants a string (ids Best Buy sends either way).
 */

/** A plain object (not array, not null), or undefined. */
export function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** An array, or undefined. */
export function arr(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

/**
 * @example str(6534615) // '6534615'
 */
export function str(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** A finite number, or null (numeric strings are not numbers here: a type change upstream must not slip through). */
export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A boolean; the strings "true"/"false" (as some component props carry them) count too. */
export function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return null;
}

/** An array of strings, or null when upstream sent no array. */
export function strArr(v: unknown): string[] | null {
  const a = arr(v);
  return a ? a.filter((x): x is string => typeof x === 'string') : null;
}

/** The first value that is neither null nor undefined. */
export function first<T>(...values: (T | null | undefined)[]): T | null {
  for (const v of values) if (v !== null && v !== undefined) return v;
  return null;
}
