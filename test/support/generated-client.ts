/**
 * What the generated-client tests share: the service over fake marketplaces, its /openapi.json, and a temporary
 * project (the repo's node_modules linked in) where a generator's output and a client file are compiled by `tsc`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import type { OpenAPI3 } from 'openapi-typescript';
import { testApp } from './app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './fixture-marketplaces.js';

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, '../..');

export interface GeneratedClientProject {
  app: FastifyInstance;
  origin: string;
  /** The service's /openapi.json, as a generator would download it. */
  doc: OpenAPI3;
  /** The temporary project directory. */
  dir: string;
  stop(): Promise<void>;
}

/** Starts the service on a loopback port and prepares an empty ES-module project beside it. */
export async function generatedClientProject(): Promise<GeneratedClientProject> {
  const marketplaces: FixtureMarketplaces = await startFixtureMarketplaces();
  const app = await testApp(marketplaces.env);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const doc = (await (await fetch(`${origin}/openapi.json`)).json()) as OpenAPI3;
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-client-'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  return {
    app,
    origin,
    doc,
    dir,
    async stop() {
      await app.close();
      await marketplaces.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Compiles `files` of the project strictly (NodeNext, into ./out); returns tsc's output, '' when clean. */
export async function compileProject(dir: string, files: string[]): Promise<string> {
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
      files,
    }),
  );
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', dir]).catch((e: { stdout: string; stderr: string }) => e);
  return `${result.stdout}${result.stderr}`;
}
