/**
 * Start-up failures a self-hoster fixes with a setting: one line naming the cause and the variable, a non-zero exit
 * code, no stack trace (the compiled CLI, as `npm start` and the image run it).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type Ran } from './support/binary.js';
import { closedPort } from './support/ports.js';

const BASE = {
  MARKETLENS_HOST: '127.0.0.1',
  MARKETLENS_API_KEYS: 'ml_startup_failure_test_key_0123456789',
  MARKETLENS_BROWSER_PATH: 'none',
  MARKETLENS_LOG_LEVEL: 'warn',
};

/** The lines a person reads: stderr, and stdout without the JSON log lines. */
function said(ran: Ran): string[] {
  return [...ran.stderr.split('\n'), ...ran.stdout.split('\n').filter((l) => !l.startsWith('{'))].filter(
    (l) => l.trim() !== '',
  );
}

function expectOneLine(ran: Ran, pattern: RegExp): void {
  expect(ran.code, ran.stderr).toBe(1);
  const lines = said(ran);
  expect(lines, ran.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(ran.stderr).not.toMatch(/^\s+at /m);
}

const dataDir = () => mkdtempSync(join(tmpdir(), 'marketlens-startup-'));

// Each test starts the service (about 3 s idle; a loaded machine stretches that well past the default 20 s).
describe.concurrent('start-up failures', { timeout: 60_000 }, () => {
  it('port in use: names the port and MARKETLENS_PORT', async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const port = (taken.address() as { port: number }).port;
    try {
      const ran = await runCli(['serve'], { ...BASE, MARKETLENS_PORT: String(port), MARKETLENS_DATA_DIR: dataDir() });
      expectOneLine(ran, new RegExp(`^port ${port} is in use on 127\\.0\\.0\\.1: set MARKETLENS_PORT`));
    } finally {
      taken.close();
    }
  });

  it('an address this machine lacks: names MARKETLENS_HOST', async () => {
    const ran = await runCli(['serve'], {
      ...BASE,
      MARKETLENS_HOST: '192.0.2.1', // TEST-NET-1: never a local address
      MARKETLENS_PORT: String(await closedPort()),
      MARKETLENS_DATA_DIR: dataDir(),
    });
    expectOneLine(ran, /^192\.0\.2\.1 is not an address of this machine: set MARKETLENS_HOST/);
  });

  it('database unreachable: names the database and MARKETLENS_DATABASE_URL', async () => {
    const port = await closedPort();
    const ran = await runCli(['serve'], {
      ...BASE,
      MARKETLENS_PORT: String(await closedPort()),
      MARKETLENS_DATABASE_URL: `postgres://marketlens@127.0.0.1:${port}/test`,
    });
    expectOneLine(
      ran,
      new RegExp(`Cannot reach the PostgreSQL database .*127\\.0\\.0\\.1:${port}.*MARKETLENS_DATABASE_URL`),
    );
  });

  it('data directory not writable: names the folder and MARKETLENS_DATA_DIR', async () => {
    // A file where the folder should be: refused even to root (tests may run as root, which ignores file modes).
    const notAFolder = join(dataDir(), 'data');
    writeFileSync(notAFolder, '');
    const ran = await runCli(['serve'], {
      ...BASE,
      MARKETLENS_PORT: String(await closedPort()),
      MARKETLENS_DATA_DIR: notAFolder,
    });
    expectOneLine(
      ran,
      new RegExp(`Cannot open the database file ${notAFolder}/marketlens\\.db: .*set MARKETLENS_DATA_DIR`),
    );
  });
});
