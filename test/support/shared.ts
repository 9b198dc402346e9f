/**
 * `../shared` holds the real upstream captures. A fresh clone of the repo may not have it: tests that read it skip
 * with a visible notice then, but when CI is set a missing `../shared` is a failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './repo-root.js';

const dir = resolve(REPO_ROOT, '../shared/upstream-samples');
export const sharedAvailable = existsSync(dir);

if (!sharedAvailable) {
  if (process.env.CI) throw new Error(`CI is set but the real captures are missing: ${dir}`);
  console.warn(`\n[marketlens] NOTICE: ${dir} not found — tests on real upstream captures are skipped.\n`);
}

/** Absolute path of a capture, e.g. sharedDir('goat/x.json'). */
export function sharedDir(rel = ''): string {
  return join(dir, rel);
}

export function readCapture(rel: string): string {
  return readFileSync(sharedDir(rel), 'utf8');
}
