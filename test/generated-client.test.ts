/**
 * Clients generated from /openapi.json with both generators users reach for, offline (the document is handed to
 * them as an object): openapi-typescript + openapi-fetch, and @hey-api/openapi-ts (client-fetch). `tsc` checks a call
 * of every operation, Retailed alias paths included (test/fixtures/generated-client/client.ts.txt: typed parameters,
 * enums, answers, errors, the finder without a body, a nested db filter and integer paging, no cast), and the hey-api
 * SDK's alias-path calls and nested filter (hey-api-client.ts.txt); then both compiled clients run against the
 * service and fake marketplaces with their generators' default serializers.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY, testApp } from './support/app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const CLIENT = join(ROOT, 'test/fixtures/generated-client/client.ts.txt');
const HEY_CLIENT = join(ROOT, 'test/fixtures/generated-client/hey-api-client.ts.txt');

describe('a client generated from /openapi.json', () => {
  let marketplaces: FixtureMarketplaces;
  let app: FastifyInstance;
  let origin: string;
  let dir: string;
  let doc: any;

  beforeAll(async () => {
    marketplaces = await startFixtureMarketplaces();
    app = await testApp(marketplaces.env);
    await app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    doc = await (await fetch(`${origin}/openapi.json`)).json();
    dir = mkdtempSync(join(tmpdir(), 'marketlens-client-'));
    // The generated module and the client beside it; the repo's node_modules for openapi-fetch and tsc.
    writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(doc)));
    copyFileSync(CLIENT, join(dir, 'client.ts'));
    // hey-api writes its SDK and its bundled fetch client (no runtime package) into ./hey; `.js` imports for NodeNext.
    await generateHeyApiClient({
      input: doc,
      output: { path: join(dir, 'hey'), importFileExtension: '.js' },
      plugins: ['@hey-api/client-fetch'],
      logs: { level: 'silent' },
    });
    copyFileSync(HEY_CLIENT, join(dir, 'hey-client.ts'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          lib: ['ES2022', 'DOM'],
          skipLibCheck: true,
          outDir: 'out',
          noUnusedLocals: false,
        },
        files: ['client.ts', 'api.d.ts', 'hey-client.ts'],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await marketplaces.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('calls every documented operation (the client file covers each path and method)', () => {
    const called = new Set(
      [...readFileSync(CLIENT, 'utf8').matchAll(/c\.(GET|POST|PUT|PATCH|DELETE)\('([^']+)'/g)].map(
        (m) => `${m[1]} ${m[2]}`,
      ),
    );
    const documented = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(new Set(documented.map((o) => o.split(' ')[1]))).toEqual(new Set(Object.keys(doc.paths)));
    expect([...called].sort()).toEqual(documented.sort());
  });

  it('type-checks with tsc: parameters, enums, answers and errors typed, the finder without a body or cast', async () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', dir]).catch((e: { stdout: string; stderr: string }) => e);
    expect(`${result.stdout}${result.stderr}`).toBe('');
    for (const file of [CLIENT, HEY_CLIENT])
      expect(readFileSync(file, 'utf8')).not.toMatch(/\bas\s+(any|unknown|never)\b/);
  }, 120_000);

  it('runs GOAT prices, StockX trends and the finder against the service', async () => {
    const { makeClient, pricesAndTrends } = await import(pathToFileURL(join(dir, 'out/client.js')).href);
    const result = await pricesAndTrends(makeClient(origin, TEST_KEY));
    expect(result.status).toEqual([200, 200, 200]);
    expect(result.sizes.length).toBeGreaterThan(0);
    expect(result.slugs.length).toBeGreaterThan(0);
  });

  it('openapi-fetch: a Retailed alias path and a nested db filter, with its default serializer', async () => {
    const { makeClient, aliasAndFilter } = await import(pathToFileURL(join(dir, 'out/client.js')).href);
    const first = await aliasAndFilter(makeClient(origin, TEST_KEY), 'DD1391-100');
    expect(first.status).toEqual([200, 200]);
    await app.history.recorder.flush();
    const recorded = await aliasAndFilter(makeClient(origin, TEST_KEY), 'DD1391-100');
    expect(recorded.urls).toEqual([expect.stringMatching(/nike\.com\/.*DD1391-100$/)]);
  });

  it('@hey-api/openapi-ts: alias-path operations (stockxProduct …) and a nested db filter, with its default serializer', async () => {
    const { makeHeyClient, aliasesAndFilter } = await import(pathToFileURL(join(dir, 'out/hey-client.js')).href);
    const first = await aliasesAndFilter(makeHeyClient(origin, TEST_KEY), 'CW2288-111');
    expect(first.status).toEqual([200, 200, 200, 200, 200]);
    expect(first.productId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.hits).toBeGreaterThan(0);
    await app.history.recorder.flush();
    const recorded = await aliasesAndFilter(makeHeyClient(origin, TEST_KEY), 'CW2288-111');
    expect(recorded.urls).toEqual([expect.stringMatching(/nike\.com\/.*CW2288-111$/)]);
    expect(recorded.pages).toBe(1);
  });
});
