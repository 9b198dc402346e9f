/** The repo's own fixtures (test/fixtures/…): small documents we wrote with the real structure. One loader for all. */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './repo-root.js';

const DIR = pathToFileURL(`${REPO_ROOT}/test/fixtures/`);

/** A fixture's text, by its path under test/fixtures (e.g. `resale-b/buy-bar-data.json`). */
export function readFixture(path: string): string {
  return readFileSync(new URL(path, DIR), 'utf8');
}
