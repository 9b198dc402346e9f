/**
 * One app in a process of its own, for tests of several instances and of kill -9: testApp's configuration from this
 * process's MARKETLENS_* environment, plus ALERTS_TIMING (JSON, the delivery timing tests shorten), listening on
 * 127.0.0.1. Prints `listening <base URL>` once it accepts requests. Started by `startInstance` below.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { TSX_LOADER, cleanEnv } from './binary.js';

export interface Instance {
  child: ChildProcess;
  base: string;
  out: () => string;
}

/** Starts this file as a child process with `env` (on top of a clean environment); resolves once it listens. */
export async function startInstance(env: Record<string, string>, timing: object): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, fileURLToPath(import.meta.url)], {
    env: cleanEnv({ ...env, ALERTS_TIMING: JSON.stringify(timing) }),
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { buildApp } = await import('../../src/server/app.js');
  const { testConfig } = await import('./app.js');
  const env = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('MARKETLENS_') && !!e[1]),
  );
  const app = await buildApp({
    config: testConfig({ MARKETLENS_LOG_LEVEL: 'warn', ...env }),
    alerts: { timing: JSON.parse(process.env.ALERTS_TIMING ?? '{}') },
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`listening ${base}`);
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
