/**
 * A service without MARKETLENS_REDIS_URL never loads bullmq (src/jobs/bullmq.ts): ~13 MB of RSS at start that it
 * does not use (issue 21's memory bound). Checked in a fresh process, since this one's module cache is shared with
 * other test files; with Redis configured the same process does load it (the BullMQ tests prove it works).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testEnv } from './support/app.js';
import { cleanEnv } from './support/binary.js';
import { REPO_ROOT } from './support/repo-root.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';

/**
 * Builds and starts the compiled app (dist, which the vitest global setup builds from the sources under test) with
 * testApp's configuration plus `env`, then prints whether bullmq is in the CommonJS module cache.
 */
function bullmqLoadedAfterStart(env: Record<string, string>): boolean {
  const dist = (file: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', file)).href);
  const script = `
    import { createRequire } from 'node:module';
    const { buildApp } = await import(${dist('server/app.js')});
    const { loadConfig } = await import(${dist('config.js')});
    const app = await buildApp({ config: loadConfig(${JSON.stringify(testEnv(env))}) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('/node_modules/bullmq/'));
    await app.close();
    process.stdout.write(JSON.stringify({ loaded }));
    process.exit(0);`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: cleanEnv({}),
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return (JSON.parse(out.slice(out.lastIndexOf('{'))) as { loaded: boolean }).loaded;
}

describe('modules loaded at start', () => {
  it('without Redis the service does not load bullmq', { timeout: 60_000 }, () => {
    expect(bullmqLoadedAfterStart({})).toBe(false);
  });

  it.skipIf(!redisAvailable)('with Redis it does (the control)', { timeout: 60_000 }, async () => {
    const prefix = uniquePrefix();
    try {
      expect(bullmqLoadedAfterStart({ MARKETLENS_REDIS_URL: TEST_REDIS_URL, MARKETLENS_REDIS_PREFIX: prefix })).toBe(
        true,
      );
    } finally {
      await deletePrefix(prefix);
    }
  });
});
