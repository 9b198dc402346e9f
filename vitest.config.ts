import { defineConfig } from 'vitest/config';

/**
 * Files that measure timing under load (socket floods, load rounds, shutdown and kill -9 of real processes, event-loop
 * stalls): a second file's CPU load beside them makes those measurements fail, not the service. They run alone,
 * after the rest has run several files at a time.
 */
const ALONE = [
  'test/connection-limits.test.ts',
  'test/load-short.test.ts',
  'test/shutdown.test.ts',
  'test/big-page.test.ts',
  'test/upstream-socket-deadline.test.ts',
  'test/redis-stall.test.ts',
  'test/workers.test.ts',
  // restarts its own PostgreSQL under lookup load and waits on recovery
  'test/db-outage.test.ts',
];

const shared = {
  testTimeout: 20_000,
  hookTimeout: 30_000,
  // Redis-backed suites share one server; files run in parallel but each test uses its own key prefix.
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ALONE,
          // Three on two cores: test/history/cluster.test.ts holds one worker for 3 minutes mostly waiting on its
          // servers' schedule, and the other two keep both cores busy meanwhile.
          maxWorkers: 3,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: { ...shared, name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
