/** Runs the real `marketlens` binary (through tsx) the way a user does, for CLI and shutdown tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT as ROOT } from './repo-root.js';
export const TSX = join(ROOT, 'node_modules/.bin/tsx');
export const CLI = join(ROOT, 'src/cli.ts');
/** tsx's loader, for running the CLI in a plain `node` process (see startServe). */
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/** This environment without any MARKETLENS_* of the developer's shell, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MARKETLENS_')));
  return { ...clean, ...extra };
}

/** `marketlens` with these arguments: one plain `node` process with tsx's loader (not tsx's wrapper and its child). */
export const CLI_COMMAND = (args: string[]): [string, string[]] => [
  process.execPath,
  ['--import', TSX_LOADER, CLI, ...args],
];

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** When the process exited (ms since epoch). */
  endedAt: number;
}

/** Runs one CLI command to its end without blocking this process (fake upstreams may live in it). */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const [cmd, argv] = CLI_COMMAND(args);
  const child = spawn(cmd, argv, { env: cleanEnv(env), cwd: tmpdir() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += String(d)));
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((r) => child.on('exit', (code) => r({ code, stdout, stderr, endedAt: Date.now() })));
}

export interface Served {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  out: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts `marketlens serve` with `env` (on top of a clean environment); resolves once it listens.
 * It runs in a plain `node` process with tsx's loader rather than under the `tsx` command: that command relays a
 * signal to its child only if the child confirms within 30 ms, else SIGKILLs it — on a busy machine a SIGTERM test
 * would then see tsx's kill, not marketlens's shutdown.
 */
export async function startServe(env: Record<string, string>): Promise<Served> {
  const [cmd, argv] = CLI_COMMAND(['serve']);
  const child = spawn(cmd, argv, { env: cleanEnv(env), cwd: tmpdir() });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const deadline = Date.now() + 30_000;
  while (!/Server listening/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`serve did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, out: () => out, exited };
}
