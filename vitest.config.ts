import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Redis-backed suites share one server; files run in parallel but each test uses its own key prefix.
    pool: 'forks',
    // One file at a time on this 2-core machine (vitest's default, cores - 1): the socket-flood and process suites
    // measure timing, and a second file's CPU load makes those measurements, not the service, fail.
  },
});
