/**
 * A price series for one lookup (its cache key): raw points, or min/max/last per hour/day/week bucket, one line per
 * size × kind × condition × currency.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export const INTERVALS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;
export type Interval = keyof typeof INTERVALS;

export interface SeriesQuery {
  /** The lookup's rows (its cache key)… */
  lookupKey?: string;
  /** …or every row of one marketplace product, whichever lookup recorded it (a product's history by SKU). */
  product?: { marketplace: string; productId: string };
  from: number;
  to: number;
  size?: string;
  /** Only these size labels; null stands for the product-level prices (no size). */
  sizes?: readonly (string | null)[];
  kind?: string;
  interval?: Interval;
}

export interface SeriesPoint {
  t: string;
  min: number;
  max: number;
  last: number;
  count: number;
}

export interface Series {
  size: string | null;
  kind: string;
  condition: string | null;
  currency: string;
  points: SeriesPoint[];
}

/** Weeks start on Monday (UTC); 1970-01-01 was a Thursday, so week buckets are shifted by 4 days. */
const WEEK_OFFSET = 4 * 86_400_000;

export function bucketStart(ms: number, interval: Interval | undefined): number {
  if (!interval) return ms;
  const w = INTERVALS[interval];
  const off = interval === 'week' ? WEEK_OFFSET : 0;
  return Math.floor((ms - off) / w) * w + off;
}

export async function querySeries(db: Kysely<Database>, q: SeriesQuery): Promise<Series[]> {
  return q.interval ? bucketed(db, q, q.interval) : raw(db, q);
}

/**
 * Buckets in SQL: only one row per bucket and line comes back to JavaScript.
 */
async function bucketed(db: Kysely<Database>, q: SeriesQuery, interval: Interval): Promise<Series[]> {
  const step = sql.lit(INTERVALS[interval]);
  const off = sql.lit(interval === 'week' ? WEEK_OFFSET : 0);
  const filters = [selector(q, ''), sql`observed_at >= ${q.from}`, sql`observed_at < ${q.to}`];
  if (q.size !== undefined) filters.push(sql`size = ${q.size}`);
  if (q.sizes !== undefined) filters.push(sizeIn(q.sizes));
  if (q.kind !== undefined) filters.push(sql`kind = ${q.kind}`);
  // GROUP BY gives min/max/count and the time of the last price per bucket and line; the last price itself is read
  // back by that time through the covering index (portable: no engine's bare-column or DISTINCT ON behaviour).
  const { rows } = await sql<{
    bucket: number | string;
    size: string | null;
    kind: string;
    condition: string | null;
    currency: string;
    mn: number;
    mx: number;
    last: number;
    n: number | string;
  }>`
    select g.bucket, g.size, g.kind, g.condition, g.currency, g.mn, g.mx, g.n,
      (select max(p.amount) from history_prices p
        where ${selector(q, 'p.')} and p.observed_at = g.last_at and p.size is not distinct from g.size and p.kind = g.kind
          and p.condition is not distinct from g.condition and p.currency = g.currency) as last
    from (
      select observed_at - ((observed_at - ${off}) % ${step}) as bucket, size, kind, condition, currency,
        min(amount) as mn, max(amount) as mx, count(*) as n, max(observed_at) as last_at
      from history_prices where ${sql.join(filters, sql` and `)}
      group by observed_at - ((observed_at - ${off}) % ${step}), size, kind, condition, currency
    ) g order by g.bucket`.execute(db);
  const lines = new Map<string, Series>();
  for (const r of rows) {
    const id = `${r.size}\u0000${r.kind}\u0000${r.condition}\u0000${r.currency}`;
    let s = lines.get(id);
    if (!s)
      lines.set(id, (s = { size: r.size, kind: r.kind, condition: r.condition, currency: r.currency, points: [] }));
    s.points.push({
      t: new Date(Number(r.bucket)).toISOString(),
      min: Number(r.mn),
      max: Number(r.mx),
      last: Number(r.last),
      count: Number(r.n),
    });
  }
  return sortLines([...lines.values()]);
}

async function raw(db: Kysely<Database>, q: SeriesQuery): Promise<Series[]> {
  let sel = db
    .selectFrom('history_prices')
    .select(['size', 'kind', 'condition', 'currency', 'amount', 'observed_at'])
    .where(selector(q, ''))
    .where('observed_at', '>=', q.from)
    .where('observed_at', '<', q.to);
  if (q.size !== undefined) sel = sel.where('size', '=', q.size);
  if (q.sizes !== undefined) sel = sel.where(sizeIn(q.sizes));
  if (q.kind !== undefined) sel = sel.where('kind', '=', q.kind);
  // Ordered by time on the (lookup_key, observed_at) index, so "last" is simply the last row seen per bucket.
  const rows = await sel.orderBy('observed_at', 'asc').execute();
  const lines = new Map<string, Series & { open?: SeriesPoint; openT?: number }>();
  for (const r of rows) {
    const id = `${r.size}\u0000${r.kind}\u0000${r.condition}\u0000${r.currency}`;
    let s = lines.get(id);
    if (!s)
      lines.set(id, (s = { size: r.size, kind: r.kind, condition: r.condition, currency: r.currency, points: [] }));
    const t = bucketStart(Number(r.observed_at), q.interval);
    const amount = Number(r.amount);
    if (s.open && s.openT === t) {
      s.open.min = Math.min(s.open.min, amount);
      s.open.max = Math.max(s.open.max, amount);
      s.open.last = amount;
      s.open.count++;
    } else {
      s.open = { t: new Date(t).toISOString(), min: amount, max: amount, last: amount, count: 1 };
      s.openT = t;
      s.points.push(s.open);
    }
  }
  return sortLines(
    [...lines.values()].map(({ size, kind, condition, currency, points }) => ({
      size,
      kind,
      condition,
      currency,
      points,
    })),
  );
}

/** The rows of the lookup or of the marketplace product (`p.` in the correlated subquery). */
function selector(q: SeriesQuery, alias: '' | 'p.') {
  const col = (name: string) => sql.ref(`${alias}${name}`);
  if (q.product)
    return sql<boolean>`${col('marketplace')} = ${q.product.marketplace} and ${col('product_id')} = ${q.product.productId}`;
  if (q.lookupKey === undefined) throw new Error('a series needs a lookup key or a product');
  return sql<boolean>`${col('lookup_key')} = ${q.lookupKey}`;
}

function sizeIn(sizes: readonly (string | null)[]) {
  const labels = sizes.filter((s): s is string => s !== null);
  const alternatives = labels.length > 0 ? [sql`size in (${sql.join(labels)})`] : [sql`1 = 0`];
  if (sizes.includes(null)) alternatives.push(sql`size is null`);
  return sql<boolean>`(${sql.join(alternatives, sql` or `)})`;
}

function sortLines(lines: Series[]): Series[] {
  return lines.sort(
    (a, b) => String(a.size).localeCompare(String(b.size), 'en', { numeric: true }) || a.kind.localeCompare(b.kind),
  );
}
