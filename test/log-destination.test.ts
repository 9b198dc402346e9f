/**
 * The batched log destination (src/server/log-destination.ts) loses and reorders nothing: every line reaches the
 * file in order on close, lines below a batch arrive within the flush interval without a close, lines written after
 * close still arrive, and a process that exits with lines still gathered writes them on its way out.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferedStdout } from '../src/server/log-destination.js';
import { cleanEnv } from './support/binary.js';
import { REPO_ROOT } from './support/repo-root.js';

const tmpFile = () => join(mkdtempSync(join(tmpdir(), 'marketlens-log-')), 'out.log');
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `{"line":${i},"pad":"${'x'.repeat(i % 200)}"}\n`);
const read = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

describe('the batched log destination', () => {
  it('writes every line, in order, by close (many batches)', () => {
    const file = tmpFile();
    const out = bufferedStdout(file);
    const lines = numbered(5000);
    // Close right after the writes, as a shutdown does: no batch may still be in flight or be written out of order
    // (CI saw a flush write later lines before the chunk an asynchronous write still held).
    for (const line of lines) out.stream.write(line);
    out.flush();
    expect(read(file)).toBe(lines.join(''));
  });

  it('writes a few lines within the flush interval without a close, and lines written after close', async () => {
    const file = tmpFile();
    const out = bufferedStdout(file);
    const lines = numbered(3);
    for (const line of lines) out.stream.write(line);
    await until(() => read(file) === lines.join(''), 2000);
    expect(read(file)).toBe(lines.join(''));
    out.flush();
    out.stream.write('{"after":"close"}\n');
    await until(() => read(file).endsWith('{"after":"close"}\n'), 2000);
    expect(read(file)).toBe(lines.join('') + '{"after":"close"}\n');
  });

  it('a process that exits with lines gathered writes them first', () => {
    // The compiled module (dist, built from the sources under test by the vitest global setup): plain node starts fast.
    const module = JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist/server/log-destination.js')).href);
    // Lines fewer than a batch, then exit at once: only the exit flush can write them.
    const script = `
      const { bufferedStdout } = await import(${module});
      const out = bufferedStdout(1);
      for (let i = 0; i < 20; i++) out.stream.write('{"line":' + i + '}\\n');
      process.exit(0);`;
    const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: cleanEnv({}),
      encoding: 'utf8',
    });
    expect(stdout).toBe(Array.from({ length: 20 }, (_, i) => `{"line":${i}}\n`).join(''));
  });
});
