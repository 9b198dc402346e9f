/**
 * The last value seen per product/size/kind/condition/country (and per watch search, per failing lookup), kept in
 * the database. Every write is a compare-and-set on a version, so when several instances observe the same change at
 * once exactly one of them wins the swap and emits the event; the others see "unchanged".
 */
import type { Kysely } from 'kysely';
import { storableText } from '../store/storable-text.js';
import type { AlertTables } from './schema.js';

export type Swap<T> = { changed: true; old: T | null } | { changed: false };

const MAX_RACES = 5;

export class AlertState {
  constructor(private readonly db: Kysely<AlertTables>) {}

  /**
   * Stores `next` under `key` unless it equals the stored value or the stored value was observed later.
   * Answers whether this call changed it, and the value it replaced (null the first time).
   */
  async swap<T>(key: string, next: T, observedAt: number, equal: (a: T, b: T) => boolean): Promise<Swap<T>> {
    return this.update<T>(key, () => next, observedAt, equal);
  }

  /**
   * `swap` for a value built from the stored one (a running record such as the daily lows): `next` is called with
   * the value it would replace (null the first time), again after a lost race.
   */
  async update<T>(
    key: string,
    next: (old: T | null) => T,
    observedAt: number,
    equal: (a: T, b: T) => boolean,
  ): Promise<Swap<T>> {
    // Keys are built from upstream values: a NUL or lone surrogate in one would make PostgreSQL refuse the whole
    // detection group. (The value is JSON: those are escaped there.)
    key = storableText(key);
    for (let race = 0; race < MAX_RACES; race++) {
      const row = await this.db
        .selectFrom('alert_state')
        .select(['value', 'version', 'observed_at'])
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row) {
        const value = JSON.stringify(next(null));
        const inserted = await this.db
          .insertInto('alert_state')
          .values({ key, value, observed_at: observedAt, version: 1 })
          .onConflict((oc) => oc.column('key').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { changed: true, old: null };
        continue; // another instance inserted first: compare against its value
      }
      if (Number(row.observed_at) > observedAt) return { changed: false }; // an older observation arrived late
      const old = JSON.parse(row.value) as T;
      const fresh = next(old);
      if (equal(old, fresh)) return { changed: false };
      const value = JSON.stringify(fresh);
      const updated = await this.db
        .updateTable('alert_state')
        .set({ value, observed_at: observedAt, version: row.version + 1 })
        .where('key', '=', key)
        .where('version', '=', row.version)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 1) return { changed: true, old };
    }
    return { changed: false };
  }

  /** Forgets `key` only if its value was observed before `observedAt`: a later value is news a late report must not undo. */
  async forgetBefore(key: string, observedAt: number): Promise<void> {
    await this.db
      .deleteFrom('alert_state')
      .where('key', '=', storableText(key))
      .where('observed_at', '<', observedAt)
      .execute();
  }
}
