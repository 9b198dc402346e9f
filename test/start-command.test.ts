/**
 * The start commands run the service with the V8 flags it needs (issue 21): `marketlens serve` through the installed
 * bin (bin/marketlens.js → the compiled dist/, as an `npm install -g` runs it) and through `npm start`'s command have
 * --no-allocation-site-pretenuring in effect from the first GC on. V8 has no API to read a flag, so the test watches what the flag turns
 * off: with `--trace-pretenuring-statistics`, V8 prints its pretenuring decisions at each GC; with the flag, none.
 * The control, the same compiled server started without the CLI entry, prints them under the same load, so the
 * observation can fail.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEY } from './support/app.js';
import { cleanEnv } from './support/binary.js';
import { closedPort } from './support/ports.js';

const ROOT = resolve(import.meta.dirname, '..');
/** Under the repo's node_modules, so the compiled files resolve their packages as an installed copy does. */
const BUILD = join(ROOT, 'node_modules/.cache/marketlens-start-command', String(process.pid));
const TRACE = '--trace-pretenuring-statistics';

interface Run {
  /** Lines V8 printed about pretenuring decisions. */
  pretenuring: number;
  requests: number;
  out: string;
}

/** Runs `node [TRACE] …args` as a server on `port`, loads /healthz for 1.5 s, stops it, and counts V8's trace lines. */
async function serveUnderLoad(args: string[], port: number, cwd = tmpdir()): Promise<Run> {
  const child = spawn(process.execPath, [TRACE, ...args], {
    env: cleanEnv({
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_PORT: String(port),
      MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-start-')),
      MARKETLENS_API_KEYS: TEST_KEY,
      MARKETLENS_BROWSER_PATH: 'none',
      MARKETLENS_LOG_LEVEL: 'info',
      MARKETLENS_SHUTDOWN_DELAY_MS: '0',
    }),
    cwd,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise((r) => child.on('exit', r));
  try {
    const deadline = Date.now() + 30_000;
    while (!/Server listening/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await autocannon({ url: `http://127.0.0.1:${port}/healthz`, connections: 10, duration: 1.5 });
    child.kill('SIGTERM');
    await exited;
    return {
      pretenuring: out.split('\n').filter((l) => l.includes('pretenuring:')).length,
      requests: r.requests.total,
      out,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

describe('the start command', () => {
  beforeAll(() => {
    mkdirSync(BUILD, { recursive: true });
    // What `npm run build` makes (tsconfig.build.json), beside a copy of the bin: the bin imports ../dist/cli.js.
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(ROOT, 'tsconfig.build.json'),
        '--outDir',
        join(BUILD, 'dist'),
      ],
      { stdio: 'inherit' },
    );
    cpSync(join(ROOT, 'bin/marketlens.js'), join(BUILD, 'bin/marketlens.js'));
  }, 120_000);
  afterAll(() => rmSync(BUILD, { recursive: true, force: true }));

  it(
    'the bin and `npm start` serve with --no-allocation-site-pretenuring in effect from the start',
    { timeout: 60_000 },
    async () => {
      const viaBin = await serveUnderLoad([join(BUILD, 'bin/marketlens.js'), 'serve'], await closedPort());
      // `npm start` after its `npm run build`: the script's own command line, run where dist/ is.
      const [node, ...startArgs] = (
        JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
          scripts: { start: string };
        }
      ).scripts.start.split(' ');
      expect(node).toBe('node');
      const viaNpmStart = await serveUnderLoad(startArgs, await closedPort(), BUILD);
      // The same compiled server, built and listening without the CLI entry (so without its flags).
      const app = pathToFileURL(join(BUILD, 'dist/server/app.js')).href;
      const config = pathToFileURL(join(BUILD, 'dist/config.js')).href;
      const control = await serveUnderLoad(
        [
          '--input-type=module',
          '-e',
          `const { buildApp } = await import(${JSON.stringify(app)});
         const { loadConfig } = await import(${JSON.stringify(config)});
         const config = loadConfig();
         const app = await buildApp({ config });
         process.once('SIGTERM', () => app.close().then(() => process.exit(0)));
         await app.listen({ host: config.host, port: config.port });`,
        ],
        await closedPort(),
      );
      for (const run of [viaBin, viaNpmStart, control]) expect(run.requests).toBeGreaterThan(300);
      expect(control.pretenuring, 'the control makes pretenuring decisions').toBeGreaterThan(0);
      expect(viaBin.pretenuring, viaBin.out.slice(-2000)).toBe(0);
      expect(viaNpmStart.pretenuring, viaNpmStart.out.slice(-2000)).toBe(0);
    },
  );
});
