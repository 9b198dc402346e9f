/**
 * Runs a bench server in its own Node process (compiled, see compiled.ts), so the load generator (autocannon, in the
 * parent) does not share an event loop with the server it measures. Messages are plain JSON over the IPC channel.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { START_ENV, V8_FLAGS } from '../../src/v8-flags.js';
import { asRecord } from '../../src/util/json-path.js';
import { compiled } from './compiled.js';

export interface Child {
  proc: ChildProcess;
  /** Sends a request message and waits for the reply of the same `type`. */
  ask<T = Record<string, unknown>>(type: string, payload?: Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

/** Starts `file` (a module under bench/) and waits for its `{ type: 'ready', ... }` message. */
export async function startChild<T>(file: URL, env: Record<string, string> = {}): Promise<{ child: Child; ready: T }> {
  const proc = fork(compiled(file), [], {
    // The service's own V8 flags (as its start command sets them), then any the bench is asked to try.
    execArgv: ['--expose-gc', ...V8_FLAGS, ...(process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [])],
    env: { ...START_ENV, ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<T>((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${file.pathname} exited with ${code} before it was ready`)));
    proc.on('message', function onReady(m: unknown) {
      if (asRecord(m)?.type === 'ready') {
        proc.off('message', onReady);
        resolve(m as T);
      }
    });
  });
  proc.removeAllListeners('exit');
  const ask = <R>(type: string, payload: Record<string, unknown> = {}) =>
    new Promise<R>((resolve, reject) => {
      const onMessage = (raw: unknown) => {
        const m = asRecord(raw);
        if (m?.type !== type) return;
        proc.off('message', onMessage);
        if (m.error) reject(new Error(String(m.error)));
        else resolve(m as R);
      };
      proc.on('message', onMessage);
      proc.send({ type, ...payload });
    });
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.send({ type: 'stop' });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return { child: { proc, ask, stop }, ready };
}

/** A child's answer to one message type; its parameter is the message as the parent's `ask` sent it. */
type MessageHandler = (message: never) => Promise<Record<string, unknown>> | Record<string, unknown>;

/** In a child: answers `type` messages with `handler`'s result (or its error). */
export function serveMessages(handlers: Record<string, MessageHandler>): void {
  process.on('message', async (raw: unknown) => {
    const m = asRecord(raw);
    const type = m?.type;
    const h = typeof type === 'string' ? handlers[type] : undefined;
    if (!m || !h) return;
    try {
      // The parent's `ask` sends the payload the handler's own parameter type names.
      process.send!({ type, ...(await h(m as never)) });
    } catch (e) {
      process.send!({ type, error: (e as Error).stack ?? String(e) });
    }
  });
}

/** Resident set size and heap of this process, in bytes (after a GC when --expose-gc is on). */
export function memory(collect = true): { rss: number; heapUsed: number } {
  if (collect) (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed };
}
