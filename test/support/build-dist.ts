/**
 * Vitest global setup: process tests spawn the compiled `dist/cli.js` (test/support/binary.ts) — 0.5–0.8 s a start
 * against 1.7–2.2 s through tsx — so dist must be built from the sources under test, never stale. Before any test,
 * this compiles src with tsconfig.build.json's options unless dist was already built from exactly these sources: a
 * hash of every file under src and of the TypeScript configuration is kept in dist (it goes when dist is deleted).
 *
 * Each file is transpiled alone (TypeScript's transpileModule), without a type check: the configuration sets
 * isolatedModules, so a file's output depends on that file only and is byte for byte what `npm run build` (tsc)
 * writes, at a third of tsc's CPU time; the type check is `npm test`'s typecheck's, which covers src.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { REPO_ROOT } from './repo-root.js';

const DIST = join(REPO_ROOT, 'dist');
const SRC = join(REPO_ROOT, 'src');
const HASH_FILE = join(DIST, '.source-hash');
/** Where tsc's incremental build info was kept before: removed, so it cannot describe files it did not write. */
const OLD_BUILD_INFO = join(DIST, '.tsbuildinfo');
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
 * Whether dist holds exactly what the last build here wrote: the hash file exists and nothing in dist is newer (not
 * so after `npm run build`, which rewrites dist without the hash).
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

/**
 * Writes dist from src the way tsc -p tsconfig.build.json does: each included file's JavaScript and source map, and
 * the JSON files src imports (tsc copies those, re-indented; here as they are). Returns the syntax errors found (tsc
 * would emit despite them too).
 */
function transpileSources(): string[] {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(REPO_ROOT, 'tsconfig.build.json'), {}, host);
  if (!parsed) throw new Error('build-dist: cannot read tsconfig.build.json');
  // transpileModule cannot tell a NodeNext file's format from package.json: ESNext is what NodeNext emits for a
  // `"type": "module"` package (verified identical to tsc's output).
  const compilerOptions = {
    ...parsed.options,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  };
  const errors: string[] = [];
  for (const file of parsed.fileNames) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions,
      fileName: file,
      reportDiagnostics: true,
    });
    for (const d of out.diagnostics ?? [])
      errors.push(`${relative(REPO_ROOT, file)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    const target = join(DIST, relative(SRC, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
    if (out.sourceMapText !== undefined) writeFileSync(`${target}.map`, out.sourceMapText);
  }
  for (const e of readdirSync(SRC, { recursive: true, withFileTypes: true }))
    if (e.isFile() && e.name.endsWith('.json')) {
      const file = join(e.parentPath, e.name);
      const target = join(DIST, relative(SRC, file));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(file, target);
    }
  return errors;
}

export default async function setup(): Promise<void> {
  if (upToDate(sourceHash())) return;
  await lock();
  try {
    const hash = sourceHash(); // again: the sources may have changed while another run held the lock
    if (upToDate(hash)) return;
    rmSync(HASH_FILE, { force: true });
    rmSync(OLD_BUILD_INFO, { force: true });
    const started = Date.now();
    const errors = transpileSources();
    if (errors.length) {
      // dist matches the sources, and the errors are `npm test`'s typecheck's to report. The hash is not written, so
      // the next run builds (and warns) again.
      console.warn(`build-dist: syntax errors (dist is built from the current sources anyway):\n${errors.join('\n')}`);
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
