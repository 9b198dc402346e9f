/**
 * The bench measures the service as `npm start` runs it: compiled JavaScript in a plain `node`, not through tsx. tsx's
 * loader runs on its own thread with its own V8 heap (about 60 MB of RSS in a service process) and would be counted
 * as the service's. Once per bench process, `tsc -p tsconfig.bench.json` compiles src, bench and test/support into
 * node_modules/.cache/marketlens-bench; a bench child is then the compiled twin of its .ts file.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../../test/support/repo-root.js';

const OUT = join(REPO_ROOT, 'node_modules/.cache/marketlens-bench');
let built = false;

/** The compiled path of a source file of this repository (e.g. bench/lib/service-child.ts), compiling first. */
export function compiled(source: URL | string): string {
  if (!built) {
    const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(REPO_ROOT, 'tsconfig.bench.json')], { stdio: 'inherit' });
    // The service reads its version from package.json one folder above src/ (src/version.ts), as in an install. Only
    // the version and the module type: without the name, repo-root.ts still finds the repository above it.
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    writeFileSync(join(OUT, 'package.json'), JSON.stringify({ type: 'module', version }));
    built = true;
  }
  const file = typeof source === 'string' ? source : fileURLToPath(source);
  return join(OUT, relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
}
