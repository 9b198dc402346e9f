/**
 * The query parameters every price-series route shares (the price history and the product history): one reader for
 * single-valued parameters, and `from`/`to`, `interval`, `kind` and `format` checked against their closed lists. A
 * malformed one is a 400 naming it.
 */
import { invalidParam } from '../errors.js';
import { PRICE_KINDS } from './observation.js';
import { INTERVALS, type Interval } from './series.js';
import { parseTimeRange } from './time-param.js';

export type SeriesFormat = 'json' | 'csv' | 'svg';
const FORMATS: readonly string[] = ['json', 'csv', 'svg'] satisfies SeriesFormat[];

/** Reads one parameter of `query`: undefined when absent, a 400 when it was given more than once. */
export function singleValued(query: Record<string, unknown>): (k: string) => string | undefined {
  return (k) => {
    const v = query[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw invalidParam(k, 'must be given once');
    return v;
  };
}

export function seriesParams(
  str: (k: string) => string | undefined,
  now: number,
): { from: number; to: number; interval?: Interval; kind?: string; format?: SeriesFormat } {
  const { from, to } = parseTimeRange(str, now);
  const interval = str('interval');
  if (interval !== undefined && !Object.hasOwn(INTERVALS, interval))
    throw invalidParam('interval', 'must be hour, day or week');
  const kind = str('kind');
  if (kind !== undefined && !(PRICE_KINDS as readonly string[]).includes(kind))
    throw invalidParam('kind', `must be one of ${PRICE_KINDS.join(', ')}`);
  const format = str('format');
  if (format !== undefined && !FORMATS.includes(format)) throw invalidParam('format', 'must be json, csv or svg');
  return { from, to, interval: interval as Interval | undefined, kind, format: format as SeriesFormat | undefined };
}
