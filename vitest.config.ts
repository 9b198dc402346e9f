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
  // 20 000 requests each over real sockets, client and service in one process: about 18 s of CPU per file, which
  // another file's load beside it stretches past 30 s (no timing is asserted; they need the time, not the quiet).
  'test/hostile-input-fuzz-sqlite.test.ts',
  'test/hostile-input-fuzz-postgres.test.ts',
  // restarts its own PostgreSQL under lookup load and waits on recovery
  'test/db-outage.test.ts',
  // a production install (npm ci --omit=dev), then /healthz within 5 s of the start
  'test/production-install.test.ts',
];

const shared = {
  testTimeout: 20_000,
  hookTimeout: 30_000,
  // Redis-backed suites share one server; files run in parallel but each test uses its own key prefix.
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    // Process tests spawn the compiled CLI: build dist from the current sources first (skipped when it already is).
    globalSetup: ['test/support/build-dist.ts'],
    // The default output, then the run's wall time and its 10 slowest files.
    reporters: ['default', './test/support/timing-reporter.ts'],
    projects: [
      {
        test: {
          ...shared,
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ALONE,
          // Three on two cores: process tests hold a worker mostly waiting on their child processes (servers, CLI
          // commands, schedules), and the other two keep both cores busy meanwhile.
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
