/**
 * A client generated from /openapi.json with @hey-api/openapi-ts (client-fetch plugin; offline: the document is
 * handed over as an object, and the fetch client is written into the output, no runtime package): `tsc` checks its
 * SDK calls of Retailed alias-path operations (`stockxProduct` …) and a nested db filter with integer paging, without
 * a cast (test/fixtures/generated-client/hey-api-client.ts.txt), then the compiled client runs against the service
 * and fake marketplaces with the SDK's default serializer.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient as generateHeyApiClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from './support/app.js';
import {
  compileProject,
  generatedClientProject,
  ROOT,
  type GeneratedClientProject,
} from './support/generated-client.js';

const CLIENT = join(ROOT, 'test/fixtures/generated-client/hey-api-client.ts.txt');

describe('a client generated from /openapi.json (@hey-api/openapi-ts)', () => {
  let project: GeneratedClientProject;

  beforeAll(async () => {
    project = await generatedClientProject();
    // `.js` import suffixes: the SDK compiles as NodeNext ES modules and runs in Node.
    await generateHeyApiClient({
      input: { ...project.doc },
      output: { path: join(project.dir, 'hey'), importFileExtension: '.js' },
      plugins: ['@hey-api/client-fetch'],
      logs: { level: 'silent' },
    });
    copyFileSync(CLIENT, join(project.dir, 'hey-client.ts'));
  }, 60_000);
  afterAll(() => project?.stop());

  it('generates an SDK function per operation, alias paths included', () => {
    const sdk = readFileSync(join(project.dir, 'hey/sdk.gen.ts'), 'utf8');
    for (const fn of ['stockxProduct', 'stockxSearch', 'stockxTrends', 'goatPrices', 'chrono24Finder', 'dbProducts'])
      expect(sdk).toMatch(new RegExp(`export const ${fn} =`));
  });

  it('type-checks with tsc: alias-path calls and a nested db filter, no cast; wrong operators and fields refused', async () => {
    expect(await compileProject(project.dir, ['hey-client.ts'])).toBe('');
    expect(readFileSync(CLIENT, 'utf8')).not.toMatch(/\bas\s+(any|unknown|never)\b/);
  }, 120_000);

  it('runs alias-path operations and a nested db filter with its default serializer', async () => {
    const { makeHeyClient, aliasesAndFilter } = await import(
      pathToFileURL(join(project.dir, 'out/hey-client.js')).href
    );
    const first = await aliasesAndFilter(makeHeyClient(project.origin, TEST_KEY), 'CW2288-111');
    expect(first.status).toEqual([200, 200, 200, 200, 200]);
    expect(first.productId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.hits).toBeGreaterThan(0);
    await project.app.history.recorder.flush();
    const recorded = await aliasesAndFilter(makeHeyClient(project.origin, TEST_KEY), 'CW2288-111');
    expect(recorded.urls).toEqual([expect.stringMatching(/nike\.com\/.*CW2288-111$/)]);
    expect(recorded.pages).toBe(1);
  });
});
