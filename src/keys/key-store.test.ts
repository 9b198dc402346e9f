import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyStore, generateKey, hashKey } from './key-store.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'marketlens-keys-'));

describe('KeyStore', () => {
  it('stores only the hash of a created key, and verifies the key', () => {
    const dir = tempDir();
    const store = new KeyStore(dir);
    const { key, record } = store.create('ci');
    expect(key).toMatch(/^ml_[A-Za-z0-9_-]{43}$/);
    const file = readFileSync(join(dir, 'keys.json'), 'utf8');
    expect(file).not.toContain(key);
    expect(file).toContain(hashKey(key).toString('hex'));
    expect(store.verify(key)).toEqual({ ok: true, key: record });
    expect(store.verify(`${key}x`)).toEqual({ ok: false, reason: 'invalid' });
    expect(store.verify('')).toEqual({ ok: false, reason: 'invalid' });
  });

  it('accepts configured keys without writing them, and never lists key material', () => {
    const dir = tempDir();
    const store = new KeyStore(dir, ['ml_configured_secret']);
    expect(store.verify('ml_configured_secret').ok).toBe(true);
    expect(store.hasUsableKey()).toBe(true);
    expect(JSON.stringify(store.list())).not.toContain('ml_configured_secret');
    expect(() => readFileSync(join(dir, 'keys.json'))).toThrow();
  });

  it('revokes by id or prefix: the key then reads as disabled', () => {
    const store = new KeyStore(tempDir());
    const a = store.create('a');
    const b = store.create('b');
    expect(store.revoke(a.record.id)?.revoked_at).toBeTruthy();
    expect(store.verify(a.key)).toEqual({ ok: false, reason: 'disabled' });
    expect(store.revoke(b.record.prefix)?.id).toBe(b.record.id);
    expect(store.verify(b.key).ok).toBe(false);
    expect(store.revoke('no-such-key')).toBeUndefined();
    expect(store.hasUsableKey()).toBe(false);
  });

  it('sees keys created by another process (the CLI) without a restart', async () => {
    const dir = tempDir();
    const server = new KeyStore(dir, ['ml_env']);
    const cli = new KeyStore(dir);
    await new Promise((r) => setTimeout(r, 1100)); // past the reload throttle and mtime granularity
    const { key } = cli.create('from cli');
    expect(server.verify(key).ok).toBe(true);
  });

  it('generates distinct 256-bit keys', () => {
    const keys = new Set(Array.from({ length: 100 }, generateKey));
    expect(keys.size).toBe(100);
  });
});
