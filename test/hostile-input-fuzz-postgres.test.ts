/** The hostile-input fuzz (test/support/hostile-fuzz.ts) on PostgreSQL; its own file so it runs beside SQLite's. */
import { describeHostileFuzz } from './support/hostile-fuzz.js';

describeHostileFuzz('postgres');
