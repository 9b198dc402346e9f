/** Builds an app for HTTP tests: a temp data dir, one known key, marketplaces pointed at fake upstreams. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp, type AppDeps } from '../../src/server/app.js';

export const TEST_KEY = 'ml_test_key_for_http_tests_0123456789';

/** testConfig's variables: the tests' defaults, then `env` (a process of its own loads its config from these). */
export function testEnv(env: Record<string, string> = {}): Record<string, string> {
  return {
    MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-test-')),
    MARKETLENS_API_KEYS: TEST_KEY,
    MARKETLENS_LOG_LEVEL: 'silent',
    MARKETLENS_DEADLINE_MS: '5000',
    // Suites send many requests with one key; limits have their own tests.
    MARKETLENS_RATE_LIMIT: '0',
    // Fast backoff keeps fault tests quick; retry behaviour has its own tests.
    MARKETLENS_RETRY_BASE_MS: '10',
    // No Chromium unless a test asks for it: blocked-site tests must not wait out challenges in a browser.
    MARKETLENS_BROWSER_PATH: 'none',
    ...env,
  };
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig(testEnv(env));
}

export async function testApp(env: Record<string, string> = {}, deps: Partial<AppDeps> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ config: testConfig(env), ...deps });
  await app.ready();
  return app;
}

/** Headers with the test key. */
export const auth = { 'x-api-key': TEST_KEY };

/** The captures beside the repo; undefined (with a visible notice) when absent outside CI. */
export { sharedDir } from './shared.js';
