import { defineConfig } from 'vitest/config';
import { LONG, common, shared } from './vitest.config.js';

/**
 * `npm run test:long`: the floods and soaks `npm test` leaves out (LONG in vitest.config.ts), one file at a time
 * (each is load by itself), with the same setup and reporters.
 */
export default defineConfig({
  test: { ...common, ...shared, name: 'long', include: LONG, maxWorkers: 1, fileParallelism: false },
});
