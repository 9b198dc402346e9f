/**
 * Text from upstreams made storable on both engines. PostgreSQL refuses a NUL (`\u0000`) in text, and a lone UTF-16
 * surrogate has no UTF-8 form (PostgreSQL refuses it; SQLite would store replacement bytes). Neither is ever
 * meaningful in a product name, URL or size, so they are removed before a row is written rather than letting the
 * database refuse it.
 */

/** NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Any NUL or surrogate: a quick scan that lets the common case skip the replace. */
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** `text` without NULs and lone surrogates (the same string when it has none). */
export function storableText(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return text.replace(UNSTORABLE, '');
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
