/**
 * The image's own steps, run here (no container runtime on these machines): the Dockerfile's `deps` stage in a clean
 * copy of the files it copies (`npm ci --omit=dev`: production dependencies only, quiet), the runtime stage assembled
 * from it and the compiled dist (what the `build` stage's `npm run build` makes; the vitest global setup built it
 * with the same tsconfig), then the image's ENTRYPOINT and CMD serving /healthz in under 5 s, its HEALTHCHECK passing,
 * SIGTERM stopping it cleanly, and `npm start` working from the same production tree. (The build stage's own steps
 * are test/docker-build-stage.test.ts's: they need no quiet machine.)
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCommand, type Served } from './support/binary.js';
import { argv, copies, copyFromContext, envOf, one, readDockerfile, runs, stage } from './support/dockerfile.js';
import { get } from './support/http-get.js';
import { closedPort } from './support/ports.js';
import { REPO_ROOT } from './support/repo-root.js';

const run = promisify(execFile);
const WORKDIR = '/app';
const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

/** Outside the repository, so nothing resolves through the checkout's node_modules. */
const ROOT = mkdtempSync(join(tmpdir(), 'marketlens-production-'));
const APP = join(ROOT, 'app');
const PREBUILDS = join(ROOT, 'prebuilds');

/**
 * better-sqlite3's installer (prebuild-install) downloads a prebuilt binary, else compiles SQLite (over a minute).
 * There is no internet here: its documented local-prebuilds folder gets the binary this checkout already built for
 * this same Node, packed as the download would be, so the install does everything else for real.
 */
async function seedSqlitePrebuild(): Promise<Record<string, string>> {
  const pkg = join(REPO_ROOT, 'node_modules/better-sqlite3');
  const { version: v } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(PREBUILDS, { recursive: true });
  const tarball = join(
    PREBUILDS,
    `better-sqlite3-v${v}-node-v${process.versions.modules}-linux-${process.arch}.tar.gz`,
  );
  await run('tar', ['-czf', tarball, '-C', pkg, 'build/Release/better_sqlite3.node']);
  return { npm_config_better_sqlite3_local_prebuilds: PREBUILDS };
}

describe('the production install (the Dockerfile deps and runtime stages)', () => {
  const stages = readDockerfile();
  const runtime = stage(stages, 'runtime');
  let installStderr = '';

  beforeAll(async () => {
    mkdirSync(APP, { recursive: true });
    const deps = stage(stages, 'deps');
    expect(one(deps, 'WORKDIR') ?? one(stage(stages, deps.from), 'WORKDIR')).toBe(WORKDIR);
    for (const c of copies(deps)) copyFromContext(c.sources, c.destination, APP);
    // From the npm cache where it holds a package (no revalidation round trips), as a rebuilt image layer would.
    const env = { ...process.env, npm_config_prefer_offline: 'true', ...(await seedSqlitePrebuild()) };
    for (const command of runs(deps)) {
      const { stderr } = await run('/bin/sh', ['-c', command], { cwd: APP, env, maxBuffer: 16 << 20 });
      installStderr += stderr;
    }
    // The runtime stage: node_modules from deps (already here), dist from build, the rest from the context.
    for (const c of copies(runtime)) {
      if (c.from === undefined) copyFromContext(c.sources, c.destination, APP);
      else if (c.from === 'build') {
        expect(c.sources).toEqual([`${WORKDIR}/dist`]);
        cpSync(join(REPO_ROOT, 'dist'), join(APP, c.destination), { recursive: true });
      } else expect(c).toEqual({ from: 'deps', sources: [`${WORKDIR}/node_modules`], destination: 'node_modules' });
    }
    // ~35 s on an idle 2-core machine, the install's own time; the bound leaves room for a machine under load.
  }, 120_000);
  afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

  it('installs production dependencies only, without an install-scripts warning', () => {
    expect(existsSync(join(APP, 'node_modules/fastify/package.json'))).toBe(true);
    expect(existsSync(join(APP, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
    expect(existsSync(join(APP, 'node_modules/typescript')), 'TypeScript is a dev dependency').toBe(false);
    // (npm notes the test's own prebuild variable, which is not one of its settings: that line is this test's.)
    const npmSaid = installStderr
      .split('\n')
      .filter((line) => !line.includes('better-sqlite3-local-prebuilds'))
      .join('\n');
    expect(npmSaid).not.toMatch(/install-scripts|allowScripts/);
    expect(npmSaid).not.toMatch(/npm (warn|error)/i);
  });

  it('runs as an unprivileged user with its data directory on a volume', () => {
    const env = envOf(runtime);
    expect(one(runtime, 'USER')).toMatch(/^(?!root$|0$)\w+$/);
    expect(JSON.parse(one(runtime, 'VOLUME') ?? '[]')).toContain(env.MARKETLENS_DATA_DIR);
    expect(runs(runtime).join('\n')).toContain(`chown node:node ${env.MARKETLENS_DATA_DIR}`);
  });

  it('serves /healthz in under 5 s from the image command, passes its HEALTHCHECK, and stops on SIGTERM', async () => {
    const port = await closedPort();
    const [entry, ...entryArgs] = argv(one(runtime, 'ENTRYPOINT') ?? '[]');
    const env = {
      ...envOf(runtime),
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_PORT: String(port),
      MARKETLENS_DATA_DIR: mkdtempSync(join(ROOT, 'data-')),
      MARKETLENS_BROWSER_PATH: 'none',
      MARKETLENS_SHUTDOWN_DELAY_MS: '0',
    };
    const started = Date.now();
    const served = await startCommand(
      join(APP, entry!),
      [...entryArgs, ...argv(one(runtime, 'CMD') ?? '[]')],
      env,
      APP,
    );
    try {
      const health = await get(port, '/healthz');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toEqual({ status: 'ok', version });
      // The dashboard's page ships in the image beside dist/.
      const page = await get(port, '/');
      expect(page.status).toBe(200);
      expect(page.body).toContain('<html');
      const check = /\bCMD\s+(\[.*\])$/.exec(one(runtime, 'HEALTHCHECK') ?? '')?.[1];
      const [cmd, ...args] = argv(check ?? '[]');
      await expect(run(cmd!, args, { env: { ...process.env, ...env } })).resolves.toBeDefined();
    } finally {
      served.child.kill('SIGTERM');
    }
    expect(await served.exited).toBe(0);
  });

  it('`npm start` serves from the production tree without compiling', async () => {
    const port = await closedPort();
    let served: Served | undefined;
    try {
      served = await startCommand(
        'npm',
        ['start', '--silent'],
        {
          MARKETLENS_HOST: '127.0.0.1',
          MARKETLENS_PORT: String(port),
          MARKETLENS_DATA_DIR: mkdtempSync(join(ROOT, 'data-')),
          MARKETLENS_BROWSER_PATH: 'none',
          MARKETLENS_SHUTDOWN_DELAY_MS: '0',
        },
        APP,
      );
      expect((await get(port, '/healthz')).status).toBe(200);
      expect(served.out()).not.toMatch(/compiling/);
      // The banner's command works in this tree too (no tsx, no TypeScript: it runs dist).
      expect(served.out()).toContain('Manage keys with `npm run marketlens -- keys`.');
      const { stdout } = await run('npm', ['run', '--silent', 'marketlens', '--', '--version'], { cwd: APP });
      expect(stdout.trim()).toBe(version);
    } finally {
      served?.child.kill('SIGTERM');
    }
    await served?.exited;
  });
});
