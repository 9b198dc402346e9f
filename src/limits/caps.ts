/**
 * Caps on what one key may own (webhook subscriptions, tracked products; issue 27): the count and the insert run in
 * one transaction holding a lock on (what, key), so parallel creates — in one process or across instances on one
 * database — never overshoot the cap.
 * - SQLite: the store's transactions are BEGIN IMMEDIATE (src/store/sqlite-dialect.ts), the one write lock of the
 *   file: creates of every key queue behind each other, across processes too.
 * - PostgreSQL: a transaction-scoped advisory lock on (what, key): creates of one key queue, other keys do not wait.
 *   Read committed gives the count, run after the lock is granted, every row committed before it.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { MarketlensError } from '../errors.js';
import type { Engine } from '../store/index.js';

export interface KeyCap {
  /** What is capped, in words for the problem detail: `webhook subscriptions`, `tracked products`. */
  what: string;
  /** The most one key may own. */
  max: number;
}

/**
 * Runs `create` only if the key owns fewer than `cap.max` (as `count` says), else 409 `limit_reached` naming the cap.
 * @example await createWithinCap(db, 'sqlite', { what: 'tracked products', max: 1000 }, keyId, countOwned, insert)
 */
export async function createWithinCap<DB, T>(
  db: Kysely<DB>,
  engine: Engine,
  cap: KeyCap,
  keyId: string,
  count: (trx: Transaction<DB>) => Promise<number>,
  create: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    if (engine === 'postgres')
      await sql`select pg_advisory_xact_lock(hashtext(${`${cap.what}|${keyId}`}))`.execute(trx);
    const owned = await count(trx);
    if (owned >= cap.max) throw limitReached(cap);
    return create(trx);
  });
}

export function limitReached(cap: KeyCap): MarketlensError {
  return new MarketlensError(
    'limit_reached',
    `This key has ${cap.max} ${cap.what}, the most allowed per key; delete one before adding another`,
  );
}
