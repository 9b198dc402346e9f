/**
 * Text from upstreams made storable on both engines. PostgreSQL refuses a NUL (`\u0000`) in text, and a lone UTF-16
 * surrogate has no UTF-8 form (PostgreSQL refuses it; SQLite would store replacement bytes). Neither is ever
 * meaningful in a product name, URL or size, so they are removed before a row is written rather than letting the
 * database refuse it. The same test decides which request text is refused (src/server/request-input-guard.ts).
 */

/** NUL, or a surrogate that is not half of a pair (the `u` flag reads a valid pair as one code point). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'gu');

/** The first character of `text` a store cannot hold (NUL or a lone surrogate), or undefined. */
export function unstorableCharacter(text: string): string | undefined {
  return UNSTORABLE.exec(text)?.[0];
}

/** `text` without NULs and lone surrogates (the same string when it has none). */
export function storableText(text: string): string {
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE_ALL, '') : text;
}

/** A row whose string values are all storable (other values untouched). */
export function storableRow<T extends object>(row: T): T {
  let out: T | undefined;
  for (const [k, v] of Object.entries(row)) {
    if (typeof v !== 'string') continue;
    const clean = storableText(v);
    if (clean === v) continue;
    out ??= { ...row };
    (out as Record<string, unknown>)[k] = clean;
  }
  return out ?? row;
}
