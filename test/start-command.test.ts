/**
 * The start commands run the service with the V8 flags it needs (issue 21): `marketlens serve` through the installed
 * bin (bin/marketlens → the compiled dist/, as an `npm install -g` runs it) and `npm start`'s script, each run as npm
 * and a shell run them. Both flags are checked by what they do, with a control that runs the same compiled server
 * without them, under the same load, so each observation can fail:
 * - --no-allocation-site-pretenuring: with `--trace-pretenuring-statistics`, V8 prints its pretenuring decisions at
 *   each GC; with the flag, none. The trace flag reaches the bin's own `node` through a `node` first on PATH that adds it.
 * - --max-semi-space-size=4: the young generation (two semi-spaces) never grows past 8 MiB, as /metrics reports it.
 * - MALLOC_ARENA_MAX=2 is in the serving process's environment (/proc/<pid>/environ).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { START_ENV, V8_FLAGS } from '../src/v8-flags.js';
import { TEST_KEY, auth } from './support/app.js';
import { cleanEnv } from './support/binary.js';
import { closedPort } from './support/ports.js';

const ROOT = resolve(import.meta.dirname, '..');
/** Under the repo's node_modules, so the compiled files resolve their packages as an installed copy does. */
const BUILD = join(ROOT, 'node_modules/.cache/marketlens-start-command', String(process.pid));
/** A `node` that adds the trace flag, first on the PATH the bin's `exec node` searches. */
const TRACING_NODE_DIR = join(BUILD, 'tracing-node');
const TRACE = '--trace-pretenuring-statistics';
const NEW_SPACE = /^marketlens_nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)$/m;

interface Run {
  /** Lines V8 printed about pretenuring decisions. */
  pretenuring: number;
  /** The young generation's size after the load, from /metrics. */
  newSpaceBytes: number;
  /** MALLOC_ARENA_MAX in the serving process's environment (/proc), if set. */
  mallocArenaMax: string | undefined;
  /** Whether the serving process still ran after SIGTERM to the spawned process (npm's `sh -c` once kept it alive). */
  leftRunning: boolean;
  requests: number;
  out: string;
}

/** Runs `command args` as a server on `port`, loads /healthz for 1.5 s, reads /metrics, stops it. */
async function serveUnderLoad(command: string, args: string[], port: number, cwd = tmpdir()): Promise<Run> {
  const env = cleanEnv({
    MARKETLENS_HOST: '127.0.0.1',
    MARKETLENS_PORT: String(port),
    MARKETLENS_DATA_DIR: mkdtempSync(join(tmpdir(), 'marketlens-start-')),
    MARKETLENS_API_KEYS: TEST_KEY,
    MARKETLENS_BROWSER_PATH: 'none',
    MARKETLENS_LOG_LEVEL: 'info',
    MARKETLENS_SHUTDOWN_DELAY_MS: '0',
  });
  env.PATH = [TRACING_NODE_DIR, env.PATH].join(delimiter);
  delete env.MALLOC_ARENA_MAX; // the bin's default is under test, not this shell's value
  // A process group of its own, so that whatever is left once the test is over can be killed at once.
  const child = spawn(command, args, { env, cwd, detached: true });
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone
    }
  };
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  // 'close': every process of the group holding the output pipes has exited, node included.
  let closed = false;
  const finished = new Promise<void>((r) => child.on('close', () => r(void (closed = true))));
  try {
    const deadline = Date.now() + 30_000;
    while (!/Server listening/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await autocannon({ url: `http://127.0.0.1:${port}/healthz`, connections: 10, duration: 1.5 });
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: auth })).text();
    // The serving process's pid, from its own log line (`sh -c` may stay between it and this test).
    const pid = /"pid":(\d+)/.exec(out)?.[1];
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const mallocArenaMax = environ.find((v) => v.startsWith('MALLOC_ARENA_MAX='))?.split('=')[1];
    // SIGTERM to the spawned process alone, as npm forwards a signal to its script's shell: the server must get it.
    child.kill('SIGTERM');
    await Promise.race([finished, new Promise((r) => setTimeout(r, 15_000))]);
    // Running: its /proc entry is there and not a zombie (an orphan's exit is reaped by whoever adopted it).
    let leftRunning = false;
    try {
      leftRunning = !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      // gone
    }
    return {
      pretenuring: out.split('\n').filter((l) => l.includes('pretenuring:')).length,
      newSpaceBytes: Number(NEW_SPACE.exec(metrics)?.[1] ?? NaN),
      mallocArenaMax,
      leftRunning,
      requests: r.requests.total,
      out,
    };
  } finally {
    if (!closed) signalGroup('SIGKILL');
  }
}

describe('the start command', () => {
  beforeAll(() => {
    mkdirSync(join(BUILD, 'bin'), { recursive: true });
    // What `npm run build` makes (tsconfig.build.json; the vitest global setup built dist from the current sources),
    // beside a copy of the bin: the bin runs ../dist/cli.js.
    cpSync(join(ROOT, 'dist'), join(BUILD, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'bin/marketlens'), join(BUILD, 'bin/marketlens'));
    // And package.json, as in every installed copy: the service reads its version there (src/version.ts).
    cpSync(join(ROOT, 'package.json'), join(BUILD, 'package.json'));
    // The dashboard's page files ship beside dist/ (read at start-up from <package>/dashboard).
    cpSync(join(ROOT, 'dashboard'), join(BUILD, 'dashboard'), { recursive: true });
    mkdirSync(TRACING_NODE_DIR);
    writeFileSync(
      join(TRACING_NODE_DIR, 'node'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${TRACE} "$@"\n`,
    );
    chmodSync(join(TRACING_NODE_DIR, 'node'), 0o755);
  }, 120_000);
  afterAll(() => rmSync(BUILD, { recursive: true, force: true }));

  it('the bin passes node every flag of src/v8-flags.ts', () => {
    const exec = readFileSync(join(ROOT, 'bin/marketlens'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('exec node '));
    expect(exec?.split(' ').filter((word) => word.startsWith('--'))).toEqual([...V8_FLAGS]);
  });

  it('the bin and `npm start` serve with the flags in effect from the start', { timeout: 60_000 }, async () => {
    // Through a symlink, as npm installs a bin (node_modules/.bin/marketlens → ../marketlens/bin/marketlens).
    const link = join(BUILD, 'linked-bin');
    mkdirSync(link, { recursive: true });
    execFileSync('ln', ['-sf', join(BUILD, 'bin/marketlens'), join(link, 'marketlens')]);
    const viaBin = await serveUnderLoad(join(link, 'marketlens'), ['serve'], await closedPort());
    // `npm start` after its `npm run build`: the script as npm runs it (`sh -c`), where dist/ is.
    const { start } = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
      .scripts;
    const viaNpmStart = await serveUnderLoad('sh', ['-c', start], await closedPort(), BUILD);
    // The same compiled server, built and listening without the start commands (so without their flags).
    const app = pathToFileURL(join(BUILD, 'dist/server/app.js')).href;
    const config = pathToFileURL(join(BUILD, 'dist/config.js')).href;
    const control = await serveUnderLoad(
      join(TRACING_NODE_DIR, 'node'),
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
    for (const run of [viaBin, viaNpmStart, control]) {
      expect(run.requests).toBeGreaterThan(300);
      expect(run.leftRunning).toBe(false);
    }
    expect(control.pretenuring, 'the control makes pretenuring decisions').toBeGreaterThan(0);
    expect(control.newSpaceBytes, 'the control grows its young generation past 8 MiB').toBeGreaterThan(8 << 20);
    for (const run of [viaBin, viaNpmStart]) {
      expect(run.pretenuring, run.out.slice(-2000)).toBe(0);
      expect(run.newSpaceBytes).toBeLessThanOrEqual(8 << 20);
      expect(run.mallocArenaMax).toBe(START_ENV.MALLOC_ARENA_MAX);
    }
    expect(control.mallocArenaMax).toBeUndefined();
  });
});
