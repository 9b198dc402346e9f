/**
 * Runs the real `marketlens` command the way a user does, for CLI, process and shutdown tests: the compiled CLI
 * (dist/cli.js, what bin/marketlens and `npm start` run) in a plain `node` process. The vitest global setup
 * (test/support/build-dist.ts) builds dist from the current sources before any test, so it is never stale.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT as ROOT } from './repo-root.js';
/** tsx, for scripts that are not part of the build (scripts/*.ts). */
export const TSX = join(ROOT, 'node_modules/.bin/tsx');
/** The compiled CLI. */
export const CLI = join(ROOT, 'dist/cli.js');
/** tsx's loader, for running TypeScript that is not in dist (test/support helpers) in a plain `node` process. */
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

/** This environment without any MARKETLENS_* of the developer's shell, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('MARKETLENS_')));
  return { ...clean, ...extra };
}

/**
 * `marketlens` with these arguments, as a command and its argv: one plain `node` process running the compiled CLI
 * (no wrapper process between the test and the server, so a signal sent to the child reaches marketlens itself).
 */
export const CLI_COMMAND = (args: string[]): [string, string[]] => [process.execPath, [CLI, ...args]];

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
 * The child is the server itself (CLI_COMMAND): not the `tsx` command, which relays a signal to its child only if the
 * child confirms within 30 ms, else SIGKILLs it — on a busy machine a SIGTERM test would then see tsx's kill.
 */
export async function startServe(env: Record<string, string>): Promise<Served> {
  const [cmd, argv] = CLI_COMMAND(['serve']);
  return startCommand(cmd, argv, env);
}

/** Starts any command that runs the service (an installed copy's bin, `npm start`); resolves once it listens. */
export async function startCommand(
  cmd: string,
  argv: string[],
  env: Record<string, string>,
  cwd = tmpdir(),
): Promise<Served> {
  const child = spawn(cmd, argv, { env: cleanEnv(env), cwd });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  // Resolves on the output line itself (or fails on exit, or after 30 s): no polling delay per start.
  const started = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 30_000);
    const check = () => {
      if (!/Server listening/.test(out)) return;
      clearTimeout(timer);
      resolve(true);
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(/Server listening/.test(out));
    });
  });
  if (!started) {
    child.kill('SIGKILL');
    throw new Error(`serve did not start:\n${out}`);
  }
  return { child, out: () => out, exited };
}
