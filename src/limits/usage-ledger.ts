/**
 * The durable usage counts: requests per key per UTC day and month in the database (`usage_counts`). Requests only
 * add to an in-memory delta (no I/O on the request path); a timer writes the deltas in one transaction at most
 * FLUSH_MS after the first unwritten request, and close() (SIGTERM) writes the rest. A kill -9 loses what was not
 * written yet: FLUSH_MS plus the time the write in flight takes (README, "Database", for what that measured). Deltas
 * are added (`count = count + delta`), so any number of processes write without losing any. While the database is
 * unavailable the deltas are kept (one per key and period: bounded by the number of keys) and written when it is back.
 */
import type { Kysely } from 'kysely';
import type { Logger } from '../platform/logger.js';
import type { Database, StoreHealth } from '../store/index.js';
import { dayWindow, monthWindow } from './calendar.js';

/**
 * 100 ms, not 250: under load the write in flight takes long too (the next flush waits for it and for the re-sync
 * after it), and that adds to what a kill -9 loses — at 250 ms, 20–400 ms (SQLite) and 50–530 ms (PostgreSQL) were
 * measured at 0.4–6.5k req/s on a loaded 2-core machine, against 0–90 and 25–280 ms at 100 ms
 * (bench/usage-kill.ts). Ten small upserts a second per instance cost next to nothing.
 */
export const FLUSH_MS = 100;
const ERROR_LOG_EVERY_MS = 30_000;

export interface UsageTotals {
  daily: number;
  monthly: number;
}

export class UsageLedger {
  /** `keyId` → period (`2026-11-24` or `2026-11`) → requests not yet written */
  private pending = new Map<string, Map<string, number>>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<string[]>;
  private lastError = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log?: Logger,
    private readonly onFlushed?: (keyIds: string[]) => Promise<void>,
    /** Told when counts wait for the database and when they went through (/readyz). */
    private readonly health?: StoreHealth,
  ) {}

  /** Counts `n` requests of `keyId` now (synchronous, memory only) and schedules the write. */
  add(keyId: string, n = 1, now = Date.now()): void {
    let periods = this.pending.get(keyId);
    if (!periods) this.pending.set(keyId, (periods = new Map()));
    for (const period of [dayWindow(now).id, monthWindow(now).id]) periods.set(period, (periods.get(period) ?? 0) + n);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, FLUSH_MS).unref();
  }

  /** Requests of `keyId` in the current day/month counted here but not yet written. */
  unwritten(keyId: string, now = Date.now()): UsageTotals {
    const p = this.pending.get(keyId);
    return { daily: p?.get(dayWindow(now).id) ?? 0, monthly: p?.get(monthWindow(now).id) ?? 0 };
  }

  /** Writes every pending delta; returns the key ids written. One write at a time; on failure the deltas are kept. */
  async flush(): Promise<string[]> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return [];
    const batch = this.pending;
    this.pending = new Map();
    // The follow-up (onFlushed) is part of the flush, so it never sees another flush's half-state.
    this.flushing = (async () => {
      const written = await this.write(batch);
      if (written.length > 0 && this.onFlushed) await this.onFlushed(written).catch(() => undefined);
      return written;
    })().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Durable totals for the current day and month (written counts only). */
  async totals(keyIds: string[], now = Date.now()): Promise<Map<string, UsageTotals>> {
    const out = new Map<string, UsageTotals>();
    if (keyIds.length === 0) return out;
    const day = dayWindow(now).id;
    const month = monthWindow(now).id;
    const rows = await this.db
      .selectFrom('usage_counts')
      .select(['key_id', 'period', 'count'])
      .where('key_id', 'in', keyIds)
      .where('period', 'in', [day, month])
      .execute();
    for (const id of keyIds) out.set(id, { daily: 0, monthly: 0 });
    for (const r of rows) {
      const t = out.get(r.key_id)!;
      if (r.period === day) t.daily = r.count;
      else t.monthly = r.count;
    }
    return out;
  }

  /** Stops the timer and writes everything counted (SIGTERM loses nothing). */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
    if (this.pending.size > 0) await this.flush(); // one retry after a failed write
  }

  private async write(batch: Map<string, Map<string, number>>): Promise<string[]> {
    const now = Date.now();
    const rows = [...batch].flatMap(([key_id, periods]) =>
      [...periods].filter(([, n]) => n !== 0).map(([period, count]) => ({ key_id, period, count, updated_at: now })),
    );
    try {
      if (rows.length > 0) {
        await this.db
          .insertInto('usage_counts')
          .values(rows)
          .onConflict((oc) =>
            oc.columns(['key_id', 'period']).doUpdateSet((eb) => ({
              count: eb('usage_counts.count', '+', eb.ref('excluded.count')),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          )
          .execute();
      }
      this.health?.wrote('usage');
      return [...batch.keys()];
    } catch (e) {
      // Keep the counts for the next attempt rather than lose them (at most one delta per key and period: bounded by
      // the number of keys, however long the database is away).
      this.health?.unavailable('usage', e);
      for (const [keyId, periods] of batch) for (const [period, n] of periods) this.addRaw(keyId, period, n);
      if (now - this.lastError > ERROR_LOG_EVERY_MS) {
        this.lastError = now;
        this.log?.error(
          { err: { message: (e as Error).message } },
          'cannot write usage counts to the database; will retry',
        );
      }
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        void this.flush();
      }, FLUSH_MS * 4).unref();
      return [];
    }
  }

  private addRaw(keyId: string, period: string, n: number): void {
    let periods = this.pending.get(keyId);
    if (!periods) this.pending.set(keyId, (periods = new Map()));
    periods.set(period, (periods.get(period) ?? 0) + n);
  }
}
