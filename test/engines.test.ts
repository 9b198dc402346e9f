/**
 * Every installed package supports the Node range package.json declares (`npm ci` on Node 20 printed
 * `EBADENGINE cookie@2.0.2 requires node >=22`, via fastify → light-my-request; an override pins cookie 1.1).
 * Checked on the lock file, the exact set `npm ci` installs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// semver ships with npm's own dependency tree (autocannon, prebuild-install …); no types are installed for it.
const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

describe('engines', () => {
  // npm warns EBADENGINE when the running Node is outside a package's range: check the oldest Node the declared
  // range admits (what an operator may run) and the Node running the tests.
  it.each([
    ['the oldest declared Node', semver.minVersion(pkg.engines.node)!.version],
    ['this Node', process.versions.node],
  ])('every package in the lock file supports %s (%s)', (_what, version) => {
    expect(semver.satisfies(version, pkg.engines.node)).toBe(true);
    const unsupported = Object.entries<{ engines?: { node?: string } | string[] }>(lock.packages)
      .filter(([path, p]) => path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .filter(([, p]) => !semver.satisfies(version, (p.engines as { node: string }).node))
      .map(([path, p]) => `${path} requires node ${(p.engines as { node: string }).node}`);
    expect(unsupported).toEqual([]);
  });

  it('light-my-request (app.inject) runs on the overridden cookie, cookies included', async () => {
    const { default: Fastify } = await import('fastify');
    const app = Fastify();
    app.get('/', async (req) => ({ cookie: req.headers.cookie ?? null }));
    const res = await app.inject({ url: '/', cookies: { session: 'a b', theme: 'dark' } });
    expect(res.json()).toEqual({ cookie: 'session=a%20b; theme=dark' });
    await app.close();
  });
});
