/** Durable usage counts on both engines: writers add up, nothing is lost when a write fails, periods are UTC. */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { describe, expect, it } from 'vitest';
import { UsageLedger } from '../src/limits/usage-ledger.js';
import { ENGINES, engineAvailable, openTestStore } from './support/stores.js';

describe.each(ENGINES)('usage ledger on %s', (engine) => {
  const test = it.skipIf(!engineAvailable(engine));

  test('two writers (instances) add up; the day and month periods are separate rows', async () => {
    const store = await openTestStore(engine);
    try {
      const a = new UsageLedger(store.db);
      const b = new UsageLedger(store.db);
      const now = Date.UTC(2026, 10, 24, 12);
      for (let i = 0; i < 30; i++) (i % 3 === 0 ? b : a).add('k1', 1, now);
      a.add('k2', 5, now);
      // Concurrent flushes from both, twice each: counts are added, never overwritten.
      await Promise.all([a.flush(), b.flush()]);
      a.add('k1', 2, now);
      await Promise.all([a.flush(), b.flush()]);
      expect(await a.totals(['k1', 'k2', 'k3'], now)).toEqual(
        new Map([
          ['k1', { daily: 32, monthly: 32 }],
          ['k2', { daily: 5, monthly: 5 }],
          ['k3', { daily: 0, monthly: 0 }],
        ]),
      );
      // The next UTC day starts from zero; the month keeps counting.
      const tomorrow = Date.UTC(2026, 10, 25, 0, 0, 1);
      a.add('k1', 1, tomorrow);
      await a.close();
      expect((await a.totals(['k1'], tomorrow)).get('k1')).toEqual({ daily: 1, monthly: 33 });
    } finally {
      await store.close();
    }
  });

  test('a failed write keeps the counts for the next attempt', async () => {
    const store = await openTestStore(engine);
    try {
      const errors: string[] = [];
      const ledger = new UsageLedger(store.db, { ...SILENT_LOGGER, error: (_o, m) => void errors.push(m ?? '') });
      ledger.add('k', 4);
      await store.db.schema.alterTable('usage_counts').renameTo('usage_counts_away').execute();
      expect(await ledger.flush()).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(ledger.unwritten('k')).toEqual({ daily: 4, monthly: 4 });
      await store.db.schema.alterTable('usage_counts_away').renameTo('usage_counts').execute();
      await ledger.close();
      expect((await ledger.totals(['k'])).get('k')).toEqual({ daily: 4, monthly: 4 });
    } finally {
      await store.close();
    }
  });
});
