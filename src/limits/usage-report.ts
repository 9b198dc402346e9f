/**
 * Usage counts for `marketlens keys list` (a separate process from the servers): the durable daily/monthly counts
 * every server writes to the database (at most a flush interval behind, usage-ledger.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/index.js';
import { UsageLedger } from './usage-ledger.js';

export interface KeyUsage {
  used_today: number;
  used_this_month: number;
}

/**
 * @example await readUsageCounts(store.db, ['env-1a2b3c4d']) // Map { 'env-1a2b3c4d' => { used_today: 3, used_this_month: 41 } }
 */
export async function readUsageCounts(db: Kysely<Database>, keyIds: string[]): Promise<Map<string, KeyUsage>> {
  const totals = await new UsageLedger(db).totals(keyIds);
  return new Map([...totals].map(([id, t]) => [id, { used_today: t.daily, used_this_month: t.monthly }]));
}
