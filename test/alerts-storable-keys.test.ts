/**
 * Alert state keys are built from upstream values (product ids, sizes): one carrying a NUL (which PostgreSQL refuses
 * in text) must not make the database refuse the detection group, which would skip every observation in it
 * (issue 27, item 4, on the alerts' side). On both engines: the NUL size's change and an ordinary one are both queued;
 * and an observation the database refuses for another reason (a constraint the test adds) costs only its own alerts.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { sql, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertEngine } from '../src/alerts/engine.js';
import type { AlertTables } from '../src/alerts/schema.js';
import { priceObservation } from './support/observations.js';
import { ENGINES, engineAvailable, openTestStore, type TestStore } from './support/stores.js';

describe.each(ENGINES)('alert state keys from upstream text on %s', (engineName) => {
  let store: TestStore | undefined;
  let engine: AlertEngine | undefined;
  afterEach(async () => {
    await engine?.close();
    await store?.close();
    engine = store = undefined;
  });

  async function setup() {
    store = await openTestStore(engineName);
    const db = store.db as unknown as Kysely<AlertTables>;
    const silent = SILENT_LOGGER;
    // Not started: the deliveries are read from the queue.
    engine = new AlertEngine({ db, policy: { allowHttp: true, allowPrivate: true }, log: silent });
    const sub = await engine.subscriptions.create('key-a', {
      url: 'http://127.0.0.1:9/hook',
      events: ['price.changed'],
      filter: {},
      description: null,
    });
    const changes = async () =>
      (await db.selectFrom('alert_deliveries').select('payload').where('subscription_id', '=', sub.id).execute())
        .map((d) => (JSON.parse(d.payload) as { data: { size: string; new: number } }).data)
        .map((c) => [c.size, c.new])
        .sort();
    return { db, engine, changes };
  }

  it.skipIf(!engineAvailable(engineName))('a NUL in a size does not cost the group its alerts', async () => {
    const { engine, changes } = await setup();
    for (const [n, amount] of [
      [1, 100],
      [2, 110],
    ] as const) {
      engine.handleObservations(priceObservation(n, amount, { size: '10\u0000' }));
      engine.handleObservations(priceObservation(n, amount, { size: '11' }));
    }
    await engine.idle();
    expect(await changes()).toEqual([
      ['10\u0000', 110],
      ['11', 110],
    ]);
  });

  it.skipIf(!engineAvailable(engineName))('an observation the database refuses costs only its own alerts', async () => {
    const { db, engine, changes } = await setup();
    if (engineName === 'postgres')
      await sql`alter table alert_state add constraint refuse_me check (key not like '%refuse-me%')`.execute(db);
    else
      await sql`create trigger refuse_me before insert on alert_state when new.key like '%refuse-me%'
                begin select raise(abort, 'refused by the test'); end`.execute(db);
    for (const [n, amount] of [
      [1, 100],
      [2, 110],
    ] as const)
      for (const size of ['10', 'refuse-me', '11']) engine.handleObservations(priceObservation(n, amount, { size }));
    await engine.idle();
    expect(await changes()).toEqual([
      ['10', 110],
      ['11', 110],
    ]);
  });
});
