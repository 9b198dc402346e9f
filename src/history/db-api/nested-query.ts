/**
 * Payload/Retailed bracket keys (`where[or][0][and][0][size][equals]=10`) → a nested object. Fastify's default
 * query-string parser keeps such keys flat, so the db routes read the raw query string and nest it here.
 *
 * Every level is an object without a prototype, and a key segment naming one (`__proto__`, `constructor`,
 * `prototype`) is a 400: with a plain object, `where[__proto__][equals]=x` walked onto Object.prototype and wrote
 * `equals` there for the whole process (issue 27). The route's validator refuses such keys first
 * (src/server/request-input-guard.ts); this parser does not rely on it.
 */
import querystring from 'fast-querystring';
import { invalidParam } from '../../errors.js';
import { hasPrototypeSegment } from '../../util/prototype-keys.js';

export type Nested = string | string[] | NestedObject;
export interface NestedObject {
  [key: string]: Nested;
}

const MAX_DEPTH = 8;
const MAX_KEYS = 200;

/** `a[b][c]` → ['a', 'b', 'c']; null when the brackets are malformed. */
export function splitKey(key: string): string[] | null {
  const m = key.match(/^([^[\]]+)((?:\[[^[\]]*\])*)$/);
  if (!m) return null;
  const rest = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!);
  return [m[1]!, ...rest];
}

/** A level of the nested query: no prototype, so no key read or written on it reaches one. */
function level(): NestedObject {
  return Object.create(null) as NestedObject;
}

/**
 * Parses a raw query string (without `?`) into nested objects; a repeated plain key becomes an array. Decoded by
 * the parser Fastify's router uses (fast-querystring), so the values are the ones the route's validator checked.
 */
export function parseNestedQuery(raw: string): NestedObject {
  const out = level();
  const flat = querystring.parse(raw) as Record<string, string | string[]>;
  let count = 0;
  for (const [key, values] of Object.entries(flat)) {
    const parts = splitKey(key);
    if (!parts) throw invalidParam(key, 'malformed bracket key');
    if (hasPrototypeSegment(key))
      throw invalidParam(key, 'a key segment may not be __proto__, constructor or prototype');
    // `in[]=a&in[]=b` is the same list as `in=a&in=b`.
    const path = parts[parts.length - 1] === '' ? parts.slice(0, -1) : parts;
    if (path.length > MAX_DEPTH || path.includes(''))
      throw invalidParam(key, `malformed or deeper than ${MAX_DEPTH} levels`);
    let node = out;
    for (let i = 0; i < path.length - 1; i++) {
      const part = path[i]!;
      const next = node[part];
      if (next === undefined) node = node[part] = level();
      else if (typeof next === 'object' && !Array.isArray(next)) node = next;
      else throw invalidParam(key, `conflicts with ${path.slice(0, i + 1).join('.')}`);
    }
    const last = path[path.length - 1]!;
    for (const value of Array.isArray(values) ? values : [values]) {
      if (++count > MAX_KEYS) throw invalidParam('where', `at most ${MAX_KEYS} query parameters`);
      const prev = node[last];
      if (prev === undefined) node[last] = value;
      else if (typeof prev === 'string') node[last] = [prev, value];
      else if (Array.isArray(prev)) prev.push(value);
      else throw invalidParam(key, 'given both as a value and as an object');
    }
  }
  return out;
}
