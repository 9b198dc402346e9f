/**
 * Payload/Retailed bracket keys (`where[or][0][and][0][size][equals]=10`) → a nested object. Fastify's default
 * query-string parser keeps such keys flat, so the db routes read the raw query string and nest it here.
 */
import { invalidParam } from '../../errors.js';

export type Nested = string | string[] | { [key: string]: Nested };

const MAX_DEPTH = 8;
const MAX_KEYS = 200;

/** `a[b][c]` → ['a', 'b', 'c']; null when the brackets are malformed. */
export function splitKey(key: string): string[] | null {
  const m = key.match(/^([^[\]]+)((?:\[[^[\]]*\])*)$/);
  if (!m) return null;
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!);
  return [m[1]!, ...rest];
}

/** Parses a raw query string (without `?`) into nested objects; a repeated plain key becomes an array. */
export function parseNestedQuery(raw: string): Record<string, Nested> {
  const out: Record<string, Nested> = {};
  const params = new URLSearchParams(raw);
  let count = 0;
  for (const [key, value] of params) {
    if (++count > MAX_KEYS) throw invalidParam('where', `at most ${MAX_KEYS} query parameters`);
    const parts = splitKey(key);
    if (!parts) throw invalidParam(key, 'malformed bracket key');
    // `in[]=a&in[]=b` is the same list as `in=a&in=b`.
    const path = parts[parts.length - 1] === '' ? parts.slice(0, -1) : parts;
    if (path.length > MAX_DEPTH || path.includes(''))
      throw invalidParam(key, `malformed or deeper than ${MAX_DEPTH} levels`);
    let node: Record<string, Nested> = out;
    for (let i = 0; i < path.length - 1; i++) {
      const part = path[i]!;
      const next = node[part];
      if (next === undefined) node = node[part] = {} as Record<string, Nested>;
      else if (typeof next === 'object' && !Array.isArray(next)) node = next;
      else throw invalidParam(key, `conflicts with ${path.slice(0, i + 1).join('.')}`);
    }
    const last = path[path.length - 1]!;
    const prev = node[last];
    if (prev === undefined) node[last] = value;
    else if (typeof prev === 'string') node[last] = [prev, value];
    else if (Array.isArray(prev)) prev.push(value);
    else throw invalidParam(key, 'given both as a value and as an object');
  }
  return out;
}
