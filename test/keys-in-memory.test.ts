/**
 * Authentication never waits for the database: the key hashes are held in memory and only a cheap poll reads the
 * database. With the keys tables gone (a database in trouble), requests with a valid key still pass and a bad key
 * is still refused — never a 500 — and the trouble is logged once, not per poll.
 */
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { auth, testApp } from './support/app.js';

describe('key checks in memory', () => {
  let app: FastifyInstance | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it('keeps authenticating from memory when the database cannot be read, and logs it once', async () => {
    const lines: string[] = [];
    const logStream = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    app = await testApp({ MARKETLENS_LOG_LEVEL: 'error' }, { logStream });
    const { key } = await app.marketlens.keys.create('in memory');
    const db = app.marketlens.store.db;
    await db.schema.alterTable('api_keys').renameTo('api_keys_away').execute();
    await db.schema.alterTable('store_versions').renameTo('store_versions_away').execute();
    await new Promise((r) => setTimeout(r, 700)); // a few polls fail meanwhile
    expect((await app.inject({ url: '/api/v1/usage', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/v1/usage', headers: auth })).statusCode).toBe(200);
    expect((await app.inject({ url: '/api/v1/usage', headers: { 'x-api-key': 'ml_unknown' } })).statusCode).toBe(401);
    const logged = lines.filter((l) => l.includes('cannot read API keys from the database'));
    expect(logged).toHaveLength(1);
    await db.schema.alterTable('api_keys_away').renameTo('api_keys').execute();
    await db.schema.alterTable('store_versions_away').renameTo('store_versions').execute();
  });
});
