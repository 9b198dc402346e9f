/**
 * A client generated from /openapi.json with openapi-typescript (programmatic API, offline: the document is handed
 * over as an object) and openapi-fetch: `tsc` checks a call of every operation, Retailed alias paths included
 * (test/fixtures/generated-client/client.ts.txt: typed parameters, enums, answers, errors, the finder without a body,
 * a nested db filter and integer paging, no cast), then the compiled client runs against the service and fake
 * marketplaces with openapi-fetch's default serializer. The @hey-api/openapi-ts client: generated-client-hey-api.test.ts.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from './support/app.js';
import {
  compileProject,
  generatedClientProject,
  ROOT,
  type GeneratedClientProject,
} from './support/generated-client.js';

const CLIENT = join(ROOT, 'test/fixtures/generated-client/client.ts.txt');

describe('a client generated from /openapi.json (openapi-typescript + openapi-fetch)', () => {
  let project: GeneratedClientProject;

  beforeAll(async () => {
    project = await generatedClientProject();
    // The generated module and the client beside it; the repo's node_modules for openapi-fetch and tsc.
    writeFileSync(join(project.dir, 'api.d.ts'), astToString(await openapiTS(project.doc)));
    copyFileSync(CLIENT, join(project.dir, 'client.ts'));
  }, 60_000);
  afterAll(() => project?.stop());

  it('calls every documented operation (the client file covers each path and method)', () => {
    const called = new Set(
      [...readFileSync(CLIENT, 'utf8').matchAll(/c\.(GET|POST|PUT|PATCH|DELETE)\('([^']+)'/g)].map(
        (m) => `${m[1]} ${m[2]}`,
      ),
    );
    const documented = Object.entries(project.doc.paths ?? {}).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(new Set(documented.map((o) => o.split(' ')[1]))).toEqual(new Set(Object.keys(project.doc.paths ?? {})));
    expect([...called].sort()).toEqual(documented.sort());
  });

  it('type-checks with tsc: parameters, enums, answers and errors typed, aliases and a nested filter, no cast', async () => {
    expect(await compileProject(project.dir, ['client.ts', 'api.d.ts'])).toBe('');
    expect(readFileSync(CLIENT, 'utf8')).not.toMatch(/\bas\s+(any|unknown|never)\b/);
  }, 120_000);

  it('runs GOAT prices, StockX trends and the finder against the service', async () => {
    const { makeClient, pricesAndTrends } = await import(pathToFileURL(join(project.dir, 'out/client.js')).href);
    const result = await pricesAndTrends(makeClient(project.origin, TEST_KEY));
    expect(result.status).toEqual([200, 200, 200]);
    expect(result.sizes.length).toBeGreaterThan(0);
    expect(result.slugs.length).toBeGreaterThan(0);
  });

  it('runs a Retailed alias path and a nested db filter with its default serializer', async () => {
    const { makeClient, aliasAndFilter } = await import(pathToFileURL(join(project.dir, 'out/client.js')).href);
    const first = await aliasAndFilter(makeClient(project.origin, TEST_KEY), 'DD1391-100');
    expect(first.status).toEqual([200, 200]);
    await project.app.history.recorder.flush();
    const recorded = await aliasAndFilter(makeClient(project.origin, TEST_KEY), 'DD1391-100');
    expect(recorded.urls).toEqual([expect.stringMatching(/nike\.com\/.*DD1391-100$/)]);
  });
});
