/**
 * One app in a process of its own, for tests of several instances and of kill -9: testApp's configuration (testEnv
 * with `env`), plus ALERTS_TIMING (JSON, the delivery timing tests shorten), listening on 127.0.0.1. Prints
 * `listening <base URL>` once it accepts requests.
 *
 * The process is plain `node` on the compiled app (dist, built from the sources under test by the vitest global
 * setup: test/support/build-dist.ts), not tsx on src: tsx's loader hooks every module the app loads, which doubled
 * each start's CPU (about 1.9 s against 0.95 s) — on a busy machine, seconds of wall time per instance.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanEnv } from './binary.js';
import { testEnv } from './app.js';
import { REPO_ROOT } from './repo-root.js';

export interface Instance {
  child: ChildProcess;
  base: string;
  out: () => string;
}

const dist = (path: string) => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', path)).href);

/** The child's program (an ES module, for `node --input-type=module -e`). */
const PROGRAM = `
const { buildApp } = await import(${dist('server/app.js')});
const { loadConfig } = await import(${dist('config.js')});
const env = Object.fromEntries(Object.entries(process.env).filter((e) => e[0].startsWith('MARKETLENS_') && !!e[1]));
const app = await buildApp({ config: loadConfig(env), alerts: { timing: JSON.parse(process.env.ALERTS_TIMING ?? '{}') } });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(\`listening \${base}\`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
`;

/** Starts an instance with `env` (on top of testEnv and a clean environment); resolves once it listens. */
export async function startInstance(env: Record<string, string>, timing: object): Promise<Instance> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', PROGRAM], {
    env: cleanEnv({ ...testEnv({ MARKETLENS_LOG_LEVEL: 'warn', ...env }), ALERTS_TIMING: JSON.stringify(timing) }),
    cwd: tmpdir(),
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const deadline = Date.now() + 30_000;
  let listening: RegExpExecArray | null;
  while (!(listening = /listening (\S+)/.exec(out))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`instance did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, base: listening[1]!, out: () => out };
}
