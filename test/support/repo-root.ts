/**
 * The repository's root directory, found from this file's place: the same answer whether the module runs as source
 * (tsx, vitest) or from the bench's compiled copy (node_modules/.cache/marketlens-bench, see bench/lib/compiled.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'marketlens')
      return dir;
    if (dirname(dir) === dir) throw new Error(`no marketlens package.json above ${from}`);
  }
}

export const REPO_ROOT = findRoot(import.meta.dirname);
