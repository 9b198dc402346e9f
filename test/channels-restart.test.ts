/**
 * Nothing lost across a restart, on both database engines: a channel delivery queued while its server is down stays
 * in the database when the instance stops, and the next instance on the same database delivers it, once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { auth, testApp } from './support/app.js';
import { priceObservation } from './support/observations.js';
import { ENGINES, createTestDatabase, engineAvailable } from './support/stores.js';
import { startReceiver } from './support/webhook-receiver.js';

const LOCAL = { MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true', MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true' };
const TIMING = { baseDelayMs: 40, maxDelayMs: 200, pollMs: 20 };

async function deliveries(app: FastifyInstance, id: string): Promise<{ status: string; attempts: number }[]> {
  return (await app.inject({ url: `/api/v1/webhooks/${id}/deliveries`, headers: auth })).json().data;
}

/** Waits (on the delivery rows) until `done` holds for them. */
async function until(app: FastifyInstance, id: string, done: (d: { status: string; attempts: number }[]) => boolean) {
  for (;;) {
    const rows = await deliveries(app, id);
    if (done(rows)) return rows;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(ENGINES)('channel deliveries across a restart on %s', (engine) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });

  it.skipIf(!engineAvailable(engine))('queued while ntfy is down, delivered once by the next instance', async () => {
    const db = await createTestDatabase(engine);
    cleanups.push(() => db.drop());
    const ntfy = await startReceiver();
    cleanups.push(() => ntfy.stop());
    await ntfy.stop(); // down: connection refused
    const env = { ...db.env, ...LOCAL };

    const first = await testApp(env, { alerts: { timing: TIMING } });
    cleanups.push(() => first.close());
    const created = await first.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth,
      payload: { channel: `ntfy://127.0.0.1:${ntfy.port}/drops`, events: ['price.changed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json();
    first.alerts.handleObservations(priceObservation(1, 100));
    first.alerts.handleObservations(priceObservation(2, 90));
    await until(first, id, ([d]) => d !== undefined && d.status === 'pending' && d.attempts >= 1);
    await first.close();

    await ntfy.restart();
    const second = await testApp(env, { alerts: { timing: TIMING } });
    cleanups.push(() => second.close());
    await ntfy.answered(1);
    const [row] = await until(second, id, ([d]) => d?.status === 'delivered');
    expect(row!.attempts).toBeGreaterThan(1);
    expect(ntfy.all).toHaveLength(1);
    expect(JSON.parse(ntfy.all[0]!.raw)).toMatchObject({
      topic: 'drops',
      title: 'p1 size 10: 100 USD → 90 USD (-10 %)',
    });
  });
});
