/**
 * The real binary: `marketlens webhooks add|list|test|remove`, and durability — deliveries pending when the server
 * is killed with SIGKILL are delivered, in order, after a restart (SQLite and PostgreSQL).
 */
import type { Kysely } from 'kysely';
import { describe, expect, it, type TestContext } from 'vitest';
import type { AlertTables } from '../src/alerts/schema.js';
import { openStore } from '../src/store/index.js';
import { runCli, startServe } from './support/binary.js';
import { closedPort } from './support/ports.js';
import { ENGINES, createTestDatabase, engineAvailable, type TestDatabase } from './support/stores.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

/** A delivery as GET /api/v1/webhooks/{id}/deliveries lists it, as far as this test reads it. */
interface Delivery {
  id: string;
  status: string;
  attempts: number;
}

const KEY = 'ml_webhook_binary_test_key_0123456789ab';
const LOCAL = {
  MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
  MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
  MARKETLENS_LOG_LEVEL: 'warn',
};

const run = runCli;

/**
 * Moves every pending delivery's next attempt to now: what the server's clock would show once the retry delay had
 * passed while it was down. Only with no server running (nothing else writes the rows then).
 */
async function retryDueNow(db: TestDatabase): Promise<void> {
  const store = await openStore(db.config);
  try {
    const now = Date.now();
    // The head's retry (the deliveries behind it were due since they were queued). No count is asserted: on a very
    // busy machine the backoff may have run out by now, and then there is nothing to move.
    await (store.db as unknown as Kysely<AlertTables>)
      .updateTable('alert_deliveries')
      .set({ next_attempt_at: now })
      .where('status', '=', 'pending')
      .where('next_attempt_at', '>', now)
      .execute();
  } finally {
    await store.close();
  }
}

const serveDirect = startServe;

type Cleanups = (() => Promise<unknown>)[];

/** A test's own cleanups, run last first once it ends: the tests run concurrently, so no list is shared. */
function cleanupsOf(onTestFinished: TestContext['onTestFinished']): Cleanups {
  const cleanups: Cleanups = [];
  onTestFinished(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });
  return cleanups;
}

// Every test has its own database, receiver, ports and processes, and waits on events (a log line, an exit, a
// delivery), never on time: the four run at once instead of one after another.
describe.concurrent.each(ENGINES)('webhooks with the real binary on %s', (engine) => {
  async function database(cleanups: Cleanups): Promise<TestDatabase> {
    const db = await createTestDatabase(engine);
    cleanups.push(() => db.drop());
    return db;
  }

  it.skipIf(!engineAvailable(engine))(
    'webhooks add, list, test, remove',
    async ({ onTestFinished }) => {
      const cleanups = cleanupsOf(onTestFinished);
      const db = await database(cleanups);
      const receiver: Receiver = await startReceiver();
      cleanups.push(() => receiver.stop());
      const env = { ...db.env, ...LOCAL };

      // Independent commands run as parallel processes: each stage waits only for what it reads.
      const [refused, added] = await Promise.all([
        run(['webhooks', 'add', 'https://127.0.0.1/hook', '--events', 'price.changed'], { ...db.env }),
        run(
          [
            'webhooks',
            'add',
            receiver.url,
            '--events',
            'price.changed,stock.changed',
            '--filter',
            '{"sizes":["10"]}',
            '--description',
            'AJ1',
          ],
          env,
        ),
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/invalid_parameter: url: 127\.0\.0\.1 is a loopback/);
      expect(added.code, added.stderr).toBe(0);
      const created = JSON.parse(added.stdout);
      expect(created.secret).toMatch(/^whsec_/);
      receiver.setSecret(created.secret);

      const [listed, tested] = await Promise.all([
        run(['webhooks', 'list'], env),
        run(['webhooks', 'test', created.id], env),
      ]);
      expect(JSON.parse(listed.stdout)).toMatchObject([
        {
          id: created.id,
          owner: 'operator',
          url: receiver.url,
          events: ['price.changed', 'stock.changed'],
          filter: { sizes: ['10'] },
          status: 'enabled',
        },
      ]);
      expect(listed.stdout).not.toContain(created.secret);

      expect(tested.code, tested.stderr).toBe(0);
      expect(JSON.parse(tested.stdout)).toMatchObject({
        event_type: 'webhook.test',
        status: 'delivered',
        response_code: 204,
      });
      expect(receiver.messages()).toMatchObject([{ type: 'webhook.test', data: { subscription_id: created.id } }]);

      expect((await run(['webhooks', 'remove', created.id], env)).code).toBe(0);
      const [listedAfter, removedAgain] = await Promise.all([
        run(['webhooks', 'list'], env),
        run(['webhooks', 'remove', created.id], env),
      ]);
      expect(JSON.parse(listedAfter.stdout)).toEqual([]);
      expect(removedAgain.code).toBe(1);
    },
    90_000,
  );

  it.skipIf(!engineAvailable(engine))(
    'kill -9 with deliveries pending: delivered in order after restart',
    async ({ onTestFinished }) => {
      const cleanups = cleanupsOf(onTestFinished);
      const db = await database(cleanups);
      const receiverPort = await closedPort(); // the receiver is down at first
      const env = {
        ...db.env,
        ...LOCAL,
        MARKETLENS_API_KEYS: KEY,
        MARKETLENS_HOST: '127.0.0.1',
        MARKETLENS_PORT: String(await closedPort()),
        MARKETLENS_LOG_LEVEL: 'info',
      };
      const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
      const base = `http://127.0.0.1:${env.MARKETLENS_PORT}/api/v1/webhooks`;

      const first = await serveDirect(env);
      cleanups.push(async () => first.child.kill('SIGKILL'));
      const created = (await (
        await fetch(base, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, events: ['price.changed'] }),
        })
      ).json()) as { id: string; secret: string };
      expect(created.id).toBeDefined();
      for (let i = 0; i < 3; i++)
        expect(
          (await fetch(`${base}/${created.id}/test`, { method: 'POST', headers: { 'x-api-key': KEY } })).status,
        ).toBe(202);
      // Wait until the first delivery has failed once (connection refused) and is waiting for its retry.
      const awaitingRetry = (d: Delivery | undefined) => d !== undefined && d.attempts >= 1 && d.status === 'pending';
      let deliveries: Delivery[] = [];
      // A deadline, not a count of polls: on a busy machine each poll takes longer than its 50 ms pause.
      const deadline = Date.now() + 20_000;
      while (!awaitingRetry(deliveries.at(-1)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        deliveries = (
          (await (await fetch(`${base}/${created.id}/deliveries`, { headers: { 'x-api-key': KEY } })).json()) as {
            data: Delivery[];
          }
        ).data;
      }
      expect(deliveries.map((d) => d.status)).toEqual(['pending', 'pending', 'pending']);
      expect(deliveries.at(-1)?.attempts).toBe(1);
      first.child.kill('SIGKILL');
      await first.exited;
      // The head's retry is due a backoff (5 s ± 25 %, the service's fixed default) after its failed attempt: the
      // server stayed down that long, as far as the stored schedule knows — so the restart finds it due at once.
      await retryDueNow(db);

      const receiver = await startReceiver('/hook', receiverPort);
      cleanups.push(() => receiver.stop());
      receiver.setSecret(created.secret);
      const second = await serveDirect(env);
      cleanups.push(async () => {
        second.child.kill('SIGKILL');
        await second.exited;
      });
      await receiver.waitFor(3, 20_000);
      // In enqueue order (the deliveries list is newest first), each once.
      expect(receiver.received.map((r) => r.id)).toEqual(deliveries.map((d) => d.id).reverse());
      expect(receiver.messages().every((m) => m.type === 'webhook.test')).toBe(true);
    },
    90_000,
  );
});
