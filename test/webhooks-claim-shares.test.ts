/**
 * The delivery queue's claim with send shares (send-shares.ts), on both engines: a key never claims more than its
 * share, nor more than its target share towards one host; what a share leaves behind is claimed by looking past
 * it in the same call (another key's and another host's deliveries), and once a slot is given back.
 */
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryQueue } from '../src/alerts/queue.js';
import type { AlertTables } from '../src/alerts/schema.js';
import { SendShares, targetOf } from '../src/alerts/send-shares.js';
import { Subscriptions } from '../src/alerts/subscriptions.js';
import { ENGINES, engineAvailable, openTestStore, type TestStore } from './support/stores.js';

const LEASE = 30_000;

it('targetOf: the URL text up to the path, userinfo and port included', () => {
  expect(targetOf('https://hooks.example.com/a/b?c')).toBe('https://hooks.example.com/');
  expect(targetOf('http://127.0.0.1:8080/x')).toBe('http://127.0.0.1:8080/');
  expect(targetOf('https://u:p@example.com/')).toBe('https://u:p@example.com/');
});

describe.each(ENGINES)('claim with shares on %s', (engine) => {
  let store: TestStore | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  async function setup() {
    store = await openTestStore(engine);
    const db = store.db as unknown as Kysely<AlertTables>;
    const subs = new Subscriptions(db);
    const queue = new DeliveryQueue(db);
    const add = async (keyId: string, url: string) => {
      const sub = await subs.create(keyId, { url, events: ['price.changed'], filter: {}, description: null });
      await queue.enqueue([{ subscriptionId: sub.id, eventType: 'webhook.test', payload: '{}' }]);
      return sub;
    };
    return { queue, add };
  }

  const count = (claimed: { keyId: string; url: string }[], keyId: string, host?: string) =>
    claimed.filter((c) => c.keyId === keyId && (!host || c.url.startsWith(host))).length;

  it.skipIf(!engineAvailable(engine))('a key gets its share, a host its target share; others are served', async () => {
    const { queue, add } = await setup();
    for (let i = 0; i < 10; i++) await add('key-a', `https://dead.example/${i}`);
    for (let i = 0; i < 2; i++) await add('key-a', `https://alive.example/${i}`);
    await add('key-b', 'https://b.example/hook');
    const shares = new SendShares(4, 3);

    // Three of the ten dead ones (target share), one of key A's other host (key share 4), and key B's.
    const first = await queue.claim(64, LEASE, Date.now(), shares);
    expect(count(first, 'key-a', 'https://dead.example/')).toBe(3);
    expect(count(first, 'key-a', 'https://alive.example/')).toBe(1);
    expect(count(first, 'key-b')).toBe(1);
    expect(first).toHaveLength(5);

    // Everything left is key A's, at its share: nothing more until a slot is given back.
    expect(await queue.claim(64, LEASE, Date.now(), shares)).toEqual([]);
    const alive = first.find((c) => c.url.startsWith('https://alive.example/'))!;
    shares.release(alive.keyId, alive.url);
    const next = await queue.claim(64, LEASE, Date.now(), shares);
    // The dead host is still at its share: the slot goes to key A's other subscription there.
    expect(next.map((c) => c.url)).toEqual(['https://alive.example/1']);
  });

  it.skipIf(!engineAvailable(engine))('a small claim looks past the heads a share skips', async () => {
    const { queue, add } = await setup();
    for (let i = 0; i < 6; i++) await add('key-a', `https://dead.example/${i}`);
    await add('key-a', 'https://alive.example/hook');
    await add('key-b', 'https://b.example/hook');
    const shares = new SendShares(8, 2);
    const first = await queue.claim(3, LEASE, Date.now(), shares);
    // The first three heads are all the dead host's: two of them, then past the rest to the next one in line.
    expect(first.map((c) => c.url)).toEqual([
      'https://dead.example/0',
      'https://dead.example/1',
      'https://alive.example/hook',
    ]);
    const second = await queue.claim(3, LEASE, Date.now(), shares);
    expect(second.map((c) => c.url)).toEqual(['https://b.example/hook']);
  });
});
