/** The key store on both engines: hashes only, revocation, following other processes' changes, legacy import. */
import { SILENT_LOGGER } from '../platform/logger.js';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINES, engineAvailable, openTestStore, type TestStore } from '../../test/support/stores.js';
import { readUsageCounts } from '../limits/usage-report.js';
import { openStore, StoreError } from '../store/index.js';
import { InvalidKeyOptions, KeyStore, generateKey, hashKey } from './key-store.js';
import { openKeys } from './open-keys.js';

async function withStore(engine: (typeof ENGINES)[number], work: (store: TestStore) => Promise<void>): Promise<void> {
  const store = await openTestStore(engine);
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

describe.each(ENGINES)('KeyStore on %s', (engine) => {
  const test = it.skipIf(!engineAvailable(engine));

  test('stores only the hash of a created key, and verifies the key', () =>
    withStore(engine, async (store) => {
      const keys = await KeyStore.open({ store, watch: false });
      const { key, record } = await keys.create('ci');
      expect(key).toMatch(/^ml_[A-Za-z0-9_-]{43}$/);
      const rows = await store.db.selectFrom('api_keys').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(key);
      expect(rows[0]!.hash).toBe(hashKey(key).toString('hex'));
      expect(keys.verify(key)).toEqual({ ok: true, key: record });
      expect(keys.verify(`${key}x`)).toEqual({ ok: false, reason: 'invalid' });
      expect(keys.verify('')).toEqual({ ok: false, reason: 'invalid' });
    }));

  test('accepts configured keys without writing them, and never lists key material', () =>
    withStore(engine, async (store) => {
      const keys = await KeyStore.open({ store, envKeys: ['ml_configured_secret'], watch: false });
      expect(keys.verify('ml_configured_secret').ok).toBe(true);
      expect(keys.hasUsableKey()).toBe(true);
      expect(JSON.stringify(keys.list())).not.toContain('ml_configured_secret');
      expect(await store.db.selectFrom('api_keys').selectAll().execute()).toEqual([]);
    }));

  test('revokes by id or prefix: the key then reads as disabled', () =>
    withStore(engine, async (store) => {
      const keys = await KeyStore.open({ store, watch: false });
      const a = await keys.create('a');
      const b = await keys.create('b');
      expect((await keys.revoke(a.record.id))?.revoked_at).toBeTruthy();
      expect(keys.verify(a.key)).toEqual({ ok: false, reason: 'disabled' });
      expect((await keys.revoke(b.record.prefix))?.id).toBe(b.record.id);
      expect(keys.verify(b.key).ok).toBe(false);
      expect(await keys.revoke('no-such-key')).toBeUndefined();
      expect(keys.hasUsableKey()).toBe(false);
    }));

  test('refuses bad limits and stores nothing', () =>
    withStore(engine, async (store) => {
      const keys = await KeyStore.open({ store, watch: false });
      await expect(keys.create('x', { daily_quota: -5 })).rejects.toThrow(InvalidKeyOptions);
      await expect(keys.create('x', { daily_quota: Number('abc') })).rejects.toThrow(/--daily/);
      await expect(keys.create('x', { rate_limit: 'lots' })).rejects.toThrow(/--rate/);
      expect(await store.db.selectFrom('api_keys').selectAll().execute()).toEqual([]);
    }));

  test("a watching store sees another store's new and revoked keys within 1 s", () =>
    withStore(engine, async (store) => {
      const server = await KeyStore.open({ store, envKeys: ['ml_env'] });
      const other = await openStore(store.database.config);
      try {
        const cli = await KeyStore.open({ store: other, watch: false });
        const { key, record } = await cli.create('from cli');
        const t0 = Date.now();
        while (!server.verify(key).ok && Date.now() - t0 < 1000) await new Promise((r) => setTimeout(r, 20));
        expect(server.verify(key).ok).toBe(true);
        await cli.revoke(record.id);
        const t1 = Date.now();
        while (server.verify(key).ok && Date.now() - t1 < 1000) await new Promise((r) => setTimeout(r, 20));
        expect(server.verify(key)).toEqual({ ok: false, reason: 'disabled' });
      } finally {
        server.close();
        await other.close();
      }
    }));

  test('imports keys.json and usage.json once, keeps them, and names them in the log', () =>
    withStore(engine, async (store) => {
      const dir = store.database.dataDir;
      const key = generateKey();
      const today = new Date().toISOString();
      writeFileSync(
        join(dir, 'keys.json'),
        JSON.stringify({
          keys: [
            {
              id: 'old-1',
              name: 'legacy',
              hash: hashKey(key).toString('hex'),
              prefix: key.slice(0, 8),
              created_at: today,
              source: 'file',
              daily_quota: 9,
            },
          ],
        }),
      );
      writeFileSync(
        join(dir, 'usage.json'),
        JSON.stringify({
          updated_at: today,
          keys: { 'old-1': { day: today.slice(0, 10), daily: 4, month: today.slice(0, 7), monthly: 40 } },
        }),
      );
      const lines: string[] = [];
      const log = { ...SILENT_LOGGER, info: (_o: object, m?: string) => void lines.push(m ?? '') };
      const first = await openKeys(store, { dataDir: dir, apiKeys: [] }, log, false);
      expect(first.verify(key)).toMatchObject({ ok: true, key: { id: 'old-1', daily_quota: 9 } });
      expect(lines.join('\n')).toContain(join(dir, 'keys.json'));
      expect(lines.join('\n')).toContain(join(dir, 'usage.json'));
      const again = await openKeys(store, { dataDir: dir, apiKeys: [] }, log, false);
      expect(again.list().map((k) => k.id)).toEqual(['old-1']);
      expect((await readUsageCounts(store.db, ['old-1'])).get('old-1')).toEqual({ used_today: 4, used_this_month: 40 });
      expect(existsSync(join(dir, 'keys.json')) && existsSync(join(dir, 'usage.json'))).toBe(true);
    }));

  test('a hand-corrupted keys.json is a StoreError naming the file, and nothing is imported', () =>
    withStore(engine, async (store) => {
      const dir = store.database.dataDir;
      writeFileSync(join(dir, 'keys.json'), '{"keys": [ {"id": "x", ');
      const err = await openKeys(store, { dataDir: dir, apiKeys: [] }, undefined, false).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect((err as Error).message).toContain(join(dir, 'keys.json'));
      writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: [{ id: 'x', hash: 'nothex' }] }));
      await expect(openKeys(store, { dataDir: dir, apiKeys: [] }, undefined, false)).rejects.toThrow(
        /keys\.json has an unexpected content/,
      );
      expect(await store.db.selectFrom('api_keys').selectAll().execute()).toEqual([]);
    }));
});

describe('generateKey', () => {
  it('generates distinct 256-bit keys', () => {
    const keys = new Set(Array.from({ length: 100 }, generateKey));
    expect(keys.size).toBe(100);
  });
});
