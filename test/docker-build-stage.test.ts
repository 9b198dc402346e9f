/**
 * The Dockerfile's build stage, run here (no container runtime on these machines): every step it runs, in a clean
 * copy of exactly the files it copies, so a source the build needs and the stage forgets fails here. Its `npm ci`
 * (dev dependencies included, from the lockfile test/production-install.test.ts installs the deps stage from for
 * real) is stood in for by the checkout's node_modules. A compile, not a timing: it runs beside the other files.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { copies, copyFromContext, readDockerfile, runs, stage } from './support/dockerfile.js';
import { REPO_ROOT } from './support/repo-root.js';

const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

describe('the Dockerfile build stage', () => {
  /** Outside the repository, so nothing resolves through the checkout's files but node_modules. */
  const BUILD = join(mkdtempSync(join(tmpdir(), 'marketlens-build-stage-')), 'app');
  afterAll(() => rmSync(join(BUILD, '..'), { recursive: true, force: true }));

  it('compiles from exactly the files it copies', { timeout: 120_000 }, async () => {
    const build = stage(readDockerfile(), 'build');
    mkdirSync(BUILD, { recursive: true });
    for (const c of copies(build)) copyFromContext(c.sources, c.destination, BUILD);
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(BUILD, 'node_modules'), 'dir');
    const steps = runs(build).filter((command) => !/^npm ci\b/.test(command));
    expect(steps).toContain('npm run build');
    for (const command of steps) await run('/bin/sh', ['-c', command], { cwd: BUILD, maxBuffer: 16 << 20 });
    const { stdout } = await run(process.execPath, [join(BUILD, 'dist/cli.js'), '--version'], { cwd: BUILD });
    expect(stdout.trim()).toBe(version);
  });
});
