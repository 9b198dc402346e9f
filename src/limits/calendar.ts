/** Quota windows are calendar days and months in UTC, so "daily" means what an invoice means. */

export interface Window {
  /** `2026-11-21` or `2026-11`: part of the counter's key, so a new window starts from zero. */
  id: string;
  /** When the window began and ends (ms since epoch). */
  startAt: number;
  resetAt: number;
}

let lastDay: Window | undefined;
let lastMonth: Window | undefined;

/** @example dayWindow(Date.UTC(2026, 10, 21, 20)).id // '2026-11-21' */
export function dayWindow(now: number): Window {
  // Every request asks: answer from the last window while `now` is inside it.
  if (lastDay && now < lastDay.resetAt && now >= lastDay.startAt) return lastDay;
  return (lastDay = computeDay(now));
}

/** @example monthWindow(Date.UTC(2026, 10, 21)).id // '2026-11' */
export function monthWindow(now: number): Window {
  if (lastMonth && now < lastMonth.resetAt && now >= lastMonth.startAt) return lastMonth;
  return (lastMonth = computeMonth(now));
}

function computeDay(now: number): Window {
  const d = new Date(now);
  return {
    id: d.toISOString().slice(0, 10),
    startAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()),
    resetAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1),
  };
}

function computeMonth(now: number): Window {
  const d = new Date(now);
  return {
    id: d.toISOString().slice(0, 7),
    startAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    resetAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
  };
}

/** Whole seconds until `at`, at least 1 (a counter must outlive the current second). */
export function secondsUntil(at: number, now: number): number {
  return Math.max(1, Math.ceil((at - now) / 1000));
}
