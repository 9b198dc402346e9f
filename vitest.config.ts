import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Redis-backed suites share one server; files run in parallel but each test uses its own key prefix.
    pool: 'forks',
    // Two files at a time: several suites mostly wait (child processes, a 3-minute cluster run, timers); vitest's
    // default on a 2-core machine would be one.
    maxWorkers: 2,
  },
});
