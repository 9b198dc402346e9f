/**
 * Figure — usage counts lost to `kill -9` under load (issue 27, item 10). The real `marketlens serve` (through tsx,
 * as the tests run it) on a fresh database; autocannon in this process sends authenticated requests (a 400 for a
 * missing parameter: counted like any request, no upstream) for BENCH_LOAD_MS, then the server is killed with
 * SIGKILL while the load runs. Loss = the time from the first answered request the database does not count to the
 * kill (answers are counted in the order they are served). BENCH_ROUNDS rounds per engine (BENCH_ENGINES, default
 * `sqlite,postgres`). Run alone: `npx tsx bench/usage-kill.ts`.
 */
import { createHash } from 'node:crypto';
import autocannon from 'autocannon';
import { openStore } from '../src/store/index.js';
import { TEST_KEY } from '../test/support/app.js';
import { startServe } from '../test/support/binary.js';
import { createTestDatabase, engineAvailable } from '../test/support/stores.js';
import { envInt } from './lib/stats.js';

const KEY_ID = `env-${createHash('sha256').update(TEST_KEY).digest('hex').slice(0, 8)}`;
const ROUNDS = envInt('BENCH_ROUNDS', 5);
const LOAD_MS = envInt('BENCH_LOAD_MS', 2000);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 32);
const ENGINES = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as Array<'sqlite' | 'postgres'>;

interface Round {
  engine: string;
  req_per_s: number;
  answered: number;
  counted: number;
  /** From the first uncounted answer to the kill, by this process's clock (its loop lags under load too). */
  lost_ms: number;
  /** Uncounted answers ÷ the rate of the last second before the kill: the loss in time at that rate. */
  lost_ms_at_rate: number;
}

async function round(engine: 'sqlite' | 'postgres'): Promise<Round> {
  const db = await createTestDatabase(engine);
  try {
    const served = await startServe({
      ...db.env,
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_PORT: '0',
      MARKETLENS_API_KEYS: TEST_KEY,
      MARKETLENS_RATE_LIMIT: '0',
    });
    const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(served.out())![1]!;
    const answeredAt: number[] = [];
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}/api/v1/scraper/resale-b/prices`,
        connections: CONNECTIONS,
        duration: 60,
        headers: { 'x-api-key': TEST_KEY },
      },
      () => undefined,
    );
    instance.on('response', (_c, status) => {
      if (status === 400) answeredAt.push(Date.now());
    });
    const started = Date.now();
    await new Promise((r) => setTimeout(r, LOAD_MS));
    served.child.kill('SIGKILL');
    const killedAt = Date.now();
    await served.exited;
    instance.stop();
    const store = await openStore(db.config);
    const rows = await store.db
      .selectFrom('usage_counts')
      .select(['period', 'count'])
      .where('key_id', '=', KEY_ID)
      .execute();
    await store.close();
    const counted = rows.filter((r) => r.period.length === 7).reduce((n, r) => n + Number(r.count), 0);
    const answered = answeredAt.filter((t) => t <= killedAt).length;
    const firstUncounted = answeredAt[counted];
    return {
      engine,
      req_per_s: Math.round((answered / (killedAt - started)) * 1000),
      answered,
      counted,
      lost_ms: counted >= answered || firstUncounted === undefined ? 0 : killedAt - firstUncounted,
      lost_ms_at_rate: Math.max(
        0,
        Math.round(
          ((answered - counted) / answeredAt.filter((t) => t > killedAt - 1000 && t <= killedAt).length) * 1000,
        ),
      ),
    };
  } finally {
    await db.drop();
  }
}

const results: Round[] = [];
for (const engine of ENGINES) {
  if (!engineAvailable(engine)) continue;
  for (let i = 0; i < ROUNDS; i++) {
    const r = await round(engine);
    results.push(r);
    console.log(JSON.stringify(r));
  }
}
for (const engine of ENGINES) {
  const mine = results.filter((r) => r.engine === engine);
  if (mine.length === 0) continue;
  const lost = mine.map((r) => r.lost_ms_at_rate);
  console.log(`${engine}: lost ms at rate ${lost.join(', ')} (max ${Math.max(...lost)})`);
}
