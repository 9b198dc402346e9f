/**
 * A time given in a query parameter: ISO 8601 or milliseconds since the epoch, within the range a Date holds
 * (±8.64e15 ms, about ±275 760 years). Further out it is no time: `new Date(ms)` cannot print it, and PostgreSQL's
 * bigint columns refuse values past 2^63 (`where[createdAt][equals]=99999999999999999999` was a 500; issue 27).
 * @example parseTimeParam('2026-11-24') // 1795478400000
 * @example parseTimeParam('99999999999999999999') // undefined
 */
import { invalidParam } from '../errors.js';

const MAX_DATE_MS = 8.64e15;
const DAY_MS = 86_400_000;
export const EARLIEST_TIME_MS = -MAX_DATE_MS;

export function parseTimeParam(raw: string): number | undefined {
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : undefined;
}

/**
 * A series' `from`/`to` query parameters (`str` reads one, undefined when absent): `to` defaults to now, `from` to 30
 * days before it (never before the earliest time a Date holds); a 400 names the malformed or misordered one.
 */
export function parseTimeRange(
  str: (k: 'from' | 'to') => string | undefined,
  now: number,
): { from: number; to: number } {
  const time = (k: 'from' | 'to', def: number): number => {
    const v = str(k);
    if (v === undefined) return def;
    const ms = parseTimeParam(v);
    if (ms === undefined) throw invalidParam(k, 'must be an ISO 8601 date or time');
    return ms;
  };
  const to = time('to', now + 1);
  // The default start stays a time a Date holds, even for a `to` at the very start of that range.
  const from = time('from', Math.max(to - 30 * DAY_MS, EARLIEST_TIME_MS));
  if (from >= to) {
    if (str('from') === undefined) throw invalidParam('to', 'must be later than the earliest time a date holds');
    throw invalidParam('from', 'must be before to');
  }
  return { from, to };
}
