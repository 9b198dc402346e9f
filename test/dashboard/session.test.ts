/**
 * Dashboard sessions over HTTP (issue 31): an API key exchanged for a signed, expiring, HttpOnly SameSite=Strict
 * cookie that stands for the key on the normal API routes (with its limits), CSRF on state changes, forged and
 * expired cookies refused, sign-out, and a revoked key's sessions refused within the second it stops working.
 * The page and its fingerprinted assets are served with their caching headers. Runs on both database engines.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSessionSecret } from '../../src/dashboard/secret.js';
import { SESSION_COOKIE, SESSION_TTL_MS, SessionSigner } from '../../src/dashboard/session.js';
import { testApp } from '../support/app.js';
import { expectProblem } from '../support/problem.js';
import { ENGINES, engineAvailable, keyStoreAt, openTestStore, type TestStore } from '../support/stores.js';

const SESSION = '/dashboard/session';

function cookieOf(setCookie: unknown): string {
  const header = String(Array.isArray(setCookie) ? setCookie[0] : setCookie);
  return header.split(';')[0]!;
}

describe.each(ENGINES)('dashboard sessions on %s', (engine) => {
  let store: TestStore;
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    if (!engineAvailable(engine)) return;
    store = await openTestStore(engine);
    app = await testApp({ ...store.database.env, MARKETLENS_RATE_LIMIT: '100/min' }, { store });
    key = (await app.marketlens.keys.create('dashboard')).key;
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  async function signIn(withKey = key) {
    const res = await app.inject({ method: 'POST', url: SESSION, payload: { key: withKey } });
    expect(res.statusCode, res.body).toBe(201);
    return { cookie: cookieOf(res.headers['set-cookie']), csrf: JSON.parse(res.body).csrf_token as string, res };
  }

  it.runIf(engineAvailable(engine))(
    'signs in with a key: a signed HttpOnly SameSite=Strict expiring cookie',
    async () => {
      const { res, cookie } = await signIn();
      const setCookie = String(res.headers['set-cookie']);
      expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[\\w-]+\\.[\\w-]+; `));
      expect(setCookie).toContain('HttpOnly');
      expect(setCookie).toContain('SameSite=Strict');
      expect(setCookie).toContain('Path=/');
      expect(setCookie).toContain(`Max-Age=${SESSION_TTL_MS / 1000}`);
      // Plain http here: Secure would make the browser drop the cookie.
      expect(setCookie).not.toContain('Secure');
      // The key goes nowhere: not in the cookie, not in the answer.
      expect(setCookie).not.toContain(key);
      expect(Buffer.from(cookie.split('=')[1]!.split('.')[0]!, 'base64url').toString()).not.toContain(key);
      expect(res.body).not.toContain(key);
      expect(JSON.parse(res.body)).toMatchObject({ key: { name: 'dashboard' }, csrf_token: expect.any(String) });
      // The sign-in counted against the key like a request.
      expect(res.headers['ratelimit-limit']).toBe('100');
    },
  );

  it.runIf(engineAvailable(engine))('refuses a wrong key at sign-in, and a body without one', async () => {
    expectProblem(
      await app.inject({ method: 'POST', url: SESSION, payload: { key: 'ml_nope' } }),
      401,
      'invalid_api_key',
    );
    const bad = expectProblem(
      await app.inject({ method: 'POST', url: SESSION, payload: {} }),
      400,
      'invalid_parameter',
    );
    expect(bad.errors[0].param).toBe('key');
  });

  it.runIf(engineAvailable(engine))('the cookie reaches the API routes under the key, with its limits', async () => {
    const { cookie } = await signIn();
    const usage = await app.inject({ url: '/api/v1/usage', headers: { cookie } });
    expect(usage.statusCode, usage.body).toBe(200);
    const tracked = await app.inject({ url: '/api/v1/tracked', headers: { cookie } });
    expect(tracked.statusCode, tracked.body).toBe(200);
    expect(tracked.headers['ratelimit-limit']).toBe('100');
    expect(JSON.parse(tracked.body)).toEqual({ data: [] });
    const status = await app.inject({ url: '/status', headers: { cookie } });
    expect(status.statusCode).toBe(200);
    expectProblem(await app.inject({ url: '/api/v1/tracked' }), 401, 'missing_api_key');
  });

  it.runIf(engineAvailable(engine))(
    'a state change with the cookie needs the CSRF token; a key header does not',
    async () => {
      const { cookie, csrf } = await signIn();
      const body = { url: 'https://hooks.example.com/x', events: ['price.changed'] };
      const without = await app.inject({ method: 'POST', url: '/api/v1/webhooks', headers: { cookie }, payload: body });
      expect(expectProblem(without, 401, 'invalid_api_key').detail).toMatch(/x-csrf-token/);
      const wrong = await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks',
        headers: { cookie, 'x-csrf-token': csrf.slice(1) + 'A' },
        payload: body,
      });
      expectProblem(wrong, 401, 'invalid_api_key');
      // The token of another session does not do either.
      const other = await signIn();
      const crossed = await app.inject({
        method: 'DELETE',
        url: SESSION,
        headers: { cookie, 'x-csrf-token': other.csrf },
      });
      expectProblem(crossed, 401, 'invalid_api_key');
      const tracked = await app.inject({
        method: 'POST',
        url: '/api/v1/db/products',
        headers: { cookie, 'x-csrf-token': csrf },
        payload: { operation: 'resale-a.product', query: 'some-sneaker-slug' },
      });
      expect(tracked.statusCode, tracked.body).toBe(201);
      const list = await app.inject({ url: '/api/v1/tracked', headers: { 'x-api-key': key } });
      expect(JSON.parse(list.body).data.map((d: { id: string }) => d.id)).toEqual([JSON.parse(tracked.body).id]);
    },
  );

  it.runIf(engineAvailable(engine))('refuses forged and expired cookies', async () => {
    const { cookie } = await signIn();
    const [name, value] = cookie.split('=') as [string, string];
    const [body, mac] = value.split('.') as [string, string];
    const tampered = JSON.parse(Buffer.from(body, 'base64url').toString());
    tampered.k = 'env-00000000';
    const forgedBody = Buffer.from(JSON.stringify(tampered)).toString('base64url');
    for (const forged of [`${forgedBody}.${mac}`, `${body}.${mac.slice(0, -2)}AA`, body, 'x.y']) {
      const res = await app.inject({ url: '/api/v1/usage', headers: { cookie: `${name}=${forged}` } });
      expect(expectProblem(res, 401, 'invalid_api_key').detail).toMatch(/session cookie is not valid/);
    }
    const elsewhere = new SessionSigner(randomBytes(32)).issue(app.marketlens.keys.list().at(-1)!.id);
    expectProblem(
      await app.inject({ url: '/api/v1/usage', headers: { cookie: `${name}=${elsewhere.cookieValue}` } }),
      401,
      'invalid_api_key',
    );
    // Signed with the service's own secret, but issued a TTL and a millisecond ago.
    const secret = await loadSessionSecret(app.marketlens.store.db);
    const keyId = app.marketlens.keys.list().find((k) => k.name === 'dashboard')!.id;
    const old = new SessionSigner(secret, () => Date.now() - SESSION_TTL_MS - 1).issue(keyId);
    const expired = await app.inject({ url: '/api/v1/usage', headers: { cookie: `${name}=${old.cookieValue}` } });
    expect(expectProblem(expired, 401, 'invalid_api_key').detail).toMatch(/session has ended/);
    const fresh = new SessionSigner(secret).issue(keyId);
    expect(
      (await app.inject({ url: '/api/v1/usage', headers: { cookie: `${name}=${fresh.cookieValue}` } })).statusCode,
    ).toBe(200);
  });

  it.runIf(engineAvailable(engine))('signs out: the cookie is cleared and the session refused', async () => {
    const { cookie, csrf } = await signIn();
    expect((await app.inject({ url: SESSION, headers: { cookie } })).statusCode).toBe(200);
    const out = await app.inject({ method: 'DELETE', url: SESSION, headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.statusCode, out.body).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(new RegExp(`^${SESSION_COOKIE}=; .*Max-Age=0`));
    expectProblem(await app.inject({ url: SESSION, headers: { cookie } }), 401, 'invalid_api_key');
  });

  it.runIf(engineAvailable(engine))(
    'a key revoked by another process ends its sessions within the second it stops working on the API',
    async () => {
      const created = await app.marketlens.keys.create('revoked-soon');
      const { cookie } = await signIn(created.key);
      expect((await app.inject({ url: '/api/v1/usage', headers: { cookie } })).statusCode).toBe(200);
      // The CLI's `keys revoke`: another key store on the same database; this app learns of it by its poll.
      const cli = await keyStoreAt(store.database.config);
      const revokedAt = Date.now();
      await cli.keys.revoke(created.record.id);
      await cli.close();
      let viaCookie = 200;
      let viaKey = 200;
      while (viaCookie === 200 || viaKey === 200) {
        expect(Date.now() - revokedAt).toBeLessThan(1000);
        viaKey = (await app.inject({ url: '/api/v1/usage', headers: { 'x-api-key': created.key } })).statusCode;
        const res = await app.inject({ url: '/api/v1/usage', headers: { cookie } });
        viaCookie = res.statusCode;
        // Never a request the key is refused and the session still let through.
        if (viaKey !== 200) expect(viaCookie, res.body).toBe(401);
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(viaKey).toBe(403);
    },
  );

  it.runIf(engineAvailable(engine))(
    'serves the page no-cache and its assets fingerprinted, immutable and compressed',
    async () => {
      const page = await app.inject({ url: '/', headers: { 'accept-encoding': 'identity' } });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.headers['content-security-policy']).toContain("default-src 'self'");
      // Every asset by its fingerprinted name (the stylesheet and entry module by URL, every module in the import
      // map and a modulepreload link), and no module by its plain name outside the import map's keys.
      const urls = [
        ...new Set([...page.body.matchAll(/\/dashboard\/assets\/[\w-]+\.[0-9a-f]{12}\.(?:js|css)/g)].map((m) => m[0])),
      ];
      expect(urls.filter((u) => u.endsWith('.css'))).toHaveLength(1);
      expect(urls.filter((u) => u.includes('/app.'))).toHaveLength(1);
      expect(page.body).toMatch(/<script type="module" src="\/dashboard\/assets\/app\.[0-9a-f]{12}\.js">/);
      for (const url of urls) {
        expect(url).toMatch(/\.[0-9a-f]{12}\.(js|css)$/);
        const asset = await app.inject({ url, headers: { 'accept-encoding': 'gzip, br' } });
        expect(asset.statusCode, url).toBe(200);
        expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(asset.headers['content-encoding']).toBe('br');
      }
      expect(
        (await app.inject({ url: urls[0]!, headers: { 'accept-encoding': 'gzip' } })).headers['content-encoding'],
      ).toBe('gzip');
      expectProblem(await app.inject({ url: '/dashboard/assets/app.000000000000.js' }), 404, 'route_not_found');
    },
  );
});
