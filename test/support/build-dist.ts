/**
 * Vitest global setup: process tests spawn the compiled `dist/cli.js` (test/support/binary.ts) — 0.5–0.8 s a start
 * against 1.7–2.2 s through tsx — so dist must be built from the sources under test, never stale. Before any test,
 * this compiles src with tsconfig.build.json (as `npm run build` does) unless dist was already built from exactly
 * these sources: a hash of every file under src and of the TypeScript configuration is kept in dist, beside tsc's
 * incremental build info (both go when dist is deleted, so a deleted dist is always rebuilt in full).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './repo-root.js';

const DIST = join(REPO_ROOT, 'dist');
const HASH_FILE = join(DIST, '.source-hash');
const BUILD_INFO = join(DIST, '.tsbuildinfo');
/** Held while building, so two vitest runs in one checkout do not write dist at the same time. */
const LOCK = join(REPO_ROOT, 'node_modules/.cache/marketlens-dist.lock');

/** A hash of what the build reads: every file under src, the tsconfigs, and the TypeScript version. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const files = readdirSync(join(REPO_ROOT, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
  for (const file of [...files, join(REPO_ROOT, 'tsconfig.json'), join(REPO_ROOT, 'tsconfig.build.json')]) {
    hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  }
  hash.update(readFileSync(join(REPO_ROOT, 'node_modules/typescript/package.json')));
  return hash.digest('hex');
}

/**
 * Whether dist holds exactly what the last build here wrote: the hash file exists and nothing in dist is newer. Not
 * so after `npm run build` (it rewrites dist without the build info): tsc's build info would then describe files
 * that are no longer there, and an incremental build could leave another build's output in place.
 */
function untouchedSinceBuild(): boolean {
  if (!existsSync(HASH_FILE)) return false;
  const built = statSync(HASH_FILE).mtimeMs;
  return readdirSync(DIST, { recursive: true, withFileTypes: true }).every(
    (e) => !e.isFile() || statSync(join(e.parentPath, e.name)).mtimeMs <= built,
  );
}

const upToDate = (hash: string) =>
  existsSync(join(DIST, 'cli.js')) &&
  existsSync(HASH_FILE) &&
  readFileSync(HASH_FILE, 'utf8') === hash &&
  untouchedSinceBuild();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Takes the build lock, waiting while another live process holds it (a dead holder's lock is taken over). */
async function lock(): Promise<void> {
  mkdirSync(join(LOCK, '..'), { recursive: true });
  for (;;) {
    try {
      writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(readFileSync(LOCK, 'utf8').trim());
    if (!(holder > 0) || !alive(holder)) rmSync(LOCK, { force: true });
    else await lockReleased(holder);
  }
}

/**
 * Resolves once the lock file is gone (a watcher on its folder), or once its holder died without removing it (the
 * only thing a watcher cannot see: checked each second).
 */
function lockReleased(holder: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      watcher.close();
      clearInterval(deathCheck);
      resolve();
    };
    const watcher = watch(join(LOCK, '..'), () => {
      if (!existsSync(LOCK)) done();
    });
    const deathCheck = setInterval(() => {
      if (!alive(holder)) done();
    }, 1000);
    // Released between the failed take and the watcher's start: no event will come.
    if (!existsSync(LOCK)) done();
  });
}

export default async function setup(): Promise<void> {
  if (upToDate(sourceHash())) return;
  await lock();
  try {
    const hash = sourceHash(); // again: the sources may have changed while another run held the lock
    if (upToDate(hash)) return;
    // Incremental only over this setup's own last build; anything else is compiled in full.
    if (!untouchedSinceBuild()) rmSync(BUILD_INFO, { force: true });
    rmSync(HASH_FILE, { force: true });
    const started = Date.now();
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    try {
      execFileSync(
        process.execPath,
        [tsc, '-p', join(REPO_ROOT, 'tsconfig.build.json'), '--incremental', '--tsBuildInfoFile', BUILD_INFO],
        { cwd: REPO_ROOT, encoding: 'utf8', stdio: 'pipe' },
      );
    } catch (e) {
      const { status, stdout } = e as { status?: number | null; stdout?: string };
      // Exit status 2 is tsc's "errors, outputs generated": dist matches the sources, and the type errors are
      // `npm test`'s typecheck's to report. The hash is not written, so the next run builds (and warns) again.
      // Anything else (outputs skipped, tsc not starting) leaves dist stale: no test may run on it.
      if (status !== 2) throw e;
      console.warn(`build-dist: tsc reported errors (dist is built from the current sources anyway):\n${stdout}`);
      return;
    }
    writeFileSync(HASH_FILE, hash);
    console.log(`build-dist: compiled src into dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    rmSync(LOCK, { force: true });
  }
}

// Also a script: `npm run checks` builds dist beside the typecheck and lint, and vitest's setup then finds it fresh.
if (process.argv[1] === fileURLToPath(import.meta.url)) await setup();
