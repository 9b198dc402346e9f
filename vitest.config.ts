import { defineConfig } from 'vitest/config';

/**
 * Files that measure timing under load (socket floods, load rounds, shutdown and kill -9 of real processes, event-loop
 * stalls): a second file's CPU load beside them makes those measurements fail, not the service. They run alone,
 * after the rest has run several files at a time.
 */
const ALONE = [
  'test/connection-limits.test.ts',
  'test/shutdown.test.ts',
  'test/big-page.test.ts',
  'test/upstream-socket-deadline.test.ts',
  'test/redis-stall.test.ts',
  'test/workers.test.ts',
  // restarts its own PostgreSQL under lookup load and waits on recovery
  'test/db-outage.test.ts',
  // a production install (npm ci --omit=dev), then /healthz within 5 s of the start
  'test/production-install.test.ts',
];

/**
 * Floods and soaks: load by nature, minutes of CPU between them. `npm run test:long` runs them (vitest.long.config.ts,
 * one file at a time), after `npm test` in CI; `npm test` leaves them out.
 */
export const LONG = [
  // 20 000 requests each over real sockets, client and service in one process: about 18 s of CPU per file (no timing
  // is asserted; they need the time, not the quiet). Their judge is checked in npm test (hostile-fuzz-judge).
  'test/hostile-input-fuzz-sqlite.test.ts',
  'test/hostile-input-fuzz-postgres.test.ts',
  // 50 connections of mixed traffic for two rounds, then the heap (`npm run bench:load` is the full one).
  'test/load-short.test.ts',
  // 5 000 silent connections, closed within the idle timeout (the connection limits themselves: npm test).
  'test/connection-flood.test.ts',
];

export const shared = {
  testTimeout: 20_000,
  hookTimeout: 30_000,
  // Redis-backed suites share one server; files run in parallel but each test uses its own key prefix.
  pool: 'forks' as const,
};

/** What both commands share: dist built first, and the same reporters. */
export const common = {
  // Process tests spawn the compiled CLI: build dist from the current sources first (skipped when it already is).
  globalSetup: ['test/support/build-dist.ts'],
  // The default output, then the run's wall time and its 10 slowest files.
  reporters: ['default', './test/support/timing-reporter.ts'],
};

export default defineConfig({
  test: {
    ...common,
    projects: [
      {
        test: {
          ...shared,
          name: 'parallel',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...ALONE, ...LONG],
          // Three on two cores: process tests hold a worker mostly waiting on their child processes (servers, CLI
          // commands, schedules), and the other two keep both cores busy meanwhile.
          maxWorkers: 3,
          // Files in one worker share its module cache: the app's module graph is evaluated once per worker instead
          // of once per file (isolated, imports took ~105 s of the run's CPU; shared, ~14 s). The files keep no state
          // in modules: no module mocks, no global stubs, every server, timer and connection closed in its hooks.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // One worker, so its files share one module cache as well.
        test: { ...shared, name: 'alone', include: ALONE, maxWorkers: 1, isolate: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
