/**
 * A time given in a query parameter: ISO 8601 or milliseconds since the epoch, within the range a Date holds
 * (±8.64e15 ms, about ±275 760 years). Further out it is no time: `new Date(ms)` cannot print it, and PostgreSQL's
 * bigint columns refuse values past 2^63 (`where[createdAt][equals]=99999999999999999999` was a 500; issue 27).
 * @example parseTimeParam('2026-11-24') // 1795478400000
 * @example parseTimeParam('99999999999999999999') // undefined
 */
const MAX_DATE_MS = 8.64e15;
export const EARLIEST_TIME_MS = -MAX_DATE_MS;

export function parseTimeParam(raw: string): number | undefined {
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : undefined;
}
