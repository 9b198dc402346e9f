/** The hostile-input fuzz (test/support/hostile-fuzz.ts) on SQLite (`npm run test:long`; its judge: hostile-fuzz-judge). */
import { describeHostileFuzz } from './support/hostile-fuzz.js';

describeHostileFuzz('sqlite');
